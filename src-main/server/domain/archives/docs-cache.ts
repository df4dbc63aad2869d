import type { Archives } from '../../store/port.js'
import { Lru } from '../../../shared/lru.js'
import type { ModuleDocs } from '../archives/module-docs.js'

const EMPTY_PART = { path: '', readme: '', empty: true, inputs: [], outputs: [], resources: [], providers: [], dependencies: [], requiredCore: [] }

/** What a version without readable documentation shows: nothing, rather than an error. */
export const NO_DOCS: ModuleDocs = { description: '', root: EMPTY_PART, submodules: [], examples: [], warnings: [] }

/**
 * The documentation of recently read archives, in memory: the protocol's version lists and
 * module details read it on every request. Least recently used entries go first.
 */
export class DocsCache {
  private readonly entries: Lru<string, ModuleDocs>

  constructor(
    private readonly archives: Archives,
    capacity = 2000
  ) {
    this.entries = new Lru(capacity)
  }

  async get(sha256: string | undefined): Promise<ModuleDocs> {
    if (!sha256) return NO_DOCS
    const cached = this.entries.get(sha256)
    if (cached) return cached
    const docs = (await this.archives.readDocs<ModuleDocs>(sha256)) ?? NO_DOCS
    this.entries.set(sha256, docs)
    return docs
  }
}
