import type { Pool, PoolClient } from 'pg'
import { Lru } from '../../../shared/lru.js'
import { deepFreeze, keyList, type Identified } from '../engine/collection.js'
import type { CollectionSpec } from '../engine/collections.js'
import { RecordMissingError, StoreLoadError, UniqueConstraintError } from '../errors.js'
import { ChangeFeed, type ChangeListener } from '../change-feed.js'
import type { RecordStore } from '../port.js'
import { inTransaction } from './transactions.js'

/**
 * One collection in PostgreSQL: a row per record (`id`, the schema version it was written with, the
 * record as JSONB) in the collection's table, and its index keys in `hp_keys` (unique: the primary
 * key makes a second record with the same key fail, whichever replica writes it) and `hp_groups`.
 *
 * Writes run in a transaction that locks the record's row (`SELECT … FOR UPDATE`), so a change's
 * checks (read-check-write) cannot race another update of the record, in this process or another
 * replica; the keys change in the same transaction. Reads go to the database, but for a group's
 * records (listBy: an organization's providers, a package's gate requests) and the records of a
 * getMany (a search's hits, a page of the module list), which are kept until this collection is
 * written, by this replica or another (see KeptReads).
 */
export class PgCollection<T extends Identified> implements RecordStore<T> {
  readonly table: string
  /** Grows with every write this process made; other replicas' writes arrive by NOTIFY (pg-store.ts). */
  revision = 0
  /** A sequence every replica moves on after each write of the collection has committed, before it answers (see listBy). */
  private readonly changes: string
  private readonly kept: KeptReads<T>
  private readonly feed = new ChangeFeed()

  constructor(
    private readonly pool: Pool,
    private readonly spec: CollectionSpec<T>,
    /** Whether this replica hears the others' writes now (its LISTEN connection is up): group reads are kept only then. */
    private readonly hearing: () => boolean = () => false
  ) {
    this.table = tableName(spec.name)
    this.changes = `${this.table}_changes`
    this.kept = new KeptReads(hearing)
  }

  /** Another replica wrote record `id` of this collection, or may have written any while its writes went unheard: what was read before may be stale. */
  heardWrite(id: string | undefined): void {
    this.kept.forget()
    this.feed.tell(id)
  }

  onChange(listener: ChangeListener): () => void {
    return this.feed.on(listener)
  }

  get name(): string {
    return this.spec.name
  }

  /** Creates the table if need be, then upgrades records an older Homeport wrote (the caller holds the schema lock). */
  async prepare(client: PoolClient): Promise<void> {
    await client.query(`CREATE TABLE IF NOT EXISTS ${this.table} (id text PRIMARY KEY, schema_version integer NOT NULL, record jsonb NOT NULL)`)
    // What finds the records an older or newer Homeport wrote, below, without reading the table: 100,000 modules took a start a second to scan.
    await client.query(`CREATE INDEX IF NOT EXISTS ${this.table}_schema_version ON ${this.table} (schema_version)`)
    await client.query(`CREATE SEQUENCE IF NOT EXISTS ${this.changes}`)
    const { version, migrations } = this.spec.options.schema
    const newer = await client.query<{ id: string; schema_version: number }>(`SELECT id, schema_version FROM ${this.table} WHERE schema_version > $1 LIMIT 1`, [version])
    if (newer.rows[0]) {
      const row = newer.rows[0]
      throw new StoreLoadError(`${this.table} ${row.id}`, `it was written by a newer Homeport (schema ${row.schema_version}, this one reads up to ${version})`)
    }
    const old = await client.query<{ id: string; schema_version: number; record: Record<string, unknown> }>(`SELECT id, schema_version, record FROM ${this.table} WHERE schema_version < $1`, [version])
    for (const row of old.rows) {
      let upgraded = row.record
      for (let from = row.schema_version; from < version; from++) {
        const migration = migrations[from]
        if (!migration) throw new StoreLoadError(`${this.table} ${row.id}`, `no migration from schema ${from}`)
        upgraded = migration(upgraded)
      }
      const problem = this.spec.options.check?.(upgraded as unknown as T)
      if (problem) throw new StoreLoadError(`${this.table} ${row.id}`, problem)
      await client.query(`UPDATE ${this.table} SET schema_version = $2, record = $3 WHERE id = $1`, [row.id, version, upgraded])
      await this.writeKeys(client, upgraded as unknown as T)
    }
    await this.prepareKeys(client)
  }

