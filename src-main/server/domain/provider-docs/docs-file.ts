import type { ProviderDocsRecord } from '../../store/records.js'
import { InvalidInputError } from '../core/errors.js'
import { DOC_CATEGORIES, MAX_DOC_BYTES, type DocInput } from './docs-tree.js'

/**
 * A provider version's docs as one JSON file (a bundle's `docs.json`): where they came from, and
 * each doc's outline with its markdown. Written from what Homeport keeps, read back by an import,
 * which checks every field before it keeps anything.
 */
export interface DocsFile {
  source: ProviderDocsRecord['source']
  docs: DocInput[]
}

/** The most a docs file may hold: the registry's 2,000 docs of 500 KB, with room for their outlines. */
export const MAX_DOCS_FILE_BYTES = 2000 * MAX_DOC_BYTES + 16 * 1024 * 1024

export function docsFileOf(record: ProviderDocsRecord, texts: readonly string[]): Buffer {
  const docs = record.docs.map(({ id: _id, content: _content, ...outline }, index) => ({ ...outline, content: texts[index]! }))
  return Buffer.from(`${JSON.stringify({ source: record.source, docs } satisfies DocsFile)}\n`)
}

/** A docs file read back, or why it cannot be: a field of the wrong kind, a category the registry has not, a doc too large. */
export function readDocsFile(bytes: Buffer, what: string): DocsFile {
  const refuse = (reason: string) => new InvalidInputError(`${what}'s docs ${reason}.`, 'docs')
  if (bytes.length > MAX_DOCS_FILE_BYTES) throw refuse('are larger than the registry allows')
  let value: Partial<DocsFile> | null
  try {
    value = JSON.parse(bytes.toString('utf8')) as Partial<DocsFile> | null
  } catch {
    throw refuse('are not JSON')
  }
  if (!value || (value.source !== 'upstream' && value.source !== 'archive') || !Array.isArray(value.docs)) throw refuse('lack their source or list')
  const text = (field: unknown, max = 512) => typeof field === 'string' && field.length <= max
  for (const doc of value.docs) {
    const fine =
      doc &&
      DOC_CATEGORIES.includes(doc.category) &&
      [doc.path, doc.slug, doc.title, doc.language].every((field) => text(field)) &&
      doc.slug !== '' &&
      (doc.subcategory === null || text(doc.subcategory)) &&
      text(doc.description, 1024) &&
      typeof doc.truncated === 'boolean' &&
      typeof doc.content === 'string' &&
      Buffer.byteLength(doc.content, 'utf8') <= MAX_DOC_BYTES
    if (!fine) throw refuse(`hold an entry that is not a doc the registry would serve (${JSON.stringify(doc?.path ?? null)})`)
  }
  if (value.docs.length > 2000) throw refuse('hold more than 2000 docs')
  return value as DocsFile
}
