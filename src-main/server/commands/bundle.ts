import { dirname, resolve } from 'node:path'
import { UsageError } from '../boot/options.js'
import { formatBytes } from '../domain/ingest/archive-reader.js'
import { writeInside } from '../files/folder-writes.js'
import { command, DATA_DIR_OPTIONS } from './command.js'
import type { HomeportClient } from './lib/client.js'
import { readConfiguration } from './lib/configuration-folder.js'
import { requireRunning } from './lib/running.js'

/** How often the bundle's progress is asked for. */
const POLL_MS = 300

export const bundle = command({
  name: 'bundle',
  synopsis: '[<configuration folder>] --platform <os_arch>... --output <file.hpbundle> [--organization <name>] [--module <source>[@<constraint>]]... [--provider <source>[@<constraint>]]... [--data-dir <path>] [--token <token>]',
  description: `has the running Homeport gather everything a Terraform configuration needs (every module call, through
  the modules it calls, and every provider, for each --platform; .terraform.lock.hcl honoured), pulling through
  its upstreams while online, into one file for another Homeport. Modules and providers can be named outright too
  (--module terraform-aws-modules/vpc/aws@"~> 5.0", --provider hashicorp/aws@"~> 5.0"). Nothing is written when
  anything cannot be had: what and why are listed.`,
  options: {
    ...DATA_DIR_OPTIONS,
    organization: { type: 'string' },
    output: { type: 'string', short: 'o' },
    platform: { type: 'string', multiple: true },
    module: { type: 'string', multiple: true },
    provider: { type: 'string', multiple: true }
  },
  async run({ values, positionals }) {
    if (positionals.length > 1) throw new UsageError('homeport bundle takes one configuration folder.')
    const [folder] = positionals
    if (!folder && !values.module?.length && !values.provider?.length) throw new UsageError('Give the configuration folder to bundle (where you run terraform init), or --module and --provider.')
    if (!values.output) throw new UsageError('Name the bundle to write with --output (demo.hpbundle).')
    if (!values.platform?.length && (folder || values.provider?.length)) throw new UsageError('Name at least one --platform the providers are for (linux_amd64, darwin_arm64…).')
    const { client } = await requireRunning(values, 'online, then bundle')
    await writeBundle(client, {
      folder,
      platforms: values.platform ?? [],
      output: values.output,
      organization: values.organization,
      modules: values.module ?? [],
      providers: values.provider ?? []
    })
  }
})

/**
 * Has the running Homeport resolve and gather everything the configuration needs (pulling through
 * its upstreams), printing its progress, then downloads the bundle. Nothing is written when anything
 * cannot be had.
 */
async function writeBundle(client: HomeportClient, options: { folder?: string; platforms: string[]; output: string; organization?: string; modules: string[]; providers: string[] }): Promise<void> {
  const organization = options.organization ?? (await onlyOrganization(client))
  const named = (list: string[]) => list.map((entry) => {
    const at = entry.lastIndexOf('@')
    return at > 0 ? { source: entry.slice(0, at), version: entry.slice(at + 1) } : { source: entry }
  })
  const started = await client.createBundle({
    organization,
    platforms: options.platforms,
    ...(options.folder ? { configuration: await readConfiguration(options.folder) } : {}),
    modules: named(options.modules),
    providers: named(options.providers)
  })
  const id = started.data.id
  let shown = 0
  let job = started.data.attributes
  for (;;) {
    for (const step of job.steps.slice(shown)) console.log(step)
    shown = job.steps.length
    if (job.status === 'ready' || job.status === 'failed') break
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    const polled = (await client.bundle(id)).data.attributes
    // Steps beyond the last hundred are dropped on the server: show what is there.
    if (polled.steps.length < shown) shown = 0
    job = polled
  }
  for (const added of job.curated) console.log(`Curated ${added} in ${organization}, to pull it through.`)
  if (job.status === 'failed') {
    for (const problem of job.problems) console.error(`  ${problem.what}: ${problem.reason}`)
    throw new Error(`No bundle was written: ${job.problems.length} ${job.problems.length === 1 ? 'thing' : 'things'} could not be resolved.`)
  }
  const file = await client.downloadBundle(id).catch((error: Error) => {
    throw new Error(`Homeport could not send the bundle: ${error.message}`)
  })
  await writeInside(dirname(resolve(options.output)), options.output, file, { atomic: true })
  await client.deleteBundle(id)
  const manifest = job.manifest!
  console.log(`Wrote ${options.output} (${formatBytes(job.size ?? 0)}): ${manifest.modules.length} module version(s), ${manifest.providers.length} provider version(s) for ${manifest.platforms.join(', ') || 'no platform'}.`)
}

async function onlyOrganization(client: HomeportClient): Promise<string> {
  const names = (await client.organizations()).data.map((org) => org.attributes.name)
  if (names.length !== 1) throw new UsageError(`Name the organization whose registry the bundle comes from with --organization (${names.length === 0 ? 'there is none yet: create one' : `one of ${names.join(', ')}`}).`)
  return names[0]!
}