  /**
   * Writes every record's keys again when the collection's indexes are not those they were written
   * for (an index added by a newer Homeport has no keys yet). An index is known by its name, so one
   * whose keys come out differently takes a new name.
   */
  private async prepareKeys(client: PoolClient): Promise<void> {
    const { unique = {}, groups = {} } = this.spec.options
    const layout = JSON.stringify({ unique: Object.keys(unique).sort(), groups: Object.keys(groups).sort() })
    const meta = `indexes:${this.spec.name}`
    const { rows } = await client.query<{ value: string }>('SELECT value FROM hp_meta WHERE key = $1', [meta])
    if (rows[0]?.value === layout) return
    await client.query('DELETE FROM hp_keys WHERE collection = $1', [this.spec.name])
    await client.query('DELETE FROM hp_groups WHERE collection = $1', [this.spec.name])
    const holders = new Map<string, string>()
    let after = ''
    for (;;) {
      // A page at a time, so a large registry is never in memory whole.
      const page = await client.query<{ record: T }>(`SELECT record FROM ${this.table} WHERE id > $1 ORDER BY id LIMIT ${KEY_PAGE}`, [after])
      if (page.rows.length === 0) break
      const keys: KeyRows = [[], [], []]
      const members: KeyRows = [[], [], []]
      for (const { record } of page.rows) {
        for (const [index, keysOf] of Object.entries(unique)) {
          for (const key of new Set(keyList(keysOf(record)))) {
            const holder = holders.get(`${index}\0${key}`)
            if (holder) throw new StoreLoadError(`${this.table} ${record.id}`, `its ${index} ${key} is ${holder}'s too`)
            holders.set(`${index}\0${key}`, record.id)
            addRow(keys, index, key, record.id)
          }
        }
        for (const [group, keysOf] of Object.entries(groups)) {
          for (const key of new Set(keyList(keysOf(record)))) addRow(members, group, key, record.id)
        }
      }
      await client.query('INSERT INTO hp_keys (collection, idx, key, id) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])', [this.spec.name, ...keys])
      await client.query('INSERT INTO hp_groups (collection, grp, key, id) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])', [this.spec.name, ...members])
      after = page.rows.at(-1)!.record.id
    }
    await client.query('INSERT INTO hp_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [meta, layout])
  }

  async all(): Promise<T[]> {
    const { rows } = await this.pool.query<{ record: T }>(`SELECT record FROM ${this.table} ORDER BY id`)
    return rows.map((row) => frozen(row.record))
  }

  async get(id: string): Promise<T | undefined> {
    const { rows } = await this.pool.query<{ record: T }>(`SELECT record FROM ${this.table} WHERE id = $1`, [id])
    return rows[0] ? frozen(rows[0].record) : undefined
  }

  /** Every read is the database's, and nothing is kept: a pass over every record would crowd out what requests read again. */
  async scanMany(ids: readonly string[]): Promise<Array<T | undefined>> {
    if (ids.length === 0) return []
    const { rows } = await this.pool.query<{ id: string; record: T }>(`SELECT id, record FROM ${this.table} WHERE id = ANY($1::text[])`, [ids])
    const byId = new Map(rows.map((row) => [row.id, row.record]))
    return ids.map((id) => {
      const record = byId.get(id)
      return record ? frozen(record) : undefined
    })
  }

  /**
   * The records, each kept from an earlier read while no write of the collection has been answered
   * since, as group reads are (see KeptReads): a search's hits and a page of the module list are read
   * again and again, and a module of 500 versions took milliseconds to parse each time. Records all
   * kept cost one query, of where the changes sequence is, where a read cost one before; the others
   * are read in one more.
   */
  async getMany(ids: readonly string[]): Promise<Array<T | undefined>> {
    if (ids.length === 0) return []
    const epoch = this.kept.epoch
    const changes = await this.changesAt()
    const found = ids.map((id) => this.kept.get(recordName(id), changes)?.[0])
    const missing = ids.filter((_, at) => found[at] === undefined)
    if (missing.length === 0) return found
    // As text, parsed here: its length weighs what is kept.
    const { rows } = await this.pool.query<{ id: string; json: string }>(`SELECT id, record::text AS json FROM ${this.table} WHERE id = ANY($1::text[])`, [missing])
    const read = new Map<string, T>()
    for (const row of rows) {
      const record = frozen(JSON.parse(row.json) as T)
      read.set(row.id, record)
      this.kept.keep(recordName(row.id), { epoch, changes }, [record], 2 * row.json.length)
    }
    return ids.map((id, at) => found[at] ?? read.get(id))
  }

  async findBy(index: string, key: string): Promise<T | undefined> {
    const { rows } = await this.pool.query<{ record: T }>(
      `SELECT r.record FROM hp_keys k JOIN ${this.table} r ON r.id = k.id WHERE k.collection = $1 AND k.idx = $2 AND k.key = $3`,
      [this.spec.name, index, key]
    )
    return rows[0] ? frozen(rows[0].record) : undefined
  }

  /**
   * The group's records: kept from an earlier read while no write of the collection has been
   * answered since, by any replica (the changes sequence has not moved: a write moves it once
   * committed, before its client hears back, so a client never reads through one replica less than
   * it wrote through another), and this replica has heard of none (NOTIFY).
   */
  async listBy(group: string, key: string): Promise<T[]> {
    const name = `${group}\u0000${key}`
    const epoch = this.kept.epoch
    const changes = await this.changesAt()
    const kept = this.kept.get(name, changes)
    if (kept) return [...kept]
    // As text, parsed here: its length weighs what is kept.
    const { rows } = await this.pool.query<{ json: string }>(
      `SELECT r.record::text AS json FROM hp_groups g JOIN ${this.table} r ON r.id = g.id WHERE g.collection = $1 AND g.grp = $2 AND g.key = $3 ORDER BY r.id`,
      [this.spec.name, group, key]
    )
    const records = rows.map((row) => frozen(JSON.parse(row.json) as T))
    this.kept.keep(name, { epoch, changes }, records, rows.reduce((bytes, row) => bytes + 2 * row.json.length, 0))
    return [...records]
  }

  /** Where the collection's changes sequence is: it moves after each write commits, before the write is answered (see listBy). */
  private async changesAt(): Promise<string> {
    const { rows: [moved] } = await this.pool.query<{ last_value: string; is_called: boolean }>(`SELECT last_value, is_called FROM ${this.changes}`)
    return `${moved!.last_value}:${moved!.is_called}`
  }

  async ids(): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(`SELECT id FROM ${this.table}`)
    return rows.map((row) => row.id)
  }

