import { setImmediate as nextTurn } from 'node:timers/promises'
import { Low } from 'lowdb'
import { HOMEPORT_VERSION } from '../../../shared/version.js'
import { Lru } from '../../../shared/lru.js'
import { RecordMissingError, StoreLoadError, UniqueConstraintError, type WritesRefusedError } from '../errors.js'
import type { RecordCheck } from './record-checks.js'
import { savesIndexes, type RecordBackend, type GroupEntries, type RecordFile, type SavedIndexBackend, type SavedIndexes, type StoredDocument, type UniqueEntries } from './record-backend.js'
import { GroupIndex } from './group-index.js'
import { WriteQueue } from './write-queue.js'
import { ChangeFeed, type ChangeListener } from '../change-feed.js'
import type { Schema } from '../schema.js'
import type { RecordStore } from '../port.js'

export interface Identified {
  id: string
}

/** Derives the keys a record is found by; each key maps to at most one record. */
export type KeyFunction<T> = (record: T) => string | readonly string[] | undefined

/** Derives the groups a record belongs to (many records per key). */
export type GroupFunction<T> = (record: T) => string | readonly string[]

export interface CollectionOptions<T> {
  /** Unique indexes: a write that would make two records share a key fails. */
  unique?: Record<string, KeyFunction<T>>
  /** Non-unique indexes for listing records by a key (for example, by organization). */
  groups?: Record<string, GroupFunction<T>>
  /** The version records are written with, and migrations[n] from version n to n + 1. */
  schema: Schema
  /** What a loaded record must satisfy (see record-checks.ts). */
  check?: RecordCheck<T>
  /** Set when the data directory cannot be written: loads change no file, and writes fail with it. */
  writesRefused?: WritesRefusedError
  /** How much of the documents is held in memory where the backend reads them again: HELD_CHARACTERS unless told (tests). */
  heldCharacters?: number
}

const ID_PATTERN = /^[a-z]+-[A-Za-z0-9]+$/
/**
 * How many unread records all() reads between two turns of the event loop: about 5 ms of modules,
 * which is as long as a request waits on it while all() reads on.
 */
const READ_BATCH = 50
/**
 * How much of a collection's documents (their JSON, in characters) is held in memory where the
 * backend can read them again (the file store). The rest are read from their files when asked for,
 * and let go again: a client that read every module of a registry of 1,000,000 versions (a crawl)
 * left the server at 1.3–1.5 GB holding them all, and at about 0.5 GB now. Enough for every download
 * count of 100,000 modules (about 15 MB), which the module list by downloads reads together.
 */
export const HELD_CHARACTERS = 32 * 1024 * 1024

/**
 * A set of JSON documents, one per record (a lowdb file, or a document in memory: see
 * record-backend.ts), held in memory for reads once read (the memory backend's from the start). One
 * write costs in proportion to the record it touches, whatever the size of the collection.
 *
 * Writes are serialized and copy-on-write: an update works on a clone, the clone is written
 * atomically, and only then does it replace the record in memory. Readers therefore never see a
 * change that is not on disk, and a failed write (full disk, read-only folder) leaves both the
 * file and the memory as they were. Records are frozen once stored: what a read returns cannot
 * be changed behind the store's back.
 *
 * A start after a clean close need not read every record: the close saves the indexes, and when
 * every document is still the one they were saved with (see saved-index-file.ts), the start takes
 * the ids and reads each record when it is first asked for; all() reads what is left in batches,
 * between which requests are served. Each index is made from its saved entries when it is first
 * used, and every one before the first write: a start that answers protocol reads never makes the
 * version-id index (1,000,000 entries at 1,000,000 versions).
 */
