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
  /** The document's length in characters, where it was read as text: what holding it costs, roughly. */
  size?: number
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

/**
 * A collection's indexes as a clean close saves them: each record's id, and the keys of every unique
 * index and group. `stamp` says what built them (Homeport's version, the schema, the index
 * functions); saved indexes with another stamp are not used.
 */
export interface IndexSnapshot {
  stamp: string
  ids: string[]
  /**
   * Each record by its place in `ids`: a start then holds one string for a record's id however many
   * keys lead to it (a module's ten versions, its organization, its archives), and reads numbers
   * rather than ids. At 1,000,000 versions the ids were most of the saved indexes.
   */
  unique: Record<string, UniqueEntries>
  groups: Record<string, GroupEntries>
}

/**
 * A unique index's keys, and the place of each one's record. In columns rather than [key, place]
 * pairs: a start parsed and indexed 100,000 keys in 30 ms rather than 70, without 100,000 small arrays.
 */
export interface UniqueEntries {
  keys: string[]
  records: number[]
}

/** A group's keys, how many records each has, and their places, each key's after the one before's. */
export interface GroupEntries {
  keys: string[]
  sizes: number[]
  records: number[]
}

/**
 * Indexes saved at the last clean close, as a start takes them: the ids at once, each index's
 * entries only when asked for (at 1,000,000 versions the version-id index alone was half the saved
 * file, and a start that makes no signed download never needs it).
 */
export interface SavedIndexes {
  readonly ids: readonly string[]
  /** A unique index's entries, read now; undefined when they cannot be (the file went or was damaged since the start). */
  unique(index: string): UniqueEntries | undefined
  group(group: string): GroupEntries | undefined
  /** Removes them from where they are kept: called before the first write, after which they would describe an older state. */
  discard(): Promise<void>
}

/**
 * What a backend may add so that a start need not read every document: the indexes saved at the
 * last clean close, used only while every document is exactly as it was then; the documents are
 * then read one at a time, when first asked for (the file store; see saved-index-file.ts). Such a
 * backend keeps its documents where they can be read again, so a start that read them all need not
 * keep them either.
 */
export interface SavedIndexBackend extends RecordBackend {
  /** The saved indexes, if they carry `stamp` and every document is as it was when they were saved. */
  savedIndexes(stamp: string): SavedIndexes | undefined
  saveIndexes(snapshot: IndexSnapshot): Promise<void>
  /** The document `name`, read now (synchronously: an index is asked for by a synchronous read). */
  readNow(name: string): StoredDocument
}

export function savesIndexes(backend: RecordBackend): backend is SavedIndexBackend {
  return 'savedIndexes' in backend
}
