import { createHash } from 'node:crypto'
import { mkdir, stat, writeFile } from 'node:fs/promises'
import { dirname, join, posix } from 'node:path'
import { unzipSync } from 'fflate'
import * as openpgp from 'openpgp'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { extract } from 'tar'
import { canonical, compare, meets, parseVersion } from './go-version.js'
import { PUBLIC_MIRROR_PREFIXES } from '../../src-main/shared/terraform-config.js'

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

  /**
   * `required_providers { x = { source = "<host>/<ns>/<type>", version = … } }` → the provider
   * installed under `into` for `platform`, as `terraform init` does it (shared/research/providers.md
   * §3): the versions, the package, SHA256SUMS and its signature fetched without a token, every
   * check in Terraform's order, then the zip, unpacked; and the lock file's hashes.
   */
  async installProvider(source: string, constraint: string | undefined, platform: string, into: string): Promise<InstalledProvider> {
    const [host, namespace, type] = source.toLowerCase().split('/') as [string, string, string]
    const base = await this.service(host, 'providers.v1')
    const headers = this.headers(host)
    const versions = await this.http(new URL(`${namespace}/${type}/versions`, base), { headers })
    if (versions.status === 404) throw new TerraformError('Failed to query available provider packages', `provider registry ${host} does not have a provider named ${source}`)
    if (versions.status === 401 || versions.status === 403) throw new TerraformError('Failed to query available provider packages', `host ${host} rejected the given authentication credentials`)
    if (versions.status !== 200) throw new TerraformError('Failed to query available provider packages', `could not query provider registry for ${source}: ${versions.status}`)
    const list = (await versions.json()) as { versions: Array<{ version: string }>; warnings?: string[] }
    const listed = list.versions.map(({ version }) => {
      const parsed = parseVersion(version)
      if (!parsed) throw new TerraformError('Failed to query available provider packages', `registry response includes invalid version string "${version}"`)
      return parsed
    })
    const chosen = listed.filter((version) => meets(version, constraint)).sort(compare).pop()
    if (!chosen) throw new TerraformError('Failed to query available provider packages', `no available releases match the given constraints ${constraint ?? ''}`)
    const version = canonical(chosen)
    const [os, arch] = platform.split('_') as [string, string]
    const downloadUrl = new URL(`${namespace}/${type}/${version}/download/${os}/${arch}`, base)
    const response = await this.http(downloadUrl, { headers })
    if (response.status === 404) throw new TerraformError('Incompatible provider version', `Provider ${source} v${version} does not have a package available for your current platform, ${platform}.`)
    if (response.status !== 200) throw new TerraformError('Failed to install provider', `could not query provider registry: ${response.status}`)
    const meta = (await response.json()) as ProviderPackageMeta
    if (meta.os !== os || meta.arch !== arch) throw new TerraformError('Failed to install provider', `registry response to request for ${platform} archive has incorrect target ${meta.os}_${meta.arch}`)
    if (!/^[0-9a-f]{64}$/.test(meta.shasum)) throw new TerraformError('Failed to install provider', 'registry response includes invalid SHA256 hash')
    const fetchFile = async (location: string, what: string) => {
      // No token on any of the three files.
      const file = await this.http(new URL(location, downloadUrl))
      if (file.status !== 200) throw new TerraformError('Failed to install provider', `failed to retrieve ${what} for provider: ${file.status}`)
      return Buffer.from(await file.arrayBuffer())
    }
    const sums = await fetchFile(meta.shasums_url, 'authentication checksums')
    const signature = await fetchFile(meta.shasums_signature_url, 'authentication signature')
    const line = sums.toString('utf8').split('\n').map((entry) => entry.trim().split(/\s+/)).find((fields) => fields[1] === meta.filename)
    if (!line) throw new TerraformError('Failed to install provider', `checksum list has no SHA-256 hash for "${meta.filename}"`)
    if (line[0] !== meta.shasum) throw new TerraformError('Failed to install provider', `checksum list has unexpected SHA-256 hash ${line[0]} (expected ${meta.shasum})`)
    const zipUrl = new URL(meta.download_url, downloadUrl)
    if ((await this.http(zipUrl, { method: 'HEAD' })).status !== 200) throw new TerraformError('Failed to install provider', 'bad response code on HEAD')
    const zip = await fetchFile(zipUrl.toString(), 'the package')
    const zh = createHash('sha256').update(zip).digest('hex')
    if (zh !== meta.shasum) throw new TerraformError('Failed to install provider', `archive has incorrect checksum zh:${zh} (expected zh:${meta.shasum})`)
    const signedBy = await verifiedBy(sums, signature, meta.signing_keys.gpg_public_keys.map((key) => key.ascii_armor))
    const dir = join(into, host, namespace, type, version, platform)
    await mkdir(dir, { recursive: true })
    const files = unzipSync(new Uint8Array(zip))
    for (const [name, content] of Object.entries(files)) {
      if (name.endsWith('/')) continue
      await mkdir(dirname(join(dir, name)), { recursive: true })
      await writeFile(join(dir, name), content, { mode: 0o755 })
    }
    if (!Object.keys(files).some((name) => new RegExp(`^terraform-provider-${type}([_.].*)?$`).test(name))) {
      throw new TerraformError('Failed to install provider', `provider binary not found: could not find executable file starting with terraform-provider-${type}`)
    }
    const zhs = sums.toString('utf8').split('\n').flatMap((entry) => (/^[0-9a-f]{64}\s/.test(entry) ? [`zh:${entry.slice(0, 64)}`] : []))
    return { version, dir, signedBy, hashes: [dirHash(files), ...zhs].sort(), warnings: list.warnings ?? [] }
  }

  /** The `modules.v1` URL: a CLI-config `host` block wins; otherwise HTTPS discovery. */
  private modulesService(host: string): Promise<URL> {
    return this.service(host, 'modules.v1')
  }

  /** A discovered service's base URL: a CLI-config `host` block wins; otherwise HTTPS discovery. */
  private async service(host: string, id: 'modules.v1' | 'providers.v1'): Promise<URL> {
    const known = this.discovered.get(`${host} ${id}`)
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
    const value = services[id]
    if (typeof value !== 'string') throw new TerraformError('Failed to discover', `host ${host} does not provide a ${id === 'modules.v1' ? 'modules' : 'providers'} service`)
    const url = new URL(value, discoveryUrl)
    // Terraform appends the slash for modules.v1 only; a providers.v1 without one loses its last segment.
    if (id === 'modules.v1' && !url.pathname.endsWith('/')) url.pathname += '/'
    this.discovered.set(`${host} ${id}`, url)
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

export interface InstalledProvider {
  version: string
  dir: string
  /** The primary key id of the key whose signature verified. */
  signedBy: string
  /** What `terraform init` writes to .terraform.lock.hcl: the unpacked package's `h1:`, and a `zh:` per SHA256SUMS line. */
  hashes: string[]
  /** The registry's `warnings` for the provider, which Terraform prints as "Additional provider information from registry". */
  warnings: string[]
}

interface ProviderPackageMeta {
  os: string
  arch: string
  filename: string
  download_url: string
  shasums_url: string
  shasums_signature_url: string
  shasum: string
  signing_keys: { gpg_public_keys: Array<{ ascii_armor: string }> }
}

/** The first key that verifies the detached signature of SHA256SUMS, by its primary key's id (Terraform tries each in turn). */
async function verifiedBy(sums: Buffer, signature: Buffer, keys: string[]): Promise<string> {
  const read = await openpgp.readSignature({ binarySignature: new Uint8Array(signature) }).catch((error: Error) => {
    throw new TerraformError('Failed to install provider', `error checking signature: ${error.message}`)
  })
  for (const armor of keys) {
    const key = await openpgp.readKey({ armoredKey: armor })
    const { signatures } = await openpgp.verify({ message: await openpgp.createMessage({ binary: new Uint8Array(sums) }), signature: read, verificationKeys: key })
    if (await signatures[0]!.verified.then(() => true, () => false)) return key.getKeyID().toHex().toUpperCase()
  }
  throw new TerraformError('Failed to install provider', 'authentication signature from unknown issuer')
}

/** Go's dirhash Hash1 over the unpacked files, as Terraform computes a lock file's `h1:`. */
export function dirHash(files: Record<string, Uint8Array>): string {
  const summary = Object.keys(files)
    .filter((name) => !name.endsWith('/'))
    .sort()
    .map((name) => `${createHash('sha256').update(files[name]!).digest('hex')}  ${name}\n`)
    .join('')
  return `h1:${createHash('sha256').update(summary).digest('base64')}`
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

/** Terraform pointed at a Homeport for the public registries' own names (registry.terraform.io, registry.opentofu.org), as the air-gapped configuration does. */
export function publicMirrorClient(homeport: { url: string; adminToken: string }): TerraformClient {
  const hosts = Object.entries(PUBLIC_MIRROR_PREFIXES)
  return new TerraformClient({
    hosts: Object.fromEntries(hosts.map(([host, prefix]) => [host, { 'modules.v1': `${homeport.url}${prefix}/modules/`, 'providers.v1': `${homeport.url}${prefix}/providers/` }])),
    credentials: Object.fromEntries(hosts.map(([host]) => [host, homeport.adminToken]))
  })
}