export class Collection<T extends Identified> implements RecordStore<T> {
  /**
   * The records held in memory, the most recently used within HELD_CHARACTERS where the backend reads
   * documents again (every record otherwise), each weighed by its document's length.
   */
  private readonly records: Lru<string, Low<RecordFile>>
  /** Records stored and not held: read from the backend (a SavedIndexBackend) when asked for. */
  private readonly unread = new Set<string>()
  /**
   * The record a write (replace, remove) is changing, held while it does: its file may already be the
   * new document while the indexes still lead to the old, and readers see the old until both change.
   */
  private writing: { id: string; file: Low<RecordFile> } | undefined
  /** Whether records are let go past HELD_CHARACTERS (see the constructor). */
  private readonly bounded: boolean
  /** The backend, where it reads a document again (the file store): only then is a record ever unread. */
  private readonly rereader: SavedIndexBackend | undefined
  /** The indexes the start took, while records are read from them or indexes made from them. */
  private saved: SavedIndexes | undefined
  /** Whether writes may go ahead: after a start on saved indexes, not until every index is made (makeWritable). */
  private writable = true
  /** The revision the saved indexes describe, while they still describe it. */
  private savedAt: number | undefined
  /** The indexes made so far: after a start on saved indexes, each is made when first used (uniqueIndex, groupIndex). */
  private readonly uniqueIndexes = new Map<string, Map<string, string>>()
  private readonly groupIndexes = new Map<string, GroupIndex>()
  private readonly queue = new WriteQueue()
  private readonly changes = new ChangeFeed()
  /** Grows with every write that reached the disk: whatever was computed from an older value is stale. */
  revision = 0

  constructor(
    readonly name: string,
    private readonly backend: RecordBackend,
    private readonly options: CollectionOptions<T>
  ) {
    // Let go only where the backend reads documents again, and writes may go ahead: a record upgraded in memory and not written must stay.
    this.rereader = savesIndexes(backend) ? backend : undefined
    this.bounded = this.rereader !== undefined && !options.writesRefused
    this.records = new Lru(this.bounded ? (options.heldCharacters ?? HELD_CHARACTERS) : Infinity, { evicted: (id) => this.unread.add(id) })
    for (const index of Object.keys(options.unique ?? {})) this.uniqueIndexes.set(index, new Map())
    for (const group of Object.keys(options.groups ?? {})) this.groupIndexes.set(group, new GroupIndex())
  }

  /**
   * Takes the indexes saved at the last clean close if they still hold, or else reads every
   * record, migrating old ones; refuses documents it cannot understand. A backend that can read a
   * document again (the file store) is left to hold what the read indexed, as after a start on saved
   * indexes: a first start at 1,000,000 versions kept 930 MB of records that no request had asked for.
   */
  async load(): Promise<void> {
    const rereads = this.rereader !== undefined
    const saved = this.rereader?.savedIndexes(this.stamp())
    if (saved) return this.adopt(saved)
    for await (const document of this.backend.readAll()) {
      const { file, record, upgraded } = this.accept(document)
      // Saved upgraded only once it is known to be sound.
      if (upgraded && !this.options.writesRefused) await file.write()
      this.checkUnique(record)
      deepFreeze(record)
      // An upgrade that could not be written is held: the document would read as the older schema.
      if (rereads && !(upgraded && this.options.writesRefused)) this.unread.add(record.id)
      else this.records.set(record.id, file)
      this.index(record)
    }
  }

  /** A stored document as a record, checked, and upgraded in memory if it was written by an older schema. */
  private accept({ name, data, failure }: StoredDocument): { file: Low<RecordFile>; record: T; upgraded: boolean } {
    const path = this.backend.describe(name)
    if (failure) throw new StoreLoadError(path, failure.message)
    if (data === null || typeof data !== 'object') throw new StoreLoadError(path, 'it is not a Homeport record')
    const file = new Low<RecordFile>(this.backend.document(name), data)
    const upgraded = this.upgrade(file, path)
    const record = recordOf<T>(file)
    if (typeof record.id !== 'string' || `${record.id}.json` !== name) {
      throw new StoreLoadError(path, `the record's id does not match the file name`)
    }
    const problem = this.options.check?.(record)
    if (problem) throw new StoreLoadError(path, problem)
    return { file, record, upgraded }
  }

  /**
   * What built the indexes: saved indexes built otherwise are not used. The build's code is named by
   * this module's URL, which in a build is a file named by the hash of its content and of what it
   * imports: a key function can change with a helper it calls, and Homeport's version stays the same
   * between builds from source.
   */
  private stamp(): string {
    const functions = [...Object.entries(this.options.unique ?? {}), ...Object.entries(this.options.groups ?? {})]
    return JSON.stringify([HOMEPORT_VERSION, import.meta.url, this.options.schema.version, functions.map(([name, keysOf]) => [name, keysOf.toString()])])
  }

  /** Takes saved indexes: their ids now, each index when it is first used. */
  private adopt(saved: SavedIndexes): void {
    this.saved = saved
    this.writable = false
    this.uniqueIndexes.clear()
    this.groupIndexes.clear()
    for (const id of saved.ids) this.unread.add(id)
    this.savedAt = this.revision
  }

