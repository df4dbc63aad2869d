import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { DEFAULT_HOST, DEFAULT_PORT, UsageError } from '../boot/options.js'
import { readAdminTokenFile } from '../boot/admin-token.js'
import { resolveDataDir } from '../data-dir/default-dir.js'
import { makeFolder, writeInside } from '../files/folder-writes.js'
import {
  configurationProblem,
  DEFAULT_REGISTRY_HOSTNAME,
  OPENTOFU_INSTALLS,
  openTofuCliConfig,
  openTofuConfigProblem,
  PUBLIC_REGISTRY_HOSTS,
  terraformCliConfig,
  type OpenTofuInstall
} from '../../shared/terraform-config.js'
import { command } from './command.js'

export const terraformConfig = command({
  name: 'terraform-config',
  synopsis: '[--output <file>] [--url <url>] [--hostname <name>] [--token <token> | --login] [--data-dir <path>] [--air-gapped] [--opentofu [--install registry|network-mirror|oci]]',
  description: `writes the Terraform CLI configuration that points a registry hostname at
  Homeport (use it with TF_CLI_CONFIG_FILE, or copy it into ~/.terraformrc). With --login, it holds no
  token and goes to ~/.terraform.d/homeport.tfrc, for terraform login <hostname> to complete.
  With --opentofu, it is OpenTofu's (a .tofurc), installing providers through the registry protocol,
  Homeport's network mirror or its OCI registry (--install; the mirrors need --tls).`,
  options: {
    url: { type: 'string' },
    hostname: { type: 'string' },
    token: { type: 'string' },
    'data-dir': { type: 'string' },
    output: { type: 'string', short: 'o' },
    'air-gapped': { type: 'boolean' },
    login: { type: 'boolean' },
    opentofu: { type: 'boolean' },
    install: { type: 'string' }
  },
  async run({ values, positionals }) {
    if (positionals.length > 0) throw new UsageError(`homeport terraform-config takes options only, not "${positionals[0]}".`)
    const env = process.env
    // The URL defaults to where `homeport serve` listens with the same environment.
    const tls = ['1', 'true', 'on'].includes((env.HOMEPORT_TLS ?? '').toLowerCase())
    const url = values.url ?? `${tls ? 'https' : 'http'}://${env.HOMEPORT_HOST ?? DEFAULT_HOST}:${env.HOMEPORT_PORT ?? DEFAULT_PORT}`
    const hostname = (values.hostname ?? env.HOMEPORT_REGISTRY_HOSTNAME ?? DEFAULT_REGISTRY_HOSTNAME).toLowerCase()
    const invalid = configurationProblem({ hostname, serverUrl: url })
    if (invalid) throw new UsageError(`${invalid} (--url or HOMEPORT_HOST and HOMEPORT_PORT, --hostname or HOMEPORT_REGISTRY_HOSTNAME)`)
    const publicHosts = values['air-gapped'] ? PUBLIC_REGISTRY_HOSTS : []
    const install = openTofuInstall(values.opentofu ?? false, values.install)
    if (install && values.login) throw new UsageError('--login is for terraform login; for OpenTofu, pass --token (OCI registries take no other credentials).')
    if (install) {
      const problem = openTofuConfigProblem({ install, serverUrl: url })
      if (problem) throw new UsageError(problem)
    }
    if (values.login) return writeLoginConfig(values.output ?? join(homedir(), '.terraform.d', 'homeport.tfrc'), hostname, terraformCliConfig({ hostname, serverUrl: url, publicHosts }))
    const dataDir = resolveDataDir(values['data-dir'])
    const token = values.token ?? env.HOMEPORT_TOKEN ?? env.HOMEPORT_ADMIN_TOKEN ?? (await readAdminTokenFile(dataDir))
    if (!token) {
      throw new UsageError(`No token: pass --token (a team token is best), use --login to sign in with terraform login, or start Homeport once so ${dataDir} has its admin token.`)
    }
    const badToken = configurationProblem({ hostname, serverUrl: url, token })
    if (badToken) throw new UsageError(`${badToken} (--token, HOMEPORT_TOKEN or HOMEPORT_ADMIN_TOKEN)`)
    const text = install
      ? openTofuCliConfig({ hostname, serverUrl: url, token, install, airGapped: values['air-gapped'] ?? false })
      : terraformCliConfig({ hostname, serverUrl: url, token, publicHosts })
    if (!values.output) {
      process.stdout.write(text)
      return
    }
    await writeInside(dirname(resolve(values.output)), values.output, text, { atomic: true })
    console.log(`Wrote ${values.output}. Use it with:\n  export TF_CLI_CONFIG_FILE=${values.output}`)
    console.log(`Module sources then read: ${hostname}/<organization>/<module>/<provider>`)
  }
})

/** How OpenTofu is to install providers, for --opentofu; undefined for Terraform's configuration. */
function openTofuInstall(opentofu: boolean, install: string | undefined): OpenTofuInstall | undefined {
  if (!opentofu) {
    if (install !== undefined) throw new UsageError('--install goes with --opentofu.')
    return undefined
  }
  const known = OPENTOFU_INSTALLS.map((entry) => entry.install)
  if (install === undefined) return 'registry'
  if (!known.includes(install as OpenTofuInstall)) throw new UsageError(`--install is one of ${known.join(', ')}.`)
  return install as OpenTofuInstall
}

/**
 * The configuration for `terraform login`, where Terraform reads it without TF_CLI_CONFIG_FILE (with it
 * set, the token login saves is never read again), in a ~/.terraform.d it creates (Terraform does not,
 * and then fails to save the token).
 */
async function writeLoginConfig(output: string, hostname: string, text: string): Promise<void> {
  await makeFolder(dirname(resolve(output)), undefined, 0o700)
  await writeInside(dirname(resolve(output)), output, text, { atomic: true })
  console.log(`Wrote ${output}.`)
  if (process.env.TF_CLI_CONFIG_FILE) console.log(`TF_CLI_CONFIG_FILE is set (${process.env.TF_CLI_CONFIG_FILE}): unset it, or Terraform will not use the token login saves.`)
  console.log(`Now run:\n  terraform login ${hostname}\nand approve "Terraform CLI on this machine" in the page it opens.`)
}
