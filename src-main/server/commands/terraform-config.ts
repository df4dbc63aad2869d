import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { DEFAULT_HOST, DEFAULT_PORT, UsageError } from '../boot/options.js'
import { readAdminTokenFile } from '../data-dir/admin-token.js'
import { resolveDataDir } from '../data-dir/default-dir.js'
import { makeFolder, writeInside } from '../files/folder-writes.js'
import { isRegistryHostname, DEFAULT_REGISTRY_HOSTNAME, PUBLIC_REGISTRY_HOSTS, terraformCliConfig } from '../../shared/terraform-config.js'
import { command } from './command.js'

export const terraformConfig = command({
  name: 'terraform-config',
  synopsis: '[--output <file>] [--url <url>] [--hostname <name>] [--token <token> | --login] [--data-dir <path>] [--air-gapped]',
  description: `writes the Terraform CLI configuration that points a registry hostname at
  Homeport (use it with TF_CLI_CONFIG_FILE, or copy it into ~/.terraformrc). With --login, it holds no
  token and goes to ~/.terraform.d/homeport.tfrc, for terraform login <hostname> to complete.`,
  options: {
    url: { type: 'string' },
    hostname: { type: 'string' },
    token: { type: 'string' },
    'data-dir': { type: 'string' },
    output: { type: 'string', short: 'o' },
    'air-gapped': { type: 'boolean' },
    login: { type: 'boolean' }
  },
  async run({ values, positionals }) {
    if (positionals.length > 0) throw new UsageError(`homeport terraform-config takes options only, not "${positionals[0]}".`)
    const env = process.env
    // The URL defaults to where `homeport serve` listens with the same environment.
    const tls = ['1', 'true', 'on'].includes((env.HOMEPORT_TLS ?? '').toLowerCase())
    const url = values.url ?? `${tls ? 'https' : 'http'}://${env.HOMEPORT_HOST ?? DEFAULT_HOST}:${env.HOMEPORT_PORT ?? DEFAULT_PORT}`
    if (!/^https?:\/\/[^/]+\/?$/.test(url)) throw new UsageError('--url is the server URL, like http://127.0.0.1:4780.')
    const hostname = (values.hostname ?? env.HOMEPORT_REGISTRY_HOSTNAME ?? DEFAULT_REGISTRY_HOSTNAME).toLowerCase()
    if (!isRegistryHostname(hostname)) throw new UsageError('--hostname must contain a dot (Terraform requires it), like homeport.localhost.')
    const publicHosts = values['air-gapped'] ? PUBLIC_REGISTRY_HOSTS : []
    if (values.login) return writeLoginConfig(values.output ?? join(homedir(), '.terraform.d', 'homeport.tfrc'), hostname, terraformCliConfig({ hostname, serverUrl: url, publicHosts }))
    const dataDir = resolveDataDir(values['data-dir'])
    const token = values.token ?? env.HOMEPORT_TOKEN ?? env.HOMEPORT_ADMIN_TOKEN ?? (await readAdminTokenFile(dataDir))
    if (!token) {
      throw new UsageError(`No token: pass --token (a team token is best), use --login to sign in with terraform login, or start Homeport once so ${dataDir} has its admin token.`)
    }
    const text = terraformCliConfig({ hostname, serverUrl: url, token, publicHosts })
    if (!values.output) {
      process.stdout.write(text)
      return
    }
    await writeInside(dirname(resolve(values.output)), values.output, text, { atomic: true })
    console.log(`Wrote ${values.output}. Use it with:\n  export TF_CLI_CONFIG_FILE=${values.output}`)
    console.log(`Module sources then read: ${hostname}/<organization>/<module>/<provider>`)
  }
})

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
