import { posix } from 'node:path'
import { PUBLIC_REGISTRY_HOSTS } from '../../../shared/terraform-config.js'
import { inspect, parseMessage, TERRAFORM_FILE, type Config, type HclParse } from '../ingest/terraform-docs.js'

/**
 * Reading a Terraform configuration the way `terraform init` does, for bundles: the module calls and
 * provider requirements of one folder of a package (a configuration, or a module archive), module
 * and provider addresses as Terraform parses them, and the dependency lock file.
 */

/** Terraform's default registry: a source or provider address without a hostname names it. */
export const DEFAULT_REGISTRY = PUBLIC_REGISTRY_HOSTS[0]!

export interface ModuleCall {
  name: string
  source: string
  /** The `version` constraint; empty when the call has none. */
  version: string
}

export interface ProviderAddress {
  hostname: string
  namespace: string
  type: string
}

export interface ProviderNeed extends ProviderAddress {
  /** The version constraints written for it (in `required_providers` or a `provider` block), each as written. */
  constraints: string[]
}

export interface FolderRequirements {
  calls: ModuleCall[]
  providers: ProviderNeed[]
  /** Files that could not be parsed: Terraform would refuse them, and so does the bundle. */
  errors: string[]
}

/** A module source as Terraform's installer classifies it. */
export type ModuleSource =
  | { kind: 'local'; path: string }
  | { kind: 'registry'; hostname: string; namespace: string; name: string; provider: string; subdir: string }
  | { kind: 'other'; source: string }

const NAME = /^[0-9A-Za-z](?:[0-9A-Za-z_-]{0,62}[0-9A-Za-z])?$/
const HOST = /^[a-z0-9.-]+(?::\d+)?$/i

/**
 * Terraform's reading of a module source (its addrs.ParseModuleSource): `./` or `../` is a local path;
 * `[hostname/]namespace/name/provider[//subdir]` a registry module; anything else (git::, github.com/…,
 * a URL, s3::) is fetched by go-getter from elsewhere, and not from a registry.
 */
export function parseModuleSource(source: string): ModuleSource {
  if (source.startsWith('./') || source.startsWith('../')) return { kind: 'local', path: source }
  if (source.includes('::') || /^[a-z]+:\/\//i.test(source)) return { kind: 'other', source }
  const [address, ...rest] = source.split('//')
  const subdir = rest.join('//')
  const parts = address!.split('/')
  const hasHost = parts.length === 4
  if (parts.length !== 3 && !hasHost) return { kind: 'other', source }
  const hostname = hasHost ? parts[0]!.toLowerCase() : DEFAULT_REGISTRY
  // github.com/owner/repo and bitbucket.org/… look like registry addresses, but are go-getter's shorthands.
  if ((hasHost && !HOST.test(hostname)) || /^(github\.com|bitbucket\.org)$/.test(hasHost ? hostname : parts[0]!)) return { kind: 'other', source }
  const [namespace, name, provider] = parts.slice(hasHost ? 1 : 0) as [string, string, string]
  if (![namespace, name].every((part) => NAME.test(part)) || !/^[0-9a-z]{1,64}$/.test(provider)) return { kind: 'other', source }
  return { kind: 'registry', hostname, namespace, name, provider, subdir }
}

/** Terraform's provider address: `[hostname/][namespace/]type`, hashicorp's on the public registry by default, lower-cased. */
export function parseProviderSource(source: string): ProviderAddress | undefined {
  const parts = source.toLowerCase().split('/')
  if (parts.length < 1 || parts.length > 3 || parts.some((part) => part === '')) return undefined
  const [type, namespace = 'hashicorp', hostname = DEFAULT_REGISTRY] = [...parts].reverse() as [string, string?, string?]
  return { hostname, namespace, type }
}

export function providerKey({ hostname, namespace, type }: ProviderAddress): string {
  return `${hostname}/${namespace}/${type}`
}

/** The folder a local source names, from the folder that calls it, inside the package; undefined when it leaves the package. */
export function localFolder(from: string, path: string): string | undefined {
  const joined = posix.normalize(posix.join(from || '.', path))
  if (joined === '..' || joined.startsWith('../')) return undefined
  return joined === '.' ? '' : joined.replace(/\/$/, '')
}

/** The `.tf` and `.tf.json` files directly in `folder` of a package's files (path → text). */
function folderFiles(files: Map<string, string>, folder: string): Array<[string, string]> {
  const prefix = folder ? `${folder}/` : ''
  return [...files].filter(([path]) => path.startsWith(prefix) && !path.slice(prefix.length).includes('/') && TERRAFORM_FILE.test(path)).sort(([a], [b]) => a.localeCompare(b))
}

/** Whether the package has Terraform files in `folder`. */
export function hasFolder(files: Map<string, string>, folder: string): boolean {
  return folderFiles(files, folder).length > 0
}

/** What one folder of a package calls and requires, its files parsed by `parse`. */
export async function readFolder(files: Map<string, string>, folder: string, parse: HclParse): Promise<FolderRequirements> {
  const configs: Config[] = []
  const errors: string[] = []
  for (const [path, text] of folderFiles(files, folder)) {
    try {
      configs.push(path.endsWith('.json') ? (JSON.parse(text) as Config) : await parse(path, text))
    } catch (error) {
      errors.push(`${path} does not parse: ${parseMessage(error)}`)
    }
  }
  const { dependencies, providers } = inspect(configs)
  const needs: ProviderNeed[] = []
  for (const provider of providers) {
    // terraform_data and terraform_remote_state come with Terraform itself.
    if (provider.source === 'hashicorp/terraform' || provider.source === 'terraform.io/builtin/terraform') continue
    const address = parseProviderSource(provider.source)
    if (!address) {
      errors.push(`${folder || 'the root module'} requires the provider "${provider.source}", which is not a provider address.`)
      continue
    }
    needs.push({ ...address, constraints: provider.version ? provider.version.split(', ').filter(Boolean) : [] })
  }
  return { calls: dependencies.map(({ name, source, version }) => ({ name, source, version })), providers: needs, errors }
}

export interface LockedProvider {
  version: string
  hashes: string[]
}

/** The providers a `.terraform.lock.hcl` locks, by address (`registry.terraform.io/hashicorp/aws`). */
export async function readLockFile(text: string, parse: HclParse): Promise<Map<string, LockedProvider>> {
  let parsed: Record<string, unknown>
  try {
    parsed = await parse('.terraform.lock.hcl', text)
  } catch (error) {
    throw new Error(`.terraform.lock.hcl does not parse: ${parseMessage(error)}`, { cause: error })
  }
  const locked = new Map<string, LockedProvider>()
  const blocks = (parsed.provider ?? {}) as Record<string, unknown>
  for (const [address, bodies] of Object.entries(blocks)) {
    const body = (Array.isArray(bodies) ? bodies[0] : bodies) as { version?: unknown; hashes?: unknown } | undefined
    const parsedAddress = parseProviderSource(address)
    if (!parsedAddress || typeof body?.version !== 'string') continue
    const hashes = Array.isArray(body.hashes) ? body.hashes.filter((hash): hash is string => typeof hash === 'string') : []
    locked.set(providerKey(parsedAddress), { version: body.version, hashes })
  }
  return locked
}
