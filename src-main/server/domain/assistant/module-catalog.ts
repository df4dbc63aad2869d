import { PUBLIC_REGISTRY_HOSTS } from '../../../shared/terraform-config.js'
import type { RegistryName, VersionRecord } from '../../store/records.js'
import { BY_ORGANIZATION, type Store } from '../../store/port.js'
import type { Caller } from '../core/access.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import type { DocsCache } from '../archives/docs-cache.js'
import type { ModuleDocs } from '../archives/module-docs.js'
import { type ModuleView, latestOf, published } from '../modules/module-rules.js'
import type { RegistryService } from '../modules/protocol-reads.js'
import { offered } from '../modules/versions/lifecycle.js'
import type { Gate } from '../gate/gate.js'
import { publicPackage } from '../gate/packages.js'
import { Lru } from '../../../shared/lru.js'
import { docsSearchText, rank, searchText, type DocsSearchText, type Ranked } from './module-search.js'

/** A module an assistant may read: where it is, and the versions the caller is offered, newest first. */
export interface CatalogEntry {
  view: ModuleView
  /** The published versions the caller is offered (a revoked one only to its existing users), newest first. */
  versions: VersionRecord[]
  /** The one the registry calls latest: the newest stable version, or the newest prerelease when none is stable. */
  latest: VersionRecord
  /** Its source address without the hostname: `namespace/name/provider`. */
  address: string
  /** The hostname Terraform sources name it by: this registry's for a private module, the public registry's for a mirrored one. */
  hostname: string
}

/** A module as an assistant names it: `namespace/name/provider`, with the registry's hostname in front or not. */
export interface ModuleReference {
  namespace: string
  name: string
  provider: string
  /** Named by the hostname, when one was given: this registry's is private, a public registry's is public. */
  registry?: RegistryName
  /** A submodule or example, after `//`. */
  part: string
}

export interface CatalogFilter {
  organization?: string
  registry?: RegistryName
  provider?: string
}

/**
 * The search texts of every module a search reads, by archive: a search reads each module's, and
 * reading them from the documentation cost a registry of 10,000 modules nearly two seconds a
 * search. Their words alone take a few kilobytes a module (docsSearchText).
 */
const SEARCH_TEXT_BYTES = 64 * 1024 * 1024

/** A version's documentation as searched: its description, shown with each hit, and its words. */
interface Searchable {
  description: string
  text: DocsSearchText
}

/**
 * The modules a caller reads, private and mirrored from the public registry, for the assistant's
 * tools: the same organizations and versions the registry protocol offers that caller (shared
 * modules in the self-hosted edition; a revoked version only to its existing users). A search
 * goes through every module the caller reads (a registry holds thousands, not millions), each by
 * the words of its documentation kept in memory: its first, after a start, reads them all.
 */
export class ModuleCatalog {
  private readonly searchables = new Lru<string, Searchable>(SEARCH_TEXT_BYTES)

  constructor(
    private readonly store: Store,
    private readonly registry: RegistryService,
    private readonly docs: DocsCache,
    private readonly registryHostname: string,
    private readonly gate: Gate
  ) {}

  /** Every module the caller reads with at least one version it is offered. */
  async entries(caller: Caller, filter: CatalogFilter = {}): Promise<CatalogEntry[]> {
    return (await this.offeredVersions(caller, filter)).flatMap(({ entry }) => (entry ? [entry] : []))
  }

  /** Every module the caller reads, with its entry when it offers the caller a version. */
  private async offeredVersions(caller: Caller, filter: CatalogFilter): Promise<Array<{ view: ModuleView; address: string; entry?: CatalogEntry }>> {
    const found: Array<{ view: ModuleView; address: string; entry?: CatalogEntry }> = []
    for (const org of await this.registry.readableOrganizations(caller)) {
      if (filter.organization !== undefined && org.name !== filter.organization) continue
      // Mirrored public modules offer what the gate lets through (the policies read once per organization).
      const policies = await this.gate.policies(org.id)
      for (const module of await this.store.modules.listBy(BY_ORGANIZATION, org.id)) {
        if (filter.registry !== undefined && module.registryName !== filter.registry) continue
        if (filter.provider !== undefined && module.provider !== filter.provider) continue
        let versions = offered(caller, published(module))
        if (module.registryName === 'public' && policies.length > 0) {
          // Curated public modules are one set for both public registries (domain/upstream/public-mirrors.ts).
          const target = { ...publicPackage('module', PUBLIC_REGISTRY_HOSTS[0]!, module.namespace ?? '', module.name, module.provider), aliases: PUBLIC_REGISTRY_HOSTS.slice(1) }
          versions = (await this.gate.offered({ caller, organizationId: org.id }, target, versions, (version) => version.version, undefined, policies)).offered
        }
        const view = { org, module }
        const namespace = module.registryName === 'private' ? org.name : (module.namespace ?? '')
        const address = `${namespace}/${module.name}/${module.provider}`
        const hostname = module.registryName === 'private' ? this.registryHostname : PUBLIC_REGISTRY_HOSTS[0]!
        found.push({ view, address, ...(versions.length > 0 ? { entry: { view, versions, latest: latestOf(versions)!, address, hostname } } : {}) })
      }
    }
    return found.sort((a, b) => a.address.localeCompare(b.address) || a.view.org.name.localeCompare(b.view.org.name))
  }