  /**
   * Makes an index from its saved entries, or from every record when they cannot be read (the file
   * damaged since the start, or naming a record by a place it does not hold).
   */
  private made<I>(indexes: Map<string, I>, name: string, fromSaved: () => I | undefined, fromRecords: () => I): I {
    let index = indexes.get(name)
    if (!index) indexes.set(name, (index = fromSaved() ?? fromRecords()))
    return index
  }

  private savedUnique(index: string): Map<string, string> | undefined {
    const entries = this.saved?.unique(index)
    if (!entries) return undefined
    const ids = this.saved!.ids
    const { keys, records } = entries
    const map = new Map<string, string>()
    for (let at = 0; at < keys.length; at++) {
      const id = ids[records[at]!]
      if (id === undefined) return undefined
      map.set(keys[at]!, id)
    }
    return map
  }

  private savedGroup(group: string): GroupIndex | undefined {
    const entries = this.saved?.group(group)
    if (!entries) return undefined
    const ids = this.saved!.ids
    const { keys, sizes, records } = entries
    const index = new GroupIndex()
    let next = 0
    for (let at = 0; at < keys.length; at++) {
      for (const end = next + sizes[at]!; next < end; next++) {
        const id = ids[records[next]!]
        if (id === undefined) return undefined
        index.add(keys[at]!, id)
      }
    }
    return index
  }

  /** Every record, read now (synchronously: an index is asked for by a synchronous read) and not kept, for an index its saved entries cannot give. */
  private everyRecord(): T[] {
    const records = [...this.records].map(([, file]) => recordOf<T>(file))
    for (const id of this.unread) records.push(recordOf<T>(this.readUnread(id).file))
    return records
  }

  private uniqueFromRecords(index: string): Map<string, string> {
    const keysOf = this.options.unique![index]!
    const map = new Map<string, string>()
    for (const record of this.everyRecord()) for (const key of keyList(keysOf(record))) map.set(key, record.id)
    return map
  }

  private groupFromRecords(group: string): GroupIndex {
    const groupOf = this.options.groups![group]!
    const index = new GroupIndex()
    for (const record of this.everyRecord()) for (const key of keyList(groupOf(record))) index.add(key, record.id)
    return index
  }

  /**
   * Before the first write after a start on saved indexes: every index made (a write checks and
   * changes them all), and the saved indexes removed. The write makes them describe an older state,
   * which the next start would see (the file written is a new one), but a crash must not leave them
   * to a file system whose times keep whole seconds, or a clock set back.
   */
  private async makeWritable(): Promise<void> {
    if (this.writable) return
    this.everyIndex()
    await this.saved?.discard()
    // Gone, they are saved again at the close even if this write fails and none follows.
    this.savedAt = undefined
    this.writable = true
  }

  /** Makes every index not made yet. */
  private everyIndex(): void {
    for (const index of Object.keys(this.options.unique ?? {})) this.uniqueIndex(index)
    for (const group of Object.keys(this.options.groups ?? {})) this.groupIndex(group)
  }

  /**
   * Saves the indexes for the next start (see load), with no write in flight. Called at a clean
   * close: the next start checks that no document has changed since.
   */
  saveIndexes(): Promise<void> {
    const backend = this.rereader
    if (!backend || this.options.writesRefused) return Promise.resolve()
    return this.queue.run(async () => {
      // Nothing written since they were saved (or taken): the saved ones still hold.
      if (this.savedAt === this.revision) return
      const ids = this.allIds()
      const places = new Map(ids.map((id, at) => [id, at]))
      const placeOf = (id: string) => places.get(id)!
      const unique = Object.keys(this.options.unique ?? {}).map((index): [string, UniqueEntries] => {
        const map = this.uniqueIndex(index)
        return [index, { keys: [...map.keys()], records: Array.from(map.values(), placeOf) }]
      })
      const groups = Object.keys(this.options.groups ?? {}).map((group): [string, GroupEntries] => {
        const keys: string[] = []
        const sizes: number[] = []
        const records: number[] = []
        for (const [key, members, size] of this.groupIndex(group).entries()) {
          keys.push(key)
          sizes.push(size)
          for (const id of members) records.push(placeOf(id))
        }
        return [group, { keys, sizes, records }]
      })
      await backend.saveIndexes({ stamp: this.stamp(), ids, unique: Object.fromEntries(unique), groups: Object.fromEntries(groups) })
      this.savedAt = this.revision
    })
  }