  async groupSizes(group: string, keys: readonly string[]): Promise<Map<string, number>> {
    const sizes = new Map(keys.map((key) => [key, 0]))
    if (keys.length === 0) return sizes
    const { rows } = await this.pool.query<{ key: string; size: string }>(
      'SELECT key, count(*) AS size FROM hp_groups WHERE collection = $1 AND grp = $2 AND key = ANY($3::text[]) GROUP BY key',
      [this.spec.name, group, keys]
    )
    for (const row of rows) sizes.set(row.key, Number(row.size))
    return sizes
  }

  async groupKeys(group: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ key: string }>('SELECT DISTINCT key FROM hp_groups WHERE collection = $1 AND grp = $2', [this.spec.name, group])
    return rows.map((row) => row.key)
  }

  async create(record: T): Promise<T> {
    await this.write(record.id, (client) => this.insert(client, record))
    return frozen(record)
  }

  async update<R = void>(id: string, change: (draft: T) => R): Promise<{ record: T; result: R }> {
    return this.write(id, async (client) => {
      const current = await this.locked(client, id)
      if (!current) throw new RecordMissingError(id)
      return this.replace(client, current, change)
    })
  }

  async upsert(id: string, initial: () => T, change: (draft: T) => void): Promise<T> {
    return this.write(id, async (client) => {
      const current = await this.locked(client, id)
      if (current) return (await this.replace(client, current, change)).record
      const record = initial()
      change(record)
      await this.insert(client, record)
      return frozen(record)
    })
  }

  async delete(id: string): Promise<void> {
    await this.write(id, async (client) => {
      const { rowCount } = await client.query(`DELETE FROM ${this.table} WHERE id = $1`, [id])
      if (!rowCount) throw new RecordMissingError(id)
      await this.dropKeys(client, id)
    })
  }

  async deleteWhere(id: string, check: (record: T) => boolean): Promise<boolean> {
    return this.write(id, async (client) => {
      const current = await this.locked(client, id)
      if (!current || !check(frozen(current))) return false
      await client.query(`DELETE FROM ${this.table} WHERE id = $1`, [id])
      await this.dropKeys(client, id)
      return true
    })
  }

  /** Runs `work` on record `id` in a transaction, then tells the others (NOTIFY: changePayload) and this process's listeners that it changed. */
  private async write<R>(id: string, work: (client: PoolClient) => Promise<R>): Promise<R> {
    try {
      return await inTransaction(this.pool, async (client) => {
        const value = await work(client)
        await client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, changePayload(this.spec.name, id)])
        return value
      })
    } finally {
      this.feed.tell(id)
      // Even a write that failed may have committed (the connection dropped as it did).
      this.revision++
      this.kept.forget()
      // Before the write is answered (a database out of reach heard of nothing else either: the NOTIFY goes with the commit).
      await this.pool.query(`SELECT nextval('${this.changes}')`).catch(() => undefined)
    }
  }

  private async locked(client: PoolClient, id: string): Promise<T | undefined> {
    const { rows } = await client.query<{ record: T }>(`SELECT record FROM ${this.table} WHERE id = $1 FOR UPDATE`, [id])
    return rows[0]?.record
  }

  private async insert(client: PoolClient, record: T): Promise<void> {
    if (!/^[a-z]+-[A-Za-z0-9]+$/.test(record.id)) throw new Error(`invalid record id ${record.id}`)
    const inserted = await client.query(`INSERT INTO ${this.table} (id, schema_version, record) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`, [
      record.id,
      this.spec.options.schema.version,
      record
    ])
    if (!inserted.rowCount) throw new UniqueConstraintError('id', record.id)
    await this.writeKeys(client, record)
  }

  private async replace<R>(client: PoolClient, current: T, change: (draft: T) => R): Promise<{ record: T; result: R }> {
    const draft = structuredClone(current)
    const result = change(draft)
    if (draft.id !== current.id) throw new Error('a record id cannot change')
    await client.query(`UPDATE ${this.table} SET schema_version = $2, record = $3 WHERE id = $1`, [draft.id, this.spec.options.schema.version, draft])
    await this.dropKeys(client, draft.id)
    await this.writeKeys(client, draft)
    return { record: frozen(draft), result }
  }

  /** The record's unique keys and groups; a key another record holds fails as the file store's would. */
  private async writeKeys(client: PoolClient, record: T): Promise<void> {
    await this.dropKeys(client, record.id)
    for (const [index, keysOf] of Object.entries(this.spec.options.unique ?? {})) {
      for (const key of new Set(keyList(keysOf(record)))) {
        const { rowCount } = await client.query('INSERT INTO hp_keys (collection, idx, key, id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [this.spec.name, index, key, record.id])
        if (!rowCount) throw new UniqueConstraintError(index, key)
      }
    }
    for (const [group, keysOf] of Object.entries(this.spec.options.groups ?? {})) {
      for (const key of new Set(keyList(keysOf(record)))) {
        await client.query('INSERT INTO hp_groups (collection, grp, key, id) VALUES ($1, $2, $3, $4)', [this.spec.name, group, key, record.id])
      }
    }
  }

  private async dropKeys(client: PoolClient, id: string): Promise<void> {
    await client.query('DELETE FROM hp_keys WHERE collection = $1 AND id = $2', [this.spec.name, id])
    await client.query('DELETE FROM hp_groups WHERE collection = $1 AND id = $2', [this.spec.name, id])
  }
}

