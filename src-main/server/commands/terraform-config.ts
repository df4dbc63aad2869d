import { homedir } from 'node:os'
import { rootCertificates } from 'node:tls'
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
import { HomeportClient, noAdminToken, runningServer, type RunningServer } from './lib/client.js'

export const terraformConfig = command({
  name: 'terraform-config',
  synopsis:
    '[--output <file>] [--url <url>] [--hostname <name>] [--team <organization>/<team> | --token <token> | --login | --admin] [--data-dir <path>] [--air-gapped] [--opentofu [--install registry|network-mirror|oci] [--mirror-public]]',
  description: `writes the Terraform CLI configuration that points a registry hostname at
  Homeport (use it with TF_CLI_CONFIG_FILE, or copy it into ~/.terraformrc). It points at the Homeport
  running on the data directory (its address, scheme and CA), else where homeport serve listens with
  this environment. Its token: --team makes one acting as that team (listed and revocable with the
  organization's tokens), --token writes yours, --admin the site admin's (every right: not for
  everyday use). With --login, it holds no token and goes to ~/.terraform.d/homeport.tfrc, for
  terraform login <hostname> to complete. With --opentofu, it is OpenTofu's (a .tofurc), installing
  providers through the registry protocol, Homeport's network mirror or its OCI registry (--install;
  the mirrors need --tls), the public registries' providers through the mirror too with
  --mirror-public (or --air-gapped, which also sends their modules to Homeport).`,
  options: {
    url: { type: 'string' },
    hostname: { type: 'string' },
    token: { type: 'string' },
    team: { type: 'string' },
    admin: { type: 'boolean' },
    'data-dir': { type: 'string' },
    output: { type: 'string', short: 'o' },
    'air-gapped': { type: 'boolean' },
    login: { type: 'boolean' },
    opentofu: { type: 'boolean' },
    install: { type: 'string' },
    'mirror-public': { type: 'boolean' }
  },
  async run({ values, positionals }) {
    if (positionals.length > 0) throw new UsageError(`homeport terraform-config takes options only, not "${positionals[0]}".`)
    const env = process.env
    const dataDir = resolveDataDir(values['data-dir'])
    const running = values.url ? undefined : await runningServer(dataDir)
    // Where the running Homeport listens; else where `homeport serve` would with the same environment.
    const url = values.url ?? running?.url ?? defaultUrl(env)
    const hostname = (values.hostname ?? env.HOMEPORT_REGISTRY_HOSTNAME ?? DEFAULT_REGISTRY_HOSTNAME).toLowerCase()
    const invalid = configurationProblem({ hostname, serverUrl: url })
    if (invalid) throw new UsageError(`${invalid} (--url or HOMEPORT_HOST and HOMEPORT_PORT, --hostname or HOMEPORT_REGISTRY_HOSTNAME)`)
    const publicHosts = values['air-gapped'] ? PUBLIC_REGISTRY_HOSTS : []
    const install = openTofuInstall(values.opentofu ?? false, values.install, values['mirror-public'] ?? false)
    const ways = [values.team !== undefined, values.token !== undefined, values.login === true, values.admin === true].filter(Boolean).length
    if (ways > 1) throw new UsageError('Choose one of --team, --token, --login and --admin.')
    if (install && values.login) throw new UsageError('--login is for terraform login; for OpenTofu, pass --team or --token (OCI registries take no other credentials).')
    if (!values.url && !running) {
      console.error(`homeport: no Homeport is running on ${dataDir}, so the configuration points at ${url} (where homeport serve listens with this environment). Pass --url, or --data-dir for another Homeport.`)
    }
    if (install) {
      const problem = openTofuConfigProblem({ install, serverUrl: url })
      if (problem) throw new UsageError(running ? `${problem} (the Homeport on ${dataDir} serves ${url})` : problem)
    }
    if (values.login) return writeLoginConfig(values.output ?? join(homedir(), '.terraform.d', 'homeport.tfrc'), hostname, terraformCliConfig({ hostname, serverUrl: url, publicHosts }))
    const { token, said } = await chooseToken(values, env, dataDir, running, hostname)
    const badToken = configurationProblem({ hostname, serverUrl: url, token })
    if (badToken) throw new UsageError(`${badToken} (--token, HOMEPORT_TOKEN or HOMEPORT_ADMIN_TOKEN)`)
    const text = install
      ? openTofuCliConfig({ hostname, serverUrl: url, token, install, airGapped: values['air-gapped'] ?? false, mirrorPublic: values['mirror-public'] ?? false })
      : terraformCliConfig({ hostname, serverUrl: url, token, publicHosts })
    if (!values.output) {
      process.stdout.write(text)
      console.error(`homeport: ${said}`)
      if (running?.ca) console.error(`homeport: ${url} uses Homeport's own CA: pass --output to have a CA bundle written beside the file, with how to trust it.`)
      return
    }
    const folder = dirname(resolve(values.output))
    await writeInside(folder, values.output, text, { atomic: true })
    console.log(`Wrote ${values.output} for ${url}. ${said}`)
    console.log(`Use it with:\n  export TF_CLI_CONFIG_FILE=${resolve(values.output)}`)
    if (running?.ca) console.log(await writeTrust(folder, running.ca))
    console.log(`Module sources then read: ${hostname}/<organization>/<module>/<provider>`)
  }
})

