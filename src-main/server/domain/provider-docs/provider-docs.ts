import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import type { ProviderDocRecord, ProviderDocsRecord, ProviderDocCategory } from '../../store/records.js'
import { DOC_NUMBER, DOCS_PROVIDER, DOCS_VERSION, type Store } from '../../store/port.js'
import { UniqueConstraintError } from '../../store/errors.js'
import type { ArchiveKeeper } from '../archives/archive-keeper.js'
import { now } from '../core/ids.js'
import { DOC_CATEGORIES, MAX_DOC_BYTES, type DocInput } from './docs-tree.js'
import { newestFirst } from '../core/newest-first.js'

/** A private provider's docs are kept under its id (its organization may be renamed), a mirrored one's under its address. */
export function privateDocsKey(providerId: string): string {
  return `private:${providerId}`
}

export function mirroredDocsKey(hostname: string, namespace: string, type: string): string {
  return `mirror:${hostname}/${namespace.toLowerCase()}/${type.toLowerCase()}`
}

/**
 * What a provider's docs are numbered by: its address as people name it (`private:acme/widget`,
 * `mirror:registry.terraform.io/hashicorp/null`), the same on every Homeport, where its key names
 * this Homeport's record.
 */
export function privateDocsNumbering(organization: string, name: string): string {
  return `private:${organization.toLowerCase()}/${name.toLowerCase()}`
}

export function mirroredDocsNumbering(publicName: string, namespace: string, type: string): string {
  return `mirror:${publicName}/${namespace.toLowerCase()}/${type.toLowerCase()}`
}

/**
 * A number for `text`, the same every time: the public registry's docs API names versions and docs
 * by numbers (clients such as HashiCorp's MCP server refuse other ids), and a number derived from
 * what it names stays the same across a backup, a bundle and another Homeport (a link to a doc
 * works on both). 52 bits of SHA-256: below 2^53, so JavaScript clients read it exactly.
 */
export function numberFor(text: string): string {
  const value = Number.parseInt(createHash('sha256').update(text).digest('hex').slice(0, 13), 16)
  return String(Math.max(1, value))
}

/** A doc found by its number: the version's docs it is one of. */
export interface FoundDoc {
  docs: ProviderDocsRecord
  doc: ProviderDocRecord
}

/** How a search result is ranked: the name first (exact, then its start, then anywhere), then the title, subcategory and description. */
function score(doc: ProviderDocRecord, words: readonly string[]): number {
  let total = 0
  const slug = doc.slug.toLowerCase()
  const title = doc.title.toLowerCase()
  const subcategory = (doc.subcategory ?? '').toLowerCase()
  const description = doc.description.toLowerCase()
  for (const word of words) {
    if (slug === word) total += 100
    else if (slug.startsWith(word)) total += 60
    else if (slug.includes(word)) total += 40
    else if (title.includes(word)) total += 30
    else if (subcategory.includes(word)) total += 10
    else if (description.includes(word)) total += 5
    else return 0
  }
  return total
}

/**
 * The documentation of provider versions, private and mirrored: each version's outline in the
 * store, each doc's markdown in the archive store by content (a doc that did not change between
 * versions is kept once). Callers are checked by the faces (docs-reader.ts); this is the keeping.
 */
export class ProviderDocs {
  constructor(
    private readonly store: Store,
    private readonly archives: ArchiveKeeper
  ) {}

  /**
   * Keeps `docs` as the documentation of `provider`'s `version`, in place of any it had: each doc's
   * markdown is stored (pinned until the record names it), then the outline in one write. The
   * numbers come from `numbering` (see privateDocsNumbering); should another provider's docs hold
   * one of them already (a renamed organization's name taken again), from this Homeport's key.
   */
  async keep(provider: string, version: string, source: ProviderDocsRecord['source'], docs: readonly DocInput[], numbering: string): Promise<ProviderDocsRecord> {
    try {
      return await this.keepNumbered(provider, version, source, docs, numbering)
    } catch (error) {
      if (!(error instanceof UniqueConstraintError && error.index === DOC_NUMBER) || numbering === provider) throw error
      return this.keepNumbered(provider, version, source, docs, provider)
    }
  }

  private async keepNumbered(provider: string, version: string, source: ProviderDocsRecord['source'], docs: readonly DocInput[], numbering: string): Promise<ProviderDocsRecord> {
    const key = `${provider}@${version}`
    const numbered = `${numbering}@${version}`
    const id = `pdocs-${createHash('sha256').update(key).digest('hex').slice(0, 40)}`
    const unpins: Array<() => void> = []
    const stored: ProviderDocRecord[] = []
    let replaced: ProviderDocsRecord | undefined
    try {
      for (const doc of docs) {
        const content = await this.store.archives.put(Readable.from([Buffer.from(doc.content, 'utf8')]), MAX_DOC_BYTES * 4)
        unpins.push(this.archives.pin(content.sha256))
        const { content: _text, ...outline } = doc
        stored.push({ ...outline, id: numberFor(`${numbered}|${doc.language}|${doc.path}`), content })
      }
      const record: ProviderDocsRecord = { id, key, provider, version, versionNumber: numberFor(numbered), source, createdAt: now(), docs: stored }
      replaced = await this.store.providerDocs.get(id)
      await this.store.providerDocs.upsert(
        id,
        () => record,
        (draft) => Object.assign(draft, record)
      )
      return record
    } finally {
      for (const unpin of unpins) unpin()
      await this.archives.release([...stored.map((doc) => doc.content.sha256), ...(replaced?.docs.map((doc) => doc.content.sha256) ?? [])])
    }
  }

