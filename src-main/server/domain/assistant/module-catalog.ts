import { PUBLIC_REGISTRY_HOSTS } from '../../../shared/terraform-config.js'
import type { ModuleRecord, OrganizationRecord, RegistryName, VersionRecord } from '../../store/records.js'
import { BY_ORGANIZATION, type Store } from '../../store/port.js'
import type { Caller } from '../core/access.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import type { DocsCache } from '../archives/docs-cache.js'
import type { ModuleDocs } from '../archives/module-docs.js'
import { type ModuleView, published } from '../modules/module-rules.js'
import { latestOf } from '../core/newest-first.js'
import type { RegistryService } from '../modules/protocol-reads.js'
import { offered } from '../modules/versions/lifecycle.js'
import type { Gate } from '../gate/gate.js'
import type { ScopedPolicy } from '../gate/decide.js'
import { publicPackage } from '../gate/packages.js'
import { queryWords, type Ranked } from '../search/module-search.js'
import type { ModuleIndex } from '../search/module-index.js'

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

/** A module a search found, with its latest version's description. */
export type SearchHit = Ranked<{ entry: CatalogEntry; description: string }>

/** A module the caller reads, with its entry when it offers the caller a version. */
interface Offer {
  view: ModuleView
  address: string
  entry?: CatalogEntry
}

/** How many of a search's hits are read from the store at once, to be checked for the caller. */
const CHECK_PAGE = 100

/** Whether a module is of the registry and provider a filter names. */
function chosen(module: ModuleRecord, filter: CatalogFilter): boolean {
  return (filter.registry === undefined || module.registryName === filter.registry) && (filter.provider === undefined || module.provider === filter.provider)
}

/**
 * The modules a caller reads, private and mirrored from the public registry, for the assistant's
 * tools: the same organizations and versions the registry protocol offers that caller (shared
 * modules in the self-hosted edition; a revoked version only to its existing users). A search asks
 * the index (module-index.ts) and checks its hits for the caller, as many as it shows.
 */
export class ModuleCatalog {
  constructor(
    private readonly store: Store,
    private readonly registry: RegistryService,
    private readonly docs: DocsCache,
    private readonly registryHostname: string,
    private readonly gate: Gate,
    private readonly index: ModuleIndex
  ) {}

  /** Every module the caller reads with at least one version it is offered. */
  async entries(caller: Caller, filter: CatalogFilter = {}): Promise<CatalogEntry[]> {
    const found: Offer[] = []
    for (const org of await this.organizations(caller, filter)) {
      const policies = await this.gate.policies([org.id])
      for (const module of await this.store.modules.listBy(BY_ORGANIZATION, org.id)) {
        if (chosen(module, filter)) found.push(await this.offerOf(caller, org, module, policies))
      }
    }
    found.sort((a, b) => a.address.localeCompare(b.address) || a.view.org.name.localeCompare(b.view.org.name))
    return found.flatMap(({ entry }) => (entry ? [entry] : []))
  }

  /** The organizations the caller reads, or the one the filter names among them. */
  private async organizations(caller: Caller, filter: CatalogFilter): Promise<OrganizationRecord[]> {
    return (await this.registry.readableOrganizations(caller)).filter((org) => filter.organization === undefined || org.name === filter.organization)
  }

