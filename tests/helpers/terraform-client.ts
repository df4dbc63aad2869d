import { mkdir, stat } from 'node:fs/promises'
import { join, posix } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { extract } from 'tar'
import { canonical, compare, meets, parseVersion } from './go-version.js'

/**
 * A module installer that talks to a registry exactly as `terraform init` does, from the facts
 * in ../shared/terraform-client.md (there is no terraform binary on these machines). It is the
 * test oracle for "Terraform can install modules from Homeport".
 */
export interface CliConfig {
  /** `host "<name>" { services = { "modules.v1" = "<url>" } }` blocks. */
  hosts: Record<string, Record<string, string>>
  /** `credentials "<name>" { token = "<token>" }` blocks. */
  credentials: Record<string, string>
}

export class TerraformError extends Error {
  constructor(
    readonly summary: string,
    detail: string
  ) {
    super(`Error: ${summary}\n\n${detail}`)
    this.name = 'TerraformError'
  }
}

export interface Installed {
  version: string
  /** The module's directory: the package root, or the `//subdir` in it. */
  dir: string
  /** The location the registry gave, as Terraform resolved it. */
  location: string
}

/** A fetch that may trust another CA (for HTTPS against a self-signed certificate). */
export type Fetch = typeof fetch

export class TerraformClient {
  private readonly discovered = new Map<string, URL>()

  constructor(
    private readonly config: CliConfig,
    private readonly http: Fetch = fetch,
    private readonly terraformVersion = '1.9.5'
  ) {}