  /** The docs of one version, if it has any. */
  ofVersion(provider: string, version: string): Promise<ProviderDocsRecord | undefined> {
    return this.store.providerDocs.findBy(DOCS_VERSION, `${provider}@${version}`)
  }

  /** Every version of `provider` with docs, newest first. */
  async versions(provider: string): Promise<ProviderDocsRecord[]> {
    const records = await this.store.providerDocs.listBy(DOCS_PROVIDER, provider)
    return newestFirst(records, (record) => record.version)
  }

  /** The keys of every provider with docs. */
  providers(): Promise<string[]> {
    return this.store.providerDocs.groupKeys(DOCS_PROVIDER)
  }

  /** A doc by its number, with the version's docs it is one of. */
  async byNumber(number: string): Promise<FoundDoc | undefined> {
    if (!/^[1-9][0-9]{0,15}$/.test(number)) return undefined
    const docs = await this.store.providerDocs.findBy(DOC_NUMBER, number)
    const doc = docs?.docs.find((candidate) => candidate.id === number)
    return docs && doc ? { docs, doc } : undefined
  }

  /** A version's docs by the number the v2 API gives it. */
  versionByNumber(number: string): Promise<ProviderDocsRecord | undefined> {
    return /^[1-9][0-9]{0,15}$/.test(number) ? this.store.providerDocs.findBy(DOC_NUMBER, `v${number}`) : Promise.resolve(undefined)
  }

  /** A doc's markdown, frontmatter included. */
  async text(doc: ProviderDocRecord): Promise<string> {
    const chunks: Buffer[] = []
    for await (const chunk of this.store.archives.read(doc.content.sha256)) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }

  /** Forgets the docs of one version of `provider`, or of all of them; their markdown goes once no other version shares it. */
  async remove(provider: string, version?: string): Promise<void> {
    const records = version === undefined ? await this.store.providerDocs.listBy(DOCS_PROVIDER, provider) : [await this.ofVersion(provider, version)]
    for (const record of records) {
      if (!record) continue
      await this.store.providerDocs.delete(record.id)
      await this.archives.release(record.docs.map((doc) => doc.content.sha256))
    }
  }
}

/** What a search of one version's docs may narrow to. */
export interface DocsQuery {
  /** Words; a resource's full name (`aws_s3_bucket`) finds its doc (`s3_bucket`) too. */
  text: string
  category?: ProviderDocCategory
  language?: string
  limit?: number
}

/**
 * The docs of one version that match every word of the query, best first: a name that is the word,
 * then one that starts with it, then the title, the subcategory, the description. The provider's
 * own prefix is taken off a word, so `aws_s3_bucket` finds `s3_bucket`.
 */
export function searchDocs(docs: ProviderDocsRecord, providerName: string, query: DocsQuery): ProviderDocRecord[] {
  const prefix = `${providerName.toLowerCase()}_`
  const words = query.text
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => (word.startsWith(prefix) && word.length > prefix.length ? word.slice(prefix.length) : word))
  const language = query.language ?? 'hcl'
  const ranked: Array<{ doc: ProviderDocRecord; score: number }> = []
  for (const doc of docs.docs) {
    if (doc.language !== language || (query.category && doc.category !== query.category)) continue
    const found = words.length === 0 ? 1 : score(doc, words)
    if (found > 0) ranked.push({ doc, score: found })
  }
  ranked.sort((a, b) => b.score - a.score || DOC_CATEGORIES.indexOf(a.doc.category) - DOC_CATEGORIES.indexOf(b.doc.category) || a.doc.slug.localeCompare(b.doc.slug))
  return ranked.slice(0, query.limit ?? ranked.length).map((entry) => entry.doc)
}

/** What a configuration names a doc's subject by: `aws_s3_bucket` for a resource or data source, `provider::time::rfc3339_parse` for a function, a guide's title. */
export function subjectOf(providerName: string, doc: Pick<ProviderDocRecord, 'category' | 'slug' | 'title'>): string {
  if (doc.category === 'functions') return `provider::${providerName}::${doc.slug}`
  if (doc.category === 'guides' || doc.category === 'overview') return doc.title
  return `${providerName}_${doc.slug}`
}