  /** Reads an unread record, and holds it. */
  private readNow(id: string): Low<RecordFile> {
    const { file, size } = this.readUnread(id)
    this.keep(id, file, size)
    return file
  }

  /** What holding a document written costs, where that is counted: its length. */
  private sizeOf(document: RecordFile): number {
    return this.bounded ? JSON.stringify(document).length : 1
  }

  /** Holds a record's document, weighed by its length, letting the least recently used go if need be (back to unread). */
  private keep(id: string, file: Low<RecordFile>, size: number): void {
    this.records.set(id, file, size)
    // One heavier than the whole budget is not held.
    if (this.records.has(id)) this.unread.delete(id)
    else this.unread.add(id)
  }

  /**
   * An unread record's document, read and checked as a full read would, and not kept, with its
   * length. Its file is the one the indexes were saved with, or made from (load checked or read it),
   * or the one a write left (which held the record while it changed both), so it is sound and current;
   * that the keys of the indexes made so far lead to it is checked all the same.
   */
  private readUnread(id: string): { file: Low<RecordFile>; size: number } {
    if (!this.rereader) throw new Error(`record ${id} is unread, and ${this.name}'s backend cannot read it`)
    const document = this.rereader.readNow(`${id}.json`)
    const { file, record, upgraded } = this.accept(document)
    let indexed = !upgraded
    for (const [index, map] of this.uniqueIndexes) indexed &&= keyList(this.options.unique![index]!(record)).every((key) => map.get(key) === id)
    if (!indexed) throw new StoreLoadError(this.backend.describe(document.name), 'it changed after the indexes were saved')
    deepFreeze(record)
    return { file, size: document.size ?? 1 }
  }

  /** The record's document, read first if it is not held, and then held unless `hold` is false (scanMany's pass over many). */
  private fileOf(id: string, hold = true): Low<RecordFile> | undefined {
    if (this.writing?.id === id) return this.writing.file
    const held = this.records.get(id)
    if (held || !this.unread.has(id)) return held
    return hold ? this.readNow(id) : this.readUnread(id).file
  }

  /** Runs a write of record `id` with its document `file` held for readers meanwhile (see `writing`). */
  private async holdingWhile(id: string, file: Low<RecordFile>, write: () => Promise<void>): Promise<void> {
    this.writing = { id, file }
    try {
      await write()
    } finally {
      this.writing = undefined
    }
  }

  private recordOrNone(file: Low<RecordFile> | undefined): T | undefined {
    return file && recordOf<T>(file)
  }

  private stored(id: string): boolean {
    return this.records.has(id) || this.unread.has(id)
  }

  private allIds(): string[] {
    return [...Array.from(this.records, ([id]) => id), ...this.unread]
  }

  /** Migrates a record of an older schema in memory; says whether it did. */
  private upgrade(file: Low<RecordFile>, path: string): boolean {
    const { schemaVersion, record } = file.data
    if (!Number.isInteger(schemaVersion) || typeof record !== 'object' || record === null) {
      throw new StoreLoadError(path, 'it is not a Homeport record')
    }
    if (schemaVersion > this.options.schema.version) {
      throw new StoreLoadError(
        path,
        `it was written by a newer Homeport (schema ${schemaVersion}, this one reads up to ${this.options.schema.version})`
      )
    }
    if (schemaVersion === this.options.schema.version) return false
    let upgraded = record
    for (let version = schemaVersion; version < this.options.schema.version; version++) {
      const migration = this.options.schema.migrations[version]
      if (!migration) throw new StoreLoadError(path, `no migration from schema ${version}`)
      upgraded = migration(upgraded)
    }
    file.data = { schemaVersion: this.options.schema.version, record: upgraded }
    return true
  }

  get size(): number {
    return this.records.size + this.unread.size
  }

  /**
   * Every record, in id order (as PostgreSQL's), what is unread read in batches between which requests
   * are served, and held as any read's (a small collection read whole at every request, the
   * organizations, is read from its files once). What was written meanwhile is read again at the end,
   * so the answer is the collection as it is then.
   */
  async all(): Promise<T[]> {
    const written = new Set<string>()
    const stop = this.changes.on((id) => (id === undefined ? undefined : written.add(id)))
    try {
      const records = new Map<string, T>(Array.from(this.records, ([id, file]) => [id, recordOf<T>(file)]))
      let read = 0
      for (const id of [...this.unread]) {
        if (++read % READ_BATCH === 0) await nextTurn()
        const file = this.fileOf(id)
        if (file) records.set(id, recordOf<T>(file))
      }
      for (const id of written) {
        const file = this.fileOf(id)
        if (file) records.set(id, recordOf<T>(file))
        else records.delete(id)
      }
      return [...records.keys()].sort().map((id) => records.get(id)!)
    } finally {
      stop()
    }
  }

