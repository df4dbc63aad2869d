import { setImmediate as nextTurn } from 'node:timers/promises'
import type { ModuleRecord } from '../../store/records.js'
import { BY_ORGANIZATION, type Store } from '../../store/port.js'
import { StoreLoadError } from '../../store/errors.js'
import { NO_DOCS } from '../archives/docs-cache.js'
import type { ModuleDocs } from '../archives/module-docs.js'
import { latest } from '../modules/module-rules.js'
import { ModuleDirectory, summaryOf } from '../modules/module-directory.js'
import { docsSearchText, fieldsOf, MODULE_SCORE, nameWords, queryWords, searchText, SEARCH_FIELDS, type SearchField } from './module-search.js'
import { TermIndex, type IndexEntry } from './term-index.js'

/**
 * A module as the index holds it, what a hit names; indexed in its organization (the group a search is
 * scoped by), with its address as what ties go by (as the module list orders), its name's words as
 * the title a query may be (nameWords: then it counts most), and its words by field (SEARCH_FIELDS).
 */
interface IndexedModule {
  id: string
  organizationId: string
}

/** A module that holds every word of a query, with how it ranks (MODULE_SCORE). */
export interface IndexHit {
  moduleId: string
  organizationId: string
  score: number
  matched: SearchField[]
}

/**
 * What a module's document is made of, kept from a build's read of the records until its documentation
 * is read: a few fields, not the record (100,000 records are gigabytes on PostgreSQL).
 */
type ModuleStub = Pick<ModuleRecord, 'id' | 'organizationId' | 'registryName' | 'namespace' | 'name' | 'provider'> & { archive: string | undefined }

/** An index being filled from a build's stubs, and the modules read again meanwhile, which the build leaves as they are now. */
interface Building {
  index: TermIndex<IndexedModule>
  touched: Set<string>
}

/** How many modules a build or a catch-up reads from the store at once (on the file store, about 10 ms of a start's reading). */
const READ_PAGE = 100

/**
 * Every module's searchable words, in one in-memory index (TermIndex: docs/development/decisions.md
 * says why), so that a search costs what its words' postings cost, a few nanoseconds each, not what
 * reading the registry costs: before it, a search read every module the caller reads (a registry of
 * 10,000 modules, 190 ms).
 *
 * It holds every module, whoever may read it, with its organization: a search is scoped to the
 * caller's organizations as it runs, and the catalog then checks each hit as every face does (the
 * versions the caller is offered). A module is indexed by its latest published version's
 * documentation. It follows the store's writes record by record (RecordStore.onChange), catching
 * up before a search answers: a search sees every write this replica acknowledged before it, and
 * another replica's once its NOTIFY has arrived (within moments, as the protocol's cached answers
 * do). A start does not wait for it: it is built in the background (the 'search index build' job),
 * and a search that comes first waits for the build.
 *
 * It keeps, from the same reads, each module's summary in its organization's address order
 * (ModuleDirectory): what the module list is answered from. A build reads the records first, which
 * makes the directory, and their documentation after, which makes the index: the list answers once
 * the records are read (100,000 modules on one core: about 6 s), without waiting for the
 * documentation (about 10 s more).
 */
export class ModuleIndex {
  private index = newIndex()
  private modules = new ModuleDirectory()
  /** Modules written since the index read them. */
  private readonly staleModules = new Set<string>()
  /** Organizations written since (a private module's namespace is its organization's name). */
  private readonly staleOrganizations = new Set<string>()
  /** Everything must be read again: at start, and after writes may have gone unheard. */
  private whole = true
  private readonly organizationNames = new Map<string, string>()
  private catchingUp: Promise<void> | undefined
  /** A build's second half, its documentation being read into a new index, which replaces `index` once whole. */
  private building: Building | undefined
  private indexing: Promise<void> | undefined
  /** Why a build stops at its next page: the server is stopping (built's signal). */
  private stopped: Error | undefined

  constructor(private readonly store: Store) {
    store.modules.onChange((id) => (id === undefined ? (this.whole = true) : this.staleModules.add(id)))
    store.organizations.onChange((id) => (id === undefined ? (this.whole = true) : this.staleOrganizations.add(id)))
  }

  /** Reads what changed since the index last did (everything, the first time: the records, not yet their documentation): before every list and search. */
  private async current(): Promise<void> {
    if (this.catchingUp) await this.catchingUp
    if (!this.whole && this.staleModules.size === 0 && this.staleOrganizations.size === 0) return
    this.catchingUp ??= this.catchUp().finally(() => (this.catchingUp = undefined))
    await this.catchingUp
  }