  /** `module "x" { source = …, version = … }` → the module installed under `into`. */
  async install(source: string, constraint: string | undefined, into: string): Promise<Installed> {
    const { host, namespace, name, system, subdir } = parseSource(source)
    const base = await this.modulesService(host)
    const headers = this.headers(host)

    const versionsUrl = new URL(posix.join(namespace, name, system, 'versions'), base)
    const versions = await this.http(versionsUrl, { headers })
    if (versions.status === 404) {
      throw new TerraformError('Module not found', `Module "${name}" cannot be found in the module registry at ${host}.`)
    }
    if (versions.status !== 200) {
      throw new TerraformError(
        'Error accessing remote module registry',
        `Failed to retrieve available versions for module "${name}" from ${host}: error looking up module versions: ${versions.status} ${versions.statusText}.`
      )
    }
    const body = (await versions.json()) as { modules: Array<{ versions: Array<{ version: string }> }> }
    const first = body.modules[0]
    if (!first) throw new TerraformError('Invalid response from remote module registry', `The registry at ${host} returned no modules.`)
    const candidates = first.versions.flatMap(({ version }) => {
      const parsed = parseVersion(version)
      return parsed ? [parsed] : []
    })
    if (candidates.length === 0) throw new TerraformError('Module has no versions', `Module "${name}" has no versions available on ${host}.`)
    const chosen = candidates.filter((version) => meets(version, constraint)).sort(compare).pop()
    if (!chosen) {
      const newest = candidates.sort(compare).pop()!
      throw new TerraformError(
        'Unresolvable module version constraint',
        `There is no available version of module "${host}/${namespace}/${name}/${system}" which matches the given version constraint. The newest available version is ${canonical(newest)}.`
      )
    }

    const version = canonical(chosen)
    const downloadUrl = new URL(posix.join(namespace, name, system, version, 'download'), base)
    const download = await this.http(downloadUrl, { headers })
    if (download.status === 404) throw new TerraformError('Error accessing remote module registry', `module ${source} version "${version}" not found`)
    if (download.status !== 200 && download.status !== 204) {
      throw new TerraformError('Error accessing remote module registry', `error getting download location: ${download.status}`)
    }
    const header = download.headers.get('x-terraform-get')
    if (!header) throw new TerraformError('Error accessing remote module registry', `failed to get download URL for "${source}"`)
    // Only these prefixes make a location relative to the download URL as requested.
    const location = /^(\/|\.\/|\.\.\/)/.test(header) ? new URL(header, downloadUrl).toString() : header
    if (!/^https?:\/\//.test(location)) throw new TerraformError('Invalid package location from module registry', location)

    const dir = await this.fetchPackage(location, into)
    const moduleDir = subdir ? join(dir, subdir) : dir
    if (!(await stat(moduleDir).then((s) => s.isDirectory(), () => false))) {
      throw new TerraformError('Unreadable module subdirectory', `The directory ${moduleDir} does not exist.`)
    }
    return { version, dir: moduleDir, location }
  }

  /** The `modules.v1` URL: a CLI-config `host` block wins; otherwise HTTPS discovery. */
  private async modulesService(host: string): Promise<URL> {
    const known = this.discovered.get(host)
    if (known) return known
    let services: Record<string, unknown> | undefined = this.config.hosts[host]
    let discoveryUrl = new URL(`https://${host}/.well-known/terraform.json`)
    if (!services) {
      const response = await this.http(discoveryUrl, { headers: { Accept: 'application/json', ...this.headers(host) } })
      if (response.status === 404) throw new TerraformError('Failed to discover', 'host does not provide a modules service')
      if (response.status !== 200) throw new TerraformError('Failed to discover', `failed to request discovery document: ${response.status}`)
      const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim()
      if (type !== 'application/json') throw new TerraformError('Failed to discover', `discovery URL returned an unsupported Content-Type "${type}"`)
      discoveryUrl = new URL(response.url)
      services = (await response.json()) as Record<string, unknown>
    }
    const value = services['modules.v1']
    if (typeof value !== 'string') throw new TerraformError('Failed to discover', `host ${host} does not provide a modules service`)
    const url = new URL(value, discoveryUrl)
    if (!url.pathname.endsWith('/')) url.pathname += '/'
    this.discovered.set(host, url)
    return url
  }

  private headers(host: string): Record<string, string> {
    const token = this.config.credentials[host]
    return {
      'X-Terraform-Version': this.terraformVersion,
      'User-Agent': `Terraform/${this.terraformVersion}`,
      ...(token ? { Authorization: `Bearer ${token}` } : {})
    }
  }

  /** go-getter's HTTP archive download: HEAD, then GET, no token; the archive root is the package root. */
  private async fetchPackage(location: string, into: string): Promise<string> {
    const url = new URL(location)
    if (!url.pathname.endsWith('.tar.gz') && !url.pathname.endsWith('.tgz')) {
      throw new TerraformError('Failed to download module', `${location} is not an archive go-getter recognises`)
    }
    const head = await this.http(url, { method: 'HEAD' })
    if (head.status !== 200) throw new TerraformError('Failed to download module', `bad response code: ${head.status}`)
    const response = await this.http(url, { headers: { 'Accept-Encoding': 'gzip' } })
    if (response.status !== 200 && response.status !== 206) throw new TerraformError('Failed to download module', `bad response code: ${response.status}`)
    if (response.headers.get('content-encoding')) {
      throw new TerraformError('Failed to download module', 'the archive came Content-Encoded; Go would have unzipped it before the tar reader')
    }
    await mkdir(into, { recursive: true })
    // go-getter makes links empty files; leaving them out is close enough for the tests.
    await pipeline(
      Readable.fromWeb(response.body! as never),
      extract({ cwd: into, strict: true, filter: (_path, entry) => !('type' in entry) || (entry.type !== 'SymbolicLink' && entry.type !== 'Link') })
    )
    return into
  }
}

/** A registry source address (`host/ns/name/system[//subdir]`), checked as Terraform checks it. */
export function parseSource(source: string): { host: string; namespace: string; name: string; system: string; subdir: string } {
  const [address, subdir = ''] = source.split('//')
  const parts = address!.split('/')
  if (parts.length !== 4) throw new TerraformError('Invalid registry module source address', `"${source}" needs a hostname for a private registry`)
  const [host, namespace, name, system] = parts as [string, string, string, string]
  if (!host.split(':')[0]!.includes('.')) {
    throw new TerraformError('Invalid registry module source address', 'invalid module registry hostname: must contain at least one dot')
  }
  const label = /^[0-9A-Za-z](?:[0-9A-Za-z-_]{0,62}[0-9A-Za-z])?$/
  if (!label.test(namespace) || !label.test(name) || !/^[0-9a-z]{1,64}$/.test(system)) {
    throw new TerraformError('Invalid registry module source address', `"${source}" is not a valid registry address`)
  }
  return { host: host.toLowerCase().replace(/:443$/, ''), namespace, name, system, subdir }
}
