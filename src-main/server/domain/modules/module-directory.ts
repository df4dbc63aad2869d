import type { ModuleRecord, RegistryName } from '../../store/records.js'
import { latest } from './module-rules.js'
import { lowerBound } from '../core/lower-bound.js'

/** What the module list needs of a module: its address, and its latest published version's date and description. */
export interface ModuleSummary {
  id: string
  organizationId: string
  registryName: RegistryName
  /** Its organization's name for a private module. */
  namespace: string
  name: string
  provider: string
  /** The latest published version's, in ms since 1970; 0 for a module with none (listed last by date). */
  publishedAt: number
  /** What a list's `q` looks in, each lowercased: the name, the namespace, the provider and the latest version's description. */
  searched: readonly string[]
}

/** A list of an organization's modules, as ModuleDirectory.list answers it: which match, in order, and the facets. */
export interface DirectoryListing {
  /** The modules that match, in the order asked for. */
  ids: string[]
  /** Every provider among the modules that match all but the provider filter, with how many there are; by name. */
  providers: Array<{ provider: string; count: number }>
}

export interface DirectoryFilter {
  /** Lowercased. */
  q?: string
  registryName?: string
  provider?: string
  /** The namespace. */
  organizationName?: string
}

export function summaryOf(module: ModuleRecord, namespace: string): ModuleSummary {
  const newest = latest(module)
  return {
    id: module.id,
    organizationId: module.organizationId,
    registryName: module.registryName,
    namespace,
    name: module.name,
    provider: module.provider,
    publishedAt: (newest?.publishedAt && Date.parse(newest.publishedAt)) || 0,
    searched: [module.name, namespace, module.provider, newest?.description ?? ''].map((field) => field.toLowerCase())
  }
}

/** Modules in address order: namespace, name, provider (as people read them, `localeCompare`), then id for the one tie a store allows. */
export function compareAddress(a: ModuleSummary, b: ModuleSummary): number {
  return a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.provider.localeCompare(b.provider) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/**
 * Every module's summary, by organization, each organization's kept in address order: what the module
 * list (HCP's registry-modules, the GUI's organization page) is answered from, so that a list costs
 * what its organization's summaries cost to filter, not what reading its records costs (100,000
 * modules on PostgreSQL: a query of 100,000 records, 5 s, and 3 GB to parse them).
 *
 * A change appends and marks the organization unsorted; the next read sorts it again, which for a few
 * changes costs a merge (Array.prototype.sort finds the sorted run and merges the appended ones into
 * it) and for an organization renamed, whose private modules all move, a sort.
 */
export class ModuleDirectory {
  private readonly byId = new Map<string, ModuleSummary>()
  private readonly organizations = new Map<string, Organization>()

  /** How many modules it holds. */
  get size(): number {
    return this.byId.size
  }

  /** Adds a module's summary, or replaces what it held of it. */
  put(summary: ModuleSummary): void {
    const held = this.byId.get(summary.id)
    this.byId.set(summary.id, summary)
    if (held && held.organizationId === summary.organizationId && compareAddress(held, summary) === 0) {
      // The same place in the order: replaced where it stands.
      this.organization(held.organizationId).replace(held, summary)
      return
    }
    if (held) this.organization(held.organizationId).remove(held)
    this.organization(summary.organizationId).append(summary)
  }

  drop(id: string): void {
    const held = this.byId.get(id)
    if (!held) return
    this.byId.delete(id)
    this.organization(held.organizationId).remove(held)
  }

  /** Moves with every change to the organization's modules: a listing computed at the same generation is current. */
  generation(organizationId: string): number {
    return this.organizations.get(organizationId)?.generation ?? 0
  }

  /** The organization's modules that match `filter`, by address or by the latest version's date (the newest first; ties by address). */
  list(organizationId: string, filter: DirectoryFilter, order: 'name' | 'published'): DirectoryListing {
    const matching = this.organizations.get(organizationId)?.ordered().filter((summary) => matches(summary, filter)) ?? []
    const counts = new Map<string, number>()
    for (const { provider } of matching) counts.set(provider, (counts.get(provider) ?? 0) + 1)
    const shown = filter.provider === undefined ? matching : matching.filter((summary) => summary.provider === filter.provider)
    return {
      ids: (order === 'published' ? descending(shown, Float64Array.from(shown, (summary) => summary.publishedAt)) : shown).map((summary) => summary.id),
      providers: [...counts].map(([provider, count]) => ({ provider, count })).sort((a, b) => a.provider.localeCompare(b.provider))
    }
  }

  private organization(id: string): Organization {
    let organization = this.organizations.get(id)
    if (!organization) this.organizations.set(id, (organization = new Organization()))
    return organization
  }
}

function matches(summary: ModuleSummary, filter: DirectoryFilter): boolean {
  if (filter.registryName !== undefined && summary.registryName !== filter.registryName) return false
  if (filter.organizationName !== undefined && summary.namespace !== filter.organizationName) return false
  // HCP's q looks at the name, namespace and provider; Homeport's also at the description (of the latest version), so "kubernetes" finds eks.
  if (filter.q && !summary.searched.some((field) => field.includes(filter.q!))) return false
  return true
}

/**
 * `items` by their `keys` (one each, in the same order), the greatest first, ties in their order.
 * Each key becomes its rank among the keys, so that a rank and a position fit one number a typed
 * array sorts natively: sorting the positions with a comparator took about 50 ms for 100,000 modules,
 * this 20 ms (a few distinct counts) to 40 ms (as many dates as modules).
 */
export function descending<T>(items: readonly T[], keys: ArrayLike<number>): T[] {
  const count = items.length
  const ascending = Float64Array.from(keys).sort()
  const packed = new Float64Array(count)
  for (let position = 0; position < count; position++) {
    // Equal keys share a rank: the first place of their key among the sorted keys.
    const key = keys[position]!
    const rank = lowerBound(count, (place) => ascending[place]! < key)
    packed[position] = (count - 1 - rank) * count + position
  }
  packed.sort()
  const ordered = new Array<T>(count)
  for (let at = 0; at < count; at++) ordered[at] = items[packed[at]! % count]!
  return ordered
}

/** One organization's summaries: in address order once sorted, the removed ones let go at the same time. */
class Organization {
  generation = 0
  private summaries: ModuleSummary[] = []
  private sorted = true
  private readonly removed = new Set<ModuleSummary>()

  append(summary: ModuleSummary): void {
    this.generation++
    this.summaries.push(summary)
    this.sorted = false
  }

  replace(held: ModuleSummary, summary: ModuleSummary): void {
    this.generation++
    this.settle()
    this.summaries[this.indexOf(held)] = summary
  }

  remove(summary: ModuleSummary): void {
    this.generation++
    this.removed.add(summary)
  }

  /** Its summaries, by address: not to be changed by the caller. */
  ordered(): readonly ModuleSummary[] {
    this.settle()
    return this.summaries
  }

  private settle(): void {
    if (this.removed.size > 0) {
      this.summaries = this.summaries.filter((summary) => !this.removed.has(summary))
      this.removed.clear()
    }
    if (!this.sorted) {
      this.summaries.sort(compareAddress)
      this.sorted = true
    }
  }

  /** Where a summary stands in the sorted order (the order is total: ids break ties). */
  private indexOf(summary: ModuleSummary): number {
    return lowerBound(this.summaries.length, (place) => compareAddress(this.summaries[place]!, summary) < 0)
  }
}