  get(id: string): Promise<T | undefined> {
    return settled(() => this.peek(id))
  }

  getMany(ids: readonly string[]): Promise<Array<T | undefined>> {
    return settled(() => ids.map((id) => this.peek(id)))
  }

  /** getMany, reading what is unread without keeping it (RecordStore.scanMany). */
  scanMany(ids: readonly string[]): Promise<Array<T | undefined>> {
    return settled(() => ids.map((id) => this.recordOrNone(this.fileOf(id, false))))
  }

  private peek(id: string): T | undefined {
    return this.recordOrNone(this.fileOf(id))
  }

  /** The record whose unique index `index` holds `key`. */
  findBy(index: string, key: string): Promise<T | undefined> {
    return settled(() => {
      const id = this.uniqueIndex(index).get(key)
      return id === undefined ? undefined : this.peek(id)
    })
  }

  /** The records whose group `group` is `key`. */
  listBy(group: string, key: string): Promise<T[]> {
    return settled(() => this.groupIndex(group).ids(key).map((id) => this.peek(id) as T))
  }

  ids(): Promise<string[]> {
    return Promise.resolve(this.allIds())
  }

  groupSizes(group: string, keys: readonly string[]): Promise<Map<string, number>> {
    return settled(() => {
      const index = this.groupIndex(group)
      return new Map(keys.map((key) => [key, index.size(key)]))
    })
  }

  groupKeys(group: string): Promise<string[]> {
    return settled(() => [...this.groupIndex(group).keys()])
  }

  create(record: T): Promise<T> {
    return this.queue.run(async () => {
      if (this.options.writesRefused) throw this.options.writesRefused
      await this.insert(record)
      return record
    })
  }

  private async insert(record: T): Promise<void> {
    if (!ID_PATTERN.test(record.id)) throw new Error(`invalid record id ${record.id}`)
    await this.makeWritable()
    if (this.stored(record.id)) throw new UniqueConstraintError('id', record.id)
    this.checkUnique(record)
    const file = new Low<RecordFile>(this.backend.document(`${record.id}.json`), this.documentOf(record))
    await file.write()
    deepFreeze(record)
    this.keep(record.id, file, this.sizeOf(file.data))
    this.index(record)
    this.revision++
    this.changes.tell(record.id)
  }

  /** Changes the record, or creates it from `initial` first when there is none: one step, inside the write queue. */
  upsert(id: string, initial: () => T, change: (draft: T) => void): Promise<T> {
    return this.queue.run(async () => {
      if (this.options.writesRefused) throw this.options.writesRefused
      if (this.stored(id)) return (await this.replace(id, change)).record
      const record = initial()
      change(record)
      await this.insert(record)
      return record
    })
  }

  /**
   * Applies `change` to a copy of the record and stores the copy. `change` runs inside the write
   * queue, so checks made in it (read-check-write) cannot race another update. It may throw to
   * abort; nothing is written then.
   */
  update<R = void>(id: string, change: (draft: T) => R): Promise<{ record: T; result: R }> {
    return this.queue.run(async () => {
      if (this.options.writesRefused) throw this.options.writesRefused
      return this.replace(id, change)
    })
  }

  private async replace<R>(id: string, change: (draft: T) => R): Promise<{ record: T; result: R }> {
    await this.makeWritable()
    const file = this.fileOf(id)
    if (!file) throw new RecordMissingError(id)
    const previous = recordOf<T>(file)
    const draft = structuredClone(previous)
    const result = change(draft)
    if (draft.id !== id) throw new Error('a record id cannot change')
    this.checkUnique(draft)
    const next = this.documentOf(draft)
    // Let go while it is written (by reads meanwhile), it is read again from its file if this write fails: the old document.
    await this.holdingWhile(id, file, () => file.adapter.write(next))
    deepFreeze(draft)
    file.data = next
    this.keep(id, file, this.sizeOf(next))
    this.unindex(previous)
    this.index(draft)
    this.revision++
    this.changes.tell(id)
    return { record: draft, result }
  }