  /**
   * The modules the caller reads that hold every word of `query`, best first (module-search.ts), each with
   * its latest version's description and the fields a word was found in: the assistant's search_modules
   * and the GUI's search.
   */
  async search(caller: Caller, query: string, filter: CatalogFilter = {}): Promise<Array<Ranked<{ entry: CatalogEntry; description: string }>>> {
    return this.ranked(await this.entries(caller, filter), query)
  }

  /**
   * The GUI's search of modules, in one pass over the caller's: those that hold every word of `query`,
   * best first, as `search`; and the public modules its organizations curate that offer no version yet
   * (none mirrored, or every one held back by the gate), which have no documentation to rank and are
   * found by their address, as the module list lists them.
   */
  async searchWithCurated(caller: Caller, query: string): Promise<{ ranked: Array<Ranked<{ entry: CatalogEntry; description: string }>>; unversioned: ModuleView[] }> {
    const all = await this.offeredVersions(caller, {})
    const unversioned = all.flatMap(({ view, entry }) => (entry || view.module.registryName !== 'public' ? [] : [view]))
    return { ranked: await this.ranked(all.flatMap(({ entry }) => (entry ? [entry] : [])), query), unversioned }
  }

  /** `entries` that hold every word of `query`, best first (module-search.ts), each with its latest version's description. */
  private async ranked(entries: CatalogEntry[], query: string): Promise<Array<Ranked<{ entry: CatalogEntry; description: string }>>> {
    const texts = []
    for (const entry of entries) {
      const [namespace = '', name = '', provider = ''] = entry.address.split('/')
      const { description, text } = await this.searchable(entry.latest)
      texts.push({ item: { entry, description }, text: searchText({ namespace, name, provider }, text) })
    }
    // Entries come in address order, which ties keep (the sort is stable).
    return rank(texts, query, () => 0)
  }

  /** A version's documentation as searched, kept by its archive's hash (the same bytes, the same documentation). */
  private async searchable(version: VersionRecord): Promise<Searchable> {
    const sha256 = version.archive?.sha256
    const kept = sha256 === undefined ? undefined : this.searchables.get(sha256)
    if (kept) return kept
    const docs = await this.documentation(version)
    const searchable = { description: docs.description, text: docsSearchText(docs) }
    if (sha256 !== undefined) this.searchables.set(sha256, searchable, weightOf(searchable))
    return searchable
  }

  /** The module a reference names, among those the caller reads; a private one first when both registries have it. */
  async find(caller: Caller, reference: ModuleReference): Promise<CatalogEntry> {
    const address = `${reference.namespace}/${reference.name}/${reference.provider}`
    const matches = (await this.entries(caller, { registry: reference.registry })).filter((entry) => entry.address.toLowerCase() === address.toLowerCase())
    const found = matches.find((entry) => entry.view.module.registryName === 'private') ?? matches[0]
    if (!found) throw new NotFoundError(`No module ${address} with a published version you may read here`, false)
    return found
  }

  /** A version's documentation (inputs, outputs, parts, README), as ingest extracted it. */
  documentation(version: VersionRecord): Promise<ModuleDocs> {
    return this.docs.get(version.archive?.sha256)
  }

  /**
   * `namespace/name/provider`, optionally after a hostname and with a `//part`: this registry's
   * hostname names a private module, a public registry's a mirrored one; anything else is refused.
   */
  parse(text: string, attribute = 'module'): ModuleReference {
    const [address = '', part = ''] = text.trim().split('//')
    const segments = address.split('/').filter((segment) => segment !== '')
    const named = segments.length === 4 ? segments.shift()!.toLowerCase() : undefined
    if (segments.length !== 3 || segments.some((segment) => !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(segment))) {
      throw new InvalidInputError(`"${text}" is not a module address: give namespace/name/provider (like acme/vpc/aws), optionally after the registry's hostname.`, attribute)
    }
    const registry = named === undefined ? undefined : registryOfHost(named, this.registryHostname, attribute)
    const [namespace, name, provider] = segments as [string, string, string]
    return { namespace, name, provider, registry, part: part.replace(/^\/+|\/+$/g, '') }
  }
}

/** Which registry a source's hostname names: this one's is private, a public registry's is mirrored here; any other is refused. */
export function registryOfHost(host: string, registryHostname: string, attribute: string): RegistryName {
  if (host === registryHostname.toLowerCase()) return 'private'
  if (PUBLIC_REGISTRY_HOSTS.includes(host)) return 'public'
  throw new InvalidInputError(`${host} is neither this registry (${registryHostname}) nor a public registry it mirrors.`, attribute)
}

/** About the bytes a searchable holds: its strings' characters, two bytes each at most. */
function weightOf({ description, text }: Searchable): number {
  return 2 * (description.length + text.description.length + text.inputs.length + text.outputs.length + text.resources.length + text.readme.length)
}
