import type { ArchiveRef } from '../../store/records.js'
import type { Store } from '../../store/port.js'
import { InvalidInputError } from '../core/errors.js'
import { DEFAULT_ARCHIVE_LIMITS, InvalidArchiveError, readModuleArchive } from '../ingest/archive-reader.js'
import { docsOfTree, MAX_DOC_BYTES, type DocInput, type DocsLayout } from './docs-tree.js'

/** The largest docs archive taken: 2,000 docs of 500 KB compress to far less. */
export const MAX_DOCS_ARCHIVE_BYTES = 64 * 1024 * 1024

/**
 * The docs in a stored `.tar.gz` of a provider repository's docs tree (or the whole repository),
 * read with the module archives' rules against hostile archives (no path out of its root, no bomb),
 * then checked as the registry checks docs (docs-tree.ts).
 */
export async function docsOfArchive(store: Store, archive: ArchiveRef, providerName: string): Promise<{ layout: DocsLayout; docs: DocInput[] }> {
  let contents
  try {
    // Read whole up to four times the registry's limit, so that a doc past the limit is refused by name (docs-tree.ts).
    contents = await readModuleArchive(store.archives.read(archive.sha256), archive.size, (path) => /\.(md|markdown)$/.test(path), { ...DEFAULT_ARCHIVE_LIMITS, maxTextFileBytes: MAX_DOC_BYTES * 4 })
  } catch (error) {
    if (error instanceof InvalidArchiveError) throw new InvalidInputError(error.message, 'docs')
    throw error
  }
  if (contents.warnings.length > 0) throw new InvalidInputError(contents.warnings[0]!, 'docs')
  return docsOfTree(contents.files, providerName)
}