  delete(id: string): Promise<void> {
    return this.queue.run(async () => {
      if (this.options.writesRefused) throw this.options.writesRefused
      if (!this.stored(id)) throw new RecordMissingError(id)
      await this.remove(id)
    })
  }

  /** Deletes the record if `check` (run inside the write queue, on the current record) says so; says whether it did. */
  deleteWhere(id: string, check: (record: T) => boolean): Promise<boolean> {
    return this.queue.run(async () => {
      if (this.options.writesRefused) throw this.options.writesRefused
      const record = this.peek(id)
      if (!record || !check(record)) return false
      await this.remove(id)
      return true
    })
  }

  private async remove(id: string): Promise<void> {
    await this.makeWritable()
    const file = this.fileOf(id)!
    await this.holdingWhile(id, file, () => this.backend.remove(`${id}.json`))
    this.records.delete(id)
    this.unread.delete(id)
    this.unindex(recordOf<T>(file))
    this.revision++
    this.changes.tell(id)
  }

  onChange(listener: ChangeListener): () => void {
    return this.changes.on(listener)
  }

  /** Runs `task` with no write of this collection in flight, and none starting until it is done. */
  hold<R>(task: () => Promise<R>): Promise<R> {
    return this.queue.run(task)
  }

  /** Waits for every queued write to reach the disk. */
  drain(): Promise<void> {
    return this.queue.drain()
  }

  private documentOf(record: T): RecordFile {
    return { schemaVersion: this.options.schema.version, record: record as unknown as Record<string, unknown> }
  }

  private uniqueIndex(index: string): Map<string, string> {
    if (!this.options.unique?.[index]) throw new Error(`${this.name} has no unique index ${index}`)
    return this.made(this.uniqueIndexes, index, () => this.savedUnique(index), () => this.uniqueFromRecords(index))
  }

  private groupIndex(group: string): GroupIndex {
    if (!this.options.groups?.[group]) throw new Error(`${this.name} has no group ${group}`)
    return this.made(this.groupIndexes, group, () => this.savedGroup(group), () => this.groupFromRecords(group))
  }

  private checkUnique(record: T): void {
    for (const [index, keysOf] of Object.entries(this.options.unique ?? {})) {
      const map = this.uniqueIndex(index)
      const keys = keyList(keysOf(record))
      for (const key of keys) {
        const owner = map.get(key)
        if (owner !== undefined && owner !== record.id) throw new UniqueConstraintError(index, key)
      }
      if (keys.length > 1 && new Set(keys).size < keys.length) throw new UniqueConstraintError(index, keys.find((key, at) => keys.indexOf(key) !== at)!)
    }
  }

  private index(record: T): void {
    for (const [index, keysOf] of Object.entries(this.options.unique ?? {})) {
      const map = this.uniqueIndex(index)
      for (const key of keyList(keysOf(record))) map.set(key, record.id)
    }
    for (const [group, groupOf] of Object.entries(this.options.groups ?? {})) {
      const index = this.groupIndex(group)
      for (const key of keyList(groupOf(record))) index.add(key, record.id)
    }
  }

  private unindex(record: T): void {
    for (const [index, keysOf] of Object.entries(this.options.unique ?? {})) {
      const map = this.uniqueIndex(index)
      for (const key of keyList(keysOf(record))) if (map.get(key) === record.id) map.delete(key)
    }
    for (const [group, groupOf] of Object.entries(this.options.groups ?? {})) {
      const index = this.groupIndex(group)
      for (const key of keyList(groupOf(record))) index.remove(key, record.id)
    }
  }
}

/**
 * Freezes a record and everything in it: what a store returns cannot be changed behind its back.
 * It walks keys in place: Object.values made an array for every object of every record a store
 * loads.
 */
export function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return
  Object.freeze(value)
  if (Array.isArray(value)) for (let index = 0; index < value.length; index++) deepFreeze(value[index])
  else for (const key in value) deepFreeze((value as Record<string, unknown>)[key])
}

export function keyList(keys: string | readonly string[] | undefined): readonly string[] {
  if (keys === undefined) return []
  return typeof keys === 'string' ? [keys] : keys
}

/** What `read` returns, or its error, as a promise: a damaged record rejects a read rather than throwing from it. */
function settled<R>(read: () => R): Promise<R> {
  return new Promise((resolve) => resolve(read()))
}

function recordOf<T>(file: Low<RecordFile>): T {
  return file.data.record as unknown as T
}
