import type { Adapter } from 'lowdb'

/** The persisted form of a record: it says which schema it was written with. */
export interface RecordFile {
  schemaVersion: number
  record: Record<string, unknown>
}

/** One stored document as a load reads it: its content, or why it could not be read. */
export interface StoredDocument {
  name: string
  data?: RecordFile
  failure?: Error
}

/**
 * Where a Collection keeps its records, one document per record, named `<id>.json`. The
 * collection does the rest (indexes, the write queue, migrations, checks), so the file store and
 * the memory store share all of it.
 */
export interface RecordBackend {
  /** Every stored document, in name order, after clearing what an interrupted write left (when it may). */
  readAll(): AsyncIterable<StoredDocument> | Iterable<StoredDocument>
  /** The document `name`, to read and write. */
  document(name: string): Adapter<RecordFile>
  remove(name: string): Promise<void>
  /** How to name the document to a person (its path), in errors. */
  describe(name: string): string
}
