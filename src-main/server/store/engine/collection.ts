import { setImmediate as nextTurn } from 'node:timers/promises'
import { Low } from 'lowdb'
import { HOMEPORT_VERSION } from '../../../shared/version.js'
import { RecordMissingError, StoreLoadError, UniqueConstraintError, type WritesRefusedError } from '../errors.js'
import type { RecordCheck } from './record-checks.js'
import { savesIndexes, type RecordBackend, type RecordFile, type SavedIndexBackend, type SavedIndexes, type StoredDocument } from './record-backend.js'
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
}

const ID_PATTERN = /^[a-z]+-[A-Za-z0-9]+$/
/**
 * How many unread records all() reads between two turns of the event loop: about 5 ms of modules,
 * which is as long as a request waits on it while all() reads on.
 */
const READ_BATCH = 50

/**
 * A set of JSON documents, one per record (a lowdb file, or a document in memory: see
 * record-backend.ts), all held in memory for reads. One write costs in proportion to the record
 * it touches, whatever the size of the collection.
 *
 * Writes are serialized and copy-on-write: an update works on a clone, the clone is written
 * atomically, and only then does it replace the record in memory. Readers therefore never see a
 * change that is not on disk, and a failed write (full disk, read-only folder) leaves both the
 * file and the memory as they were. Records are frozen once stored: what a read returns cannot
 * be changed behind the store's back.
 *
 * A start after a clean close need not read every record: the close saves the indexes, and when
 * every document is still the one they were saved with (see record-files.ts), the start takes
 * them and reads each record when it is first asked for; all() reads what is left in batches,
 * between which requests are served. 100,000 versions: ready in 0.7 s rather than 1.2-1.5 s.
 */
export class Collection<T extends Identified> implements RecordStore<T> {
  private readonly records = new Map<string, Low<RecordFile>>()
  /** Records the saved indexes hold that have not been read yet. */
  private readonly unread = new Set<string>()
  /** The revision the saved indexes describe, while they still describe it. */
  private savedAt: number | undefined
  private readonly uniqueIndexes = new Map<string, Map<string, string>>()
  private readonly groupIndexes = new Map<string, Map<string, Set<string>>>()
  private readonly queue = new WriteQueue()
  private readonly changes = new ChangeFeed()
  /** Grows with every write that reached the disk: whatever was computed from an older value is stale. */
  revision = 0

  constructor(
    readonly name: string,
    private readonly backend: RecordBackend,
    private readonly options: CollectionOptions<T>
  ) {
    for (const index of Object.keys(options.unique ?? {})) this.uniqueIndexes.set(index, new Map())
    for (const group of Object.keys(options.groups ?? {})) this.groupIndexes.set(group, new Map())
  }