/** Where `homeport serve` listens with this environment (HOMEPORT_TLS, HOMEPORT_HOST, HOMEPORT_PORT). */
function defaultUrl(env: NodeJS.ProcessEnv): string {
  const tls = ['1', 'true', 'on'].includes((env.HOMEPORT_TLS ?? '').toLowerCase())
  return `${tls ? 'https' : 'http'}://${env.HOMEPORT_HOST ?? DEFAULT_HOST}:${env.HOMEPORT_PORT ?? DEFAULT_PORT}`
}

/**
 * The token the file holds, and what to say of it: the one given (--token, HOMEPORT_TOKEN); one made
 * for the purpose acting as a team (--team, through the running Homeport); the site admin's only when
 * asked for by name (--admin). No default: the site admin's token in a CLI configuration can delete
 * every organization, and a file lives on.
 */
async function chooseToken(
  values: { token?: string; team?: string; admin?: boolean },
  env: NodeJS.ProcessEnv,
  dataDir: string,
  running: RunningServer | undefined,
  hostname: string
): Promise<{ token: string; said: string }> {
  const given = values.token ?? env.HOMEPORT_TOKEN
  if (given) return { token: given, said: 'It holds the token you gave.' }
  if (values.team !== undefined) return teamToken(values.team, dataDir, running, hostname)
  if (values.admin) {
    const admin = env.HOMEPORT_ADMIN_TOKEN ?? (await readAdminTokenFile(dataDir))
    if (!admin) throw new UsageError(noAdminToken(dataDir, running))
    return { token: admin, said: 'It holds the site admin’s token: every right on every organization. Prefer --team <organization>/<team> for everyday use.' }
  }
  throw new UsageError(
    'Which rights should Terraform have? Pass --team <organization>/<team> (a token acting as that team is made for this file), --token <token>, --login (terraform login completes it), or --admin (the site admin’s token; not for everyday use).'
  )
}

/** A token made for this file, acting as `organization/team`, through the running Homeport as the site admin. */
async function teamToken(spec: string, dataDir: string, running: RunningServer | undefined, hostname: string): Promise<{ token: string; said: string }> {
  const [organization, team, ...extra] = spec.split('/')
  if (!organization || !team || extra.length > 0) throw new UsageError(`--team is <organization>/<team>, like acme/readers, not "${spec}".`)
  if (!running) throw new UsageError(`--team makes its token through the running Homeport, and none runs on ${dataDir}: start it (homeport serve), or pass --data-dir for the one that runs.`)
  const client = await HomeportClient.running(dataDir)
  if (!client) throw new UsageError(`The Homeport on ${dataDir} stopped: start it again.`)
  const teams = await client.teams(organization)
  const found = teams.data.find((candidate) => candidate.attributes.name === team)
  if (!found) throw new UsageError(`${organization} has no team ${team}: it has ${teams.data.map((candidate) => candidate.attributes.name).join(', ')}.`)
  const made = await client.addTeamToken(found.id, `Terraform CLI configuration for ${hostname} (homeport terraform-config)`)
  const rights = found.attributes['organization-access']['manage-modules'] ? 'reads and publishes' : 'reads'
  return {
    token: made.data.attributes.token!,
    said: `It holds a new token acting as team ${organization}/${team}, which ${rights} ${organization}’s modules and providers; it is listed under ${organization}’s Teams (Terraform CLI tokens), where it can be revoked.`
  }
}

/**
 * Trust in Homeport's own CA, beside the configuration: a bundle of the usual public roots (Node's,
 * Mozilla's) and Homeport's CA, since SSL_CERT_FILE replaces Terraform's roots rather than adding to
 * them (Homeport's CA alone there broke every direct install), and what to do on each system.
 */
async function writeTrust(folder: string, ca: string): Promise<string> {
  const bundle = join(folder, CA_BUNDLE_FILE)
  await writeInside(folder, CA_BUNDLE_FILE, `${[...rootCertificates, ca.trim()].join('\n')}\n`, { atomic: true })
  return [
    `It serves HTTPS with Homeport's own CA. Wrote ${bundle}: the public roots and Homeport's CA together. Trust it:`,
    `  Linux:   export SSL_CERT_FILE=${bundle}   (Terraform and OpenTofu then trust both)`,
    `  macOS:   sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain <data-dir>/tls/ca.crt   (SSL_CERT_FILE is not read there)`,
    `  Windows: certutil -addstore -f ROOT <data-dir>\\tls\\ca.crt   (as an administrator)`
  ].join('\n')
}

/** The CA bundle's name, beside the configuration it goes with. */
const CA_BUNDLE_FILE = 'homeport-ca-bundle.pem'

/** How OpenTofu is to install providers, for --opentofu; undefined for Terraform's configuration. */
function openTofuInstall(opentofu: boolean, install: string | undefined, mirrorPublic: boolean): OpenTofuInstall | undefined {
  if (!opentofu) {
    if (install !== undefined) throw new UsageError('--install goes with --opentofu.')
    if (mirrorPublic) throw new UsageError('--mirror-public goes with --opentofu and --install network-mirror or oci.')
    return undefined
  }
  if (mirrorPublic && (install === undefined || install === 'registry')) throw new UsageError('--mirror-public goes with --install network-mirror or oci: the registry protocol has no mirror to send them to.')
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
