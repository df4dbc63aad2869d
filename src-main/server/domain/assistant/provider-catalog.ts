import type { VersionDeprecation } from '../../store/records.js'
import { BY_ORGANIZATION, type Store } from '../../store/port.js'
import type { PublicMirrors } from '../upstream/public-mirrors.js'
import type { Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import { isPublished } from '../providers/providers.js'
import { registryOfHost } from './module-catalog.js'
import { latestOf, newestFirst } from '../core/newest-first.js'

/** A provider an assistant may name in `required_providers`: a private one, or a public one mirrored here. */
export interface ProviderEntry {
  /** `namespace/type`. */
  address: string
  hostname: string
  registry: 'private' | 'mirror'
  /** The organization that publishes a private provider. */
  organization: string | null
  /** Newest first: the versions Terraform is offered, with the platforms each has here. */
  versions: ProviderEntryVersion[]
  /** The newest stable version (Terraform installs a prerelease only when a constraint names it), or the newest. */
  latest: ProviderEntryVersion
}

export interface ProviderEntryVersion {
  version: string
  protocols: string[]
  platforms: string[]
  deprecation: VersionDeprecation | null
}

/**
 * The providers a caller may install from Homeport: the private providers of its organizations
 * (the versions whose SHA256SUMS, signature and a zip are in, as providers.v1 offers them) and the
 * public providers mirrored here (what is here, whatever the upstream has).
 */
export class ProviderCatalog {
  constructor(
    private readonly store: Store,
    private readonly mirrors: PublicMirrors,
    private readonly registryHostname: string
  ) {}

  async entries(caller: Caller): Promise<ProviderEntry[]> {
    const found: ProviderEntry[] = []
    for (const org of await this.store.organizations.all()) {
      if (!authorize(caller, 'read provider', org)) continue
      for (const provider of await this.store.providers.listBy(BY_ORGANIZATION, org.id)) {
        if (provider.registryName !== 'private') continue
        const versions = provider.versions.filter(isPublished).map((version) => ({
          version: version.version,
          protocols: version.protocols,
          platforms: version.platforms.filter((platform) => platform.binary).map((platform) => `${platform.os}_${platform.arch}`),
          deprecation: version.deprecation ?? null
        }))
        if (versions.length > 0) found.push(entryOf({ address: `${org.name}/${provider.name}`, hostname: this.registryHostname, registry: 'private', organization: org.name }, versions))
      }
    }
    for (const { record: mirrored, publicName } of await this.mirrors.providers(caller)) {
      const versions = mirrored.versions
        .map((version) => ({ version: version.version, protocols: version.protocols, platforms: version.platforms.map((platform) => `${platform.os}_${platform.arch}`), deprecation: null }))
        .filter((version) => version.platforms.length > 0)
      if (versions.length > 0) found.push(entryOf({ address: `${mirrored.namespace}/${mirrored.type}`, hostname: publicName, registry: 'mirror', organization: null }, versions))
    }
    return found.sort((a, b) => a.address.localeCompare(b.address) || a.registry.localeCompare(b.registry))
  }

  /** The provider `namespace/type` names (after a hostname or not), among those the caller may install; a private one first. */
  async find(caller: Caller, text: string): Promise<ProviderEntry> {
    const segments = text.trim().toLowerCase().split('/').filter((segment) => segment !== '')
    const host = segments.length === 3 ? segments.shift() : undefined
    if (segments.length !== 2) throw new InvalidInputError(`"${text}" is not a provider address: give namespace/type (like acme/widget), optionally after the registry's hostname.`, 'provider')
    const registry = host === undefined ? undefined : registryOfHost(host, this.registryHostname, 'provider') === 'private' ? 'private' : 'mirror'
    const address = segments.join('/')
    // Each public registry's mirror keeps its own copy: a hostname picks that registry's.
    const named = (entry: ProviderEntry) => registry === undefined || (entry.registry === registry && (registry === 'private' || entry.hostname === host))
    const matches = (await this.entries(caller)).filter((entry) => entry.address.toLowerCase() === address && named(entry))
    const found = matches.find((entry) => entry.registry === 'private') ?? matches[0]
    if (!found) throw new NotFoundError(`No provider ${address} you may install is here`, false)
    return found
  }
}

/** An entry with its versions newest first, and its latest. */
function entryOf(where: Omit<ProviderEntry, 'versions' | 'latest'>, versions: ProviderEntryVersion[]): ProviderEntry {
  const sorted = newestFirst(versions, (version) => version.version)
  return { ...where, versions: sorted, latest: latestOf(sorted)! }
}