  /**
   * Takes the indexes saved at the last clean close if they still hold, or else reads every
   * record, migrating old ones; refuses documents it cannot understand.
   */
  async load(): Promise<void> {
    const saved = savesIndexes(this.backend) ? this.backend.savedIndexes(this.stamp()) : undefined
    if (saved && this.adopt(saved)) return
    for await (const document of this.backend.readAll()) {
      const { file, record, upgraded } = this.accept(document)
      // Saved upgraded only once it is known to be sound.
      if (upgraded && !this.options.writesRefused) await file.write()
      this.checkUnique(record)
      deepFreeze(record)
      this.records.set(record.id, file)
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
    const record = file.data.record as unknown as T
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

  /** Takes saved indexes; says whether it could (a record's place that is not one leaves everything to be read). */
  private adopt(saved: SavedIndexes): boolean {
    const { ids } = saved
    const idAt = (at: number) => ids[at] ?? badPlace(at)
    try {
      // Loops, not maps of the entries: a million versions' entries copied once more were about 80 MB more resident at the first answer.
      for (const [index, entries] of Object.entries(saved.unique)) {
        const map = new Map<string, string>()
        for (const [key, at] of entries) map.set(key, idAt(at))
        this.uniqueIndexes.set(index, map)
      }
      for (const [group, entries] of Object.entries(saved.groups)) {
        const map = new Map<string, Set<string>>()
        for (const [key, places] of entries) {
          const members = new Set<string>()
          for (const at of places) members.add(idAt(at))
          map.set(key, members)
        }
        this.groupIndexes.set(group, map)
      }
    } catch {
      for (const map of [...this.uniqueIndexes.values(), ...this.groupIndexes.values()]) map.clear()
      return false
    }
    this.savedAt = this.revision
    for (const id of ids) this.unread.add(id)
    return true
  }

  /**
   * Saves the indexes for the next start (see load), with no write in flight. Called at a clean
   * close: the next start checks that no document has changed since.
   */
  saveIndexes(): Promise<void> {
    const backend = this.backend
    if (!savesIndexes(backend) || this.options.writesRefused) return Promise.resolve()
    return this.queue.run(async () => {
      // Nothing written since they were saved (or taken): the saved ones still hold.
      if (this.savedAt === this.revision) return
      const ids = [...this.records.keys(), ...this.unread]
      const places = new Map(ids.map((id, at) => [id, at]))
      const placeOf = (id: string) => places.get(id)!
      await backend.saveIndexes({
        stamp: this.stamp(),
        ids,
        unique: Object.fromEntries([...this.uniqueIndexes].map(([index, map]) => [index, Array.from(map, ([key, id]): [string, number] => [key, placeOf(id)])])),
        groups: Object.fromEntries([...this.groupIndexes].map(([group, map]) => [group, Array.from(map, ([key, members]): [string, number[]] => [key, Array.from(members, placeOf)])]))
      })
      this.savedAt = this.revision
    })
  }

  /**
   * Reads a record the saved indexes hold. Its file is the one they were saved with (load checked),
   * so it is sound and current; that its unique keys lead to it is checked all the same.
   */
  private readNow(id: string): Low<RecordFile> {
    const file = this.readUnread(id)
    this.records.set(id, file)
    this.unread.delete(id)
    return file
  }

  /** An unread record's document, read and checked (readNow), and not kept. */
  private readUnread(id: string): Low<RecordFile> {
    const name = `${id}.json`
    // Records are unread only when load took saved indexes, which only such a backend gives.
    const { file, record, upgraded } = this.accept((this.backend as SavedIndexBackend).read(name))
    const indexed =
      !upgraded && Object.entries(this.options.unique ?? {}).every(([index, keysOf]) => keyList(keysOf(record)).every((key) => this.uniqueIndex(index).get(key) === id))
    if (!indexed) throw new StoreLoadError(this.backend.describe(name), 'it changed after the indexes were saved')
    deepFreeze(record)
    return file
  }

  /** The record's document, read first if it has not been. */
  private fileOf(id: string): Low<RecordFile> | undefined {
    return this.records.get(id) ?? (this.unread.has(id) ? this.readNow(id) : undefined)
  }

  private stored(id: string): boolean {
    return this.records.has(id) || this.unread.has(id)
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

  async all(): Promise<T[]> {
    let read = 0
    for (const id of this.unread) {
      if (++read % READ_BATCH === 0) await nextTurn()
      // Another reader may have read it meanwhile.
      if (this.unread.has(id)) this.readNow(id)
    }
    return [...this.records.values()].map((file) => file.data.record as unknown as T)
  }

  get(id: string): Promise<T | undefined> {
    return Promise.resolve(this.peek(id))
  }

  getMany(ids: readonly string[]): Promise<Array<T | undefined>> {
    return Promise.resolve(ids.map((id) => this.peek(id)))
  }

  /** getMany, reading what is unread without keeping it (RecordStore.scanMany). */
  scanMany(ids: readonly string[]): Promise<Array<T | undefined>> {
    return Promise.resolve(ids.map((id) => (this.records.get(id) ?? (this.unread.has(id) ? this.readUnread(id) : undefined))?.data.record as T | undefined))
  }

  private peek(id: string): T | undefined {
    return this.fileOf(id)?.data.record as T | undefined
  }

  /** The record whose unique index `index` holds `key`. */
  findBy(index: string, key: string): Promise<T | undefined> {
    const id = this.uniqueIndex(index).get(key)
    return Promise.resolve(id === undefined ? undefined : this.peek(id))
  }

  /** The records whose group `group` is `key`. */
  listBy(group: string, key: string): Promise<T[]> {
    const ids = this.groupIndex(group).get(key) ?? new Set<string>()
    return Promise.resolve([...ids].map((id) => this.peek(id) as T))
  }

  ids(): Promise<string[]> {
    return Promise.resolve([...this.records.keys(), ...this.unread])
  }

  groupSizes(group: string, keys: readonly string[]): Promise<Map<string, number>> {
    const index = this.groupIndex(group)
    return Promise.resolve(new Map(keys.map((key) => [key, index.get(key)?.size ?? 0])))
  }

  groupKeys(group: string): Promise<string[]> {
    return Promise.resolve([...this.groupIndex(group).keys()])
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
    if (this.stored(record.id)) throw new UniqueConstraintError('id', record.id)
    this.checkUnique(record)
    const file = new Low<RecordFile>(this.backend.document(`${record.id}.json`), this.documentOf(record))
    await file.write()
    deepFreeze(record)
    this.records.set(record.id, file)
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
    const file = this.fileOf(id)
    if (!file) throw new RecordMissingError(id)
    const previous = file.data.record as unknown as T
    const draft = structuredClone(previous)
    const result = change(draft)
    if (draft.id !== id) throw new Error('a record id cannot change')
    this.checkUnique(draft)
    const next = this.documentOf(draft)
    await file.adapter.write(next)
    deepFreeze(draft)
    file.data = next
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
    const file = this.fileOf(id)!
    await this.backend.remove(`${id}.json`)
    this.records.delete(id)
    this.unindex(file.data.record as unknown as T)
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
    const map = this.uniqueIndexes.get(index)
    if (!map) throw new Error(`${this.name} has no unique index ${index}`)
    return map
  }

  private groupIndex(group: string): Map<string, Set<string>> {
    const map = this.groupIndexes.get(group)
    if (!map) throw new Error(`${this.name} has no group ${group}`)
    return map
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
      const map = this.groupIndex(group)
      for (const key of keyList(groupOf(record))) {
        let ids = map.get(key)
        if (!ids) map.set(key, (ids = new Set()))
        ids.add(record.id)
      }
    }
  }

  private unindex(record: T): void {
    for (const [index, keysOf] of Object.entries(this.options.unique ?? {})) {
      const map = this.uniqueIndex(index)
      for (const key of keyList(keysOf(record))) if (map.get(key) === record.id) map.delete(key)
    }
    for (const [group, groupOf] of Object.entries(this.options.groups ?? {})) {
      const map = this.groupIndex(group)
      for (const key of keyList(groupOf(record))) {
        const ids = map.get(key)
        ids?.delete(record.id)
        if (ids?.size === 0) map.delete(key)
      }
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

function badPlace(at: number): never {
  throw new Error(`saved indexes name record ${at}, which they do not hold`)
}