/** How many records are read at a time when their keys are written again. */
const KEY_PAGE = 1000

/** Index rows as three columns (index or group, key, record id), for one bulk insert. */
type KeyRows = [string[], string[], string[]]

function addRow([names, keys, ids]: KeyRows, name: string, key: string, id: string): void {
  names.push(name)
  keys.push(key)
  ids.push(id)
}

/** The channel on which every replica hears which collection another one wrote. */
export const CHANGES_CHANNEL = 'homeport_changes'

/** `provider-mirror` → `hp_provider_mirror`. */
function tableName(collection: string): string {
  return `hp_${collection.replace(/-/g, '_')}`
}

function frozen<T>(record: T): T {
  deepFreeze(record)
  return record
}

/**
 * What a replica's group reads (listBy) and record reads (getMany) found, kept until the collection is
 * written: a read of an organization's modules brings every record of it, versions and all, from the
 * database (77–161 ms for 1,000 modules of 20 versions, against 5–10 ms from the file store's memory).
 * Each is kept with the changes sequence's position when it was read, and answers only while that has
 * not moved. Any
 * write of the collection forgets them all as well: this replica's own as it is made, another's when
 * its NOTIFY arrives (which also covers a replica that died between its commit and moving the
 * sequence; the NOTIFY of this replica's own writes is let be, see pg-store.ts). While this replica cannot hear the others (its LISTEN connection is down), nothing is
 * kept or answered from here. A read that a write overtook (the epoch moved while it ran) is not
 * kept either. The least recently read go first past the budget.
 */
