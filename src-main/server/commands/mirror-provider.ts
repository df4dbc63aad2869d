import { UsageError } from '../boot/options.js'
import { command, DATA_DIR_OPTIONS } from './command.js'
import { requireRunning } from './lib/running.js'

export const mirrorProvider = command({
  name: 'mirror-provider',
  synopsis: '<[hostname/]namespace/type> --platform <os_arch>... [--versions <constraint>] [--data-dir <path>] [--token <admin token>]',
  description: `has the running Homeport mirror a public provider's versions and platforms from its upstream,
  so that terraform init finds them offline (hashicorp/aws --versions "~> 5.0" --platform linux_amd64);
  registry.opentofu.org/hashicorp/aws mirrors OpenTofu's registry's copy, signed by its keys.`,
  options: { ...DATA_DIR_OPTIONS, versions: { type: 'string' }, platform: { type: 'string', multiple: true } },
  async run({ values, positionals }) {
    const [source] = positionals
    if (!source || positionals.length > 1) throw new UsageError('homeport mirror-provider takes one provider, like hashicorp/aws or registry.opentofu.org/hashicorp/aws.')
    if (!values.platform?.length) throw new UsageError('Name at least one --platform (linux_amd64, darwin_arm64…).')
    const { client } = await requireRunning(values, 'online, then mirror')
    const { data } = await client.mirrorProvider(source, values.platform, values.versions)
    for (const entry of data.attributes.mirrored) console.log(`Mirrored ${source} ${entry.version} for ${entry.platform}.`)
  }
})