  /** A module the caller reads, with its entry when it offers the caller a version (`policies`: its organization's gate policies). */
  private async offerOf(caller: Caller, org: OrganizationRecord, module: ModuleRecord, policies: ScopedPolicy[]): Promise<Offer> {
    let versions = offered(caller, published(module))
    if (module.registryName === 'public' && policies.length > 0) {
      // Mirrored public modules offer what the gate lets through; curated public modules are one set for both public registries (domain/upstream/public-mirrors.ts).
      const target = { ...publicPackage('module', PUBLIC_REGISTRY_HOSTS[0]!, module.namespace ?? '', module.name, module.provider), aliases: PUBLIC_REGISTRY_HOSTS.slice(1) }
      versions = (await this.gate.offered({ caller, organizationIds: [org.id] }, target, versions, (version) => version.version, undefined, policies)).offered
    }
    const view = { org, module }
    const namespace = module.registryName === 'private' ? org.name : (module.namespace ?? '')
    const address = `${namespace}/${module.name}/${module.provider}`
    const hostname = module.registryName === 'private' ? this.registryHostname : PUBLIC_REGISTRY_HOSTS[0]!
    return { view, address, ...(versions.length > 0 ? { entry: { view, versions, latest: latestOf(versions)!, address, hostname } } : {}) }
  }

  /**
   * The modules the caller reads that hold every word of `query` (or begin with it: search as you type),
   * best first (the index, module-index.ts), each with its latest version's description and the fields
   * a word was found in: the assistant's search_modules. An empty query lists every module, by address.
   */
  async search(caller: Caller, query: string, filter: CatalogFilter = {}): Promise<SearchHit[]> {
    if (queryWords(query).length === 0) {
      const entries = await this.entries(caller, filter)
      return Promise.all(entries.map(async (entry) => ({ item: { entry, description: await this.descriptionOf(entry.latest) }, score: 0, matched: [] })))
    }
    return (await this.found(caller, query, filter, Infinity)).ranked
  }

  /**
   * The GUI's search of modules, the first `limit` of them: those that hold every word of `query`, best
   * first, as `search`; and the public modules its organizations curate that offer no version yet (none
   * mirrored, or every one held back by the gate), found by their address as the module list lists them.
   */
  searchWithCurated(caller: Caller, query: string, limit: number): Promise<{ ranked: SearchHit[]; unversioned: ModuleView[] }> {
    return this.found(caller, query, {}, limit)
  }

  /**
   * The index's hits for `query`, each checked as every face checks it (the versions the caller is
   * offered), until `limit` pass: the index is asked for that many, and for four times more while
   * too few of those it gave passed and it holds more.
   */
  private async found(caller: Caller, query: string, filter: CatalogFilter, limit: number): Promise<{ ranked: SearchHit[]; unversioned: ModuleView[] }> {
    const organizations = new Map((await this.organizations(caller, filter)).map((org) => [org.id, org]))
    const policies = new Map<string, ScopedPolicy[]>()
    for (let asked = limit; ; asked *= 4) {
      const { hits, total } = await this.index.search(query, new Set(organizations.keys()), asked)
      const ranked: SearchHit[] = []
      const unversioned: ModuleView[] = []
      for (let start = 0; start < hits.length && ranked.length + unversioned.length < limit; start += CHECK_PAGE) {
        const page = hits.slice(start, start + CHECK_PAGE)
        const modules = await this.store.modules.getMany(page.map((hit) => hit.moduleId))
        for (const [at, hit] of page.entries()) {
          const module = modules[at]
          const org = organizations.get(hit.organizationId)
          // A module deleted, or moved, since the index read it is not found.
          if (!module || !org || module.organizationId !== org.id || !chosen(module, filter)) continue
          if (!policies.has(org.id)) policies.set(org.id, await this.gate.policies([org.id]))
          const { view, entry } = await this.offerOf(caller, org, module, policies.get(org.id)!)
          if (entry) ranked.push({ item: { entry, description: await this.descriptionOf(entry.latest) }, score: hit.score, matched: hit.matched })
          else if (module.registryName === 'public') unversioned.push(view)
          if (ranked.length + unversioned.length >= limit) break
        }
      }
      if (ranked.length + unversioned.length >= limit || total <= asked) return { ranked, unversioned }
    }
  }

  /** A version's description: kept on its record since ingest kept it there, else read from its documentation. */
  private async descriptionOf(version: VersionRecord): Promise<string> {
    return version.description ?? (await this.documentation(version)).description
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