  /**
   * Reads what changed, and waits for a build's documentation to be indexed: the start's build (the
   * 'search index build' job, whose `signal` stops a build between two pages: the server is stopping),
   * and every search.
   */
  async built(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => (this.stopped = signal.reason as Error), { once: true })
    await this.current()
    while (this.indexing) {
      await this.indexing
      await this.current()
    }
  }

  /**
   * The best `limit` modules of `organizationIds` that hold every word of `query`, each word as a word
   * of theirs or the start of one (search as you type), best first (MODULE_SCORE), ties by address; and how
   * many hold them in all. None for a query of no word.
   */
  async search(query: string, organizationIds: ReadonlySet<string>, limit = Infinity): Promise<{ hits: IndexHit[]; total: number }> {
    const words = queryWords(query)
    if (words.length === 0) return { hits: [], total: 0 }
    await this.built()
    const { hits, total } = this.index.search(words, organizationIds, limit, MODULE_SCORE)
    return { hits: hits.map(({ document, score, fields }) => ({ moduleId: document.id, organizationId: document.organizationId, score, matched: fieldsOf(fields) })), total }
  }

  /** The modules' summaries, by organization (the module list), with every write heard before the call read (current). */
  async directory(): Promise<ModuleDirectory> {
    await this.current()
    return this.modules
  }

  /** One catch-up at a time; a write heard during one is read by the next. A failed one is tried again by the next search. */
  private async catchUp(): Promise<void> {
    if (this.whole) return this.rebuild()
    const modules = new Set(this.staleModules)
    const organizations = new Set(this.staleOrganizations)
    this.staleModules.clear()
    this.staleOrganizations.clear()
    try {
      await this.reread(modules, organizations)
    } catch (error) {
      // Read again by the next catch-up: none of it is lost.
      for (const id of modules) this.staleModules.add(id)
      for (const id of organizations) this.staleOrganizations.add(id)
      throw error
    }
  }

  /** Indexes these modules again, and every module of these organizations (a private module's namespace is its organization's name). */
  private async reread(modules: Set<string>, organizations: Set<string>): Promise<void> {
    for (const id of organizations) {
      const organization = await this.store.organizations.get(id)
      // Its name is all the index holds of an organization: another change to it (its email, its settings) leaves its modules as they are.
      if (organization?.name === this.organizationNames.get(id)) continue
      if (organization) this.organizationNames.set(id, organization.name)
      else this.organizationNames.delete(id)
      try {
        for (const module of await this.store.modules.listBy(BY_ORGANIZATION, id)) modules.add(module.id)
      } catch (error) {
        if (!(error instanceof StoreLoadError)) throw error
        // A damaged record among them: the whole build reads around it (readPage), where this cannot.
        this.whole = true
        return
      }
    }
    const ids = [...modules]
    for (let start = 0; start < ids.length; start += READ_PAGE) {
      const page = ids.slice(start, start + READ_PAGE)
      const records = await this.readPage(page)
      const documents = await this.documentsOf(records.map(stubOf))
      // A build under way (searches wait for it) takes them as they are now, not as its first half read them.
      const index = this.building?.index ?? this.index
      const present = new Set(records.map((module) => module.id))
      for (const id of page) {
        this.building?.touched.add(id)
        index.discard(id)
        // One still there is replaced where it stands in the list's order (put).
        if (!present.has(id)) this.modules.drop(id)
      }
      for (const document of documents) index.add(document.document.id, document)
      for (const module of records) this.modules.put(summaryOf(module, this.namespaceOf(module)))
    }
  }

  /**
   * Reads every organization and module record into a new directory, which replaces the old one at
   * once, then (in the background: indexing) their documentation into a new index, which replaces
   * the old one once whole.
   */
  private async rebuild(): Promise<void> {
    this.whole = false
    this.staleModules.clear()
    this.staleOrganizations.clear()
    let stubs: ModuleStub[]
    try {
      ;({ modules: this.modules, stubs } = await this.readRecords())
    } catch (error) {
      this.whole = true
      throw error
    }
    const building: Building = { index: newIndex(), touched: new Set() }
    this.building = building
    const indexing = this.indexDocumentation(stubs, building).then(
      () => {
        if (this.building !== building) return
        building.index.settle()
        this.index = building.index
        this.building = undefined
      },
      (error: unknown) => {
        // Read again, whole, by the next catch-up.
        if (this.building === building) {
          this.building = undefined
          this.whole = true
        }
        throw error
      }
    )
    const tracked: Promise<void> = indexing.finally(() => {
      if (this.indexing === tracked) this.indexing = undefined
    })
    this.indexing = tracked
    // Its failure is the searches' to see (built); a build nobody waits for must not end the process.
    tracked.catch(() => undefined)
  }

  /** Every organization's name, and every module's summary (the directory) and what its document is made of. */
  private async readRecords(): Promise<{ modules: ModuleDirectory; stubs: ModuleStub[] }> {
    const modules = new ModuleDirectory()
    const stubs: ModuleStub[] = []
    this.organizationNames.clear()
    for (const organization of await this.store.organizations.all()) this.organizationNames.set(organization.id, organization.name)
    const ids = await this.store.modules.ids()
    for (let start = 0; start < ids.length; start += READ_PAGE) {
      // Requests are answered between pages: the build reads a registry's every module after a start.
      await nextTurn()
      if (this.stopped) throw this.stopped
      for (const module of await this.readPage(ids.slice(start, start + READ_PAGE))) {
        modules.put(summaryOf(module, this.namespaceOf(module)))
        stubs.push(stubOf(module))
      }
    }
    return { modules, stubs }
  }

  /** The modules' documents into `building`, their documentation read a page at a time; a module read again meanwhile is left as that read left it. */
  private async indexDocumentation(stubs: ModuleStub[], building: Building): Promise<void> {
    for (let start = 0; start < stubs.length && this.building === building; start += READ_PAGE) {
      await nextTurn()
      if (this.stopped) throw this.stopped
      const page = stubs.slice(start, start + READ_PAGE).filter((stub) => !building.touched.has(stub.id))
      for (const document of await this.documentsOf(page)) {
        if (!building.touched.has(document.document.id)) building.index.add(document.document.id, document)
      }
    }
  }

  /**
   * The modules of a page that exist, read without being kept (the file store's start on saved indexes
   * keeps only what requests ask for); a damaged record is left out of the index, and logged, as it is
   * refused wherever it is read, rather than failing every search.
   */
  private async readPage(ids: string[]): Promise<ModuleRecord[]> {
    const present = (records: Array<ModuleRecord | undefined>) => records.flatMap((record) => (record ? [record] : []))
    try {
      return present(await this.store.modules.scanMany(ids))
    } catch (error) {
      if (!(error instanceof StoreLoadError)) throw error
    }
    const records: ModuleRecord[] = []
    for (const id of ids) {
      try {
        records.push(...present(await this.store.modules.scanMany([id])))
      } catch (error) {
        if (!(error instanceof StoreLoadError)) throw error
        console.error(`homeport: the search index leaves out a module whose record cannot be read: ${error.message}`)
      }
    }
    return records
  }

  /** The modules' documents, their documentation read in one go (one query on PostgreSQL). */
  private async documentsOf(modules: ModuleStub[]): Promise<Array<IndexEntry<IndexedModule>>> {
    const read = await this.store.archives.readManyDocs<ModuleDocs>(modules.flatMap((module) => (module.archive === undefined ? [] : [module.archive])))
    let next = 0
    return modules.map((module) => this.documentOf(module, module.archive === undefined ? undefined : read[next++]))
  }

  /** A module's document; its documentation may be the SyntaxError of a file that is not JSON: it is then found by its address alone, logged. */
  private documentOf(module: ModuleStub, docs: ModuleDocs | undefined | SyntaxError): IndexEntry<IndexedModule> {
    const namespace = this.namespaceOf(module)
    if (docs instanceof SyntaxError) {
      console.error(`homeport: the search index finds ${module.name}/${module.provider} by its address alone: its documentation (${module.archive ?? ''}) cannot be read: ${docs.message}`)
    }
    const text = searchText({ namespace, name: module.name, provider: module.provider }, docsSearchText(docs === undefined || docs instanceof SyntaxError ? NO_DOCS : docs))
    const address = `${namespace}/${module.name}/${module.provider}`
    return {
      document: { id: module.id, organizationId: module.organizationId },
      group: module.organizationId,
      order: address,
      title: nameWords(module.name),
      fields: SEARCH_FIELDS.map((field) => text[field])
    }
  }

  /** The namespace a module is addressed by (namespaceOf, with the organization's name as last read). */
  private namespaceOf(module: Pick<ModuleRecord, 'registryName' | 'organizationId' | 'namespace'>): string {
    return module.registryName === 'private' ? (this.organizationNames.get(module.organizationId) ?? '') : (module.namespace ?? '')
  }
}

function stubOf(module: ModuleRecord): ModuleStub {
  const { id, organizationId, registryName, namespace, name, provider } = module
  return { id, organizationId, registryName, namespace, name, provider, archive: latest(module)?.archive?.sha256 }
}

function newIndex(): TermIndex<IndexedModule> {
  return new TermIndex<IndexedModule>(SEARCH_FIELDS.length)
}