class KeptReads<T> {
  /** Grows at every forget: a read that began before one is not kept. */
  epoch = 0
  private readonly kept = new Lru<string, { records: readonly T[]; changes: string }>(KEPT_READS_BYTES)

  constructor(private readonly hearing: () => boolean) {}

  /** What the last read of a group (or a record) found, if the changes sequence is where it was then. */
  get(name: string, changes: string): readonly T[] | undefined {
    const entry = this.hearing() ? this.kept.get(name) : undefined
    return entry?.changes === changes ? entry.records : undefined
  }

  keep(name: string, read: { epoch: number; changes: string }, records: readonly T[], bytes: number): void {
    if (read.epoch === this.epoch && this.hearing()) this.kept.set(name, { records, changes: read.changes }, bytes)
  }

  forget(): void {
    this.epoch++
    this.kept.clear()
  }
}

/** What a replica keeps of each collection's reads, at most (its records' text, two bytes a character). */
const KEPT_READS_BYTES = 64 * 1024 * 1024

/**
 * What a write's NOTIFY says: the collection and the record, `modules:mod-…` (ids hold no colon). A
 * replica of a Homeport from before ids were sent names the collection alone, heard as "any record".
 */
/** A record's name among the kept reads: no group's name starts with this character. */
function recordName(id: string): string {
  return `\u0001${id}`
}

export function changePayload(collection: string, id: string): string {
  return `${collection}:${id}`
}

/** The collection and the record a NOTIFY names (changePayload). */
export function parseChangePayload(payload: string): { collection: string; id: string | undefined } {
  const at = payload.indexOf(':')
  return at < 0 ? { collection: payload, id: undefined } : { collection: payload.slice(0, at), id: payload.slice(at + 1) }
}
