import pg from 'pg'
import type { Identified } from '../engine/collection.js'
import { collectionSpecs, INSTALLATION_ID, newInstallation, recordStores, type CollectionSpec, type InstallationFileRecord } from '../engine/collections.js'
import { DatabaseUnreachableError, isDatabaseUnreachable, StoreLoadError } from '../errors.js'
import type { Archives, Store } from '../port.js'
import { CachedArchives } from './archive-cache.js'
import { DEFAULT_ARCHIVE_GRACE_MS, PgArchives } from './pg-archives.js'
import { CHANGES_CHANNEL, parseChangePayload, PgCollection } from './pg-collection.js'
import { CatchUpPings } from './catch-up-pings.js'
import { PgLeases } from './pg-leases.js'

/** The layout of Homeport's tables, apart from the records' own schemas; raised by a change that needs a migration. */
const LAYOUT_VERSION = 1
/** Held while one replica creates or upgrades the tables: the others wait, then find them ready. */
const SCHEMA_LOCK = 4_780_001

const LAYOUT = [
  'CREATE TABLE IF NOT EXISTS hp_meta (key text PRIMARY KEY, value text NOT NULL)',
  'CREATE TABLE IF NOT EXISTS hp_keys (collection text NOT NULL, idx text NOT NULL, key text NOT NULL, id text NOT NULL, PRIMARY KEY (collection, idx, key))',
  'CREATE INDEX IF NOT EXISTS hp_keys_by_record ON hp_keys (collection, id)',
  'CREATE TABLE IF NOT EXISTS hp_groups (collection text NOT NULL, grp text NOT NULL, key text NOT NULL, id text NOT NULL)',
  'CREATE INDEX IF NOT EXISTS hp_groups_by_key ON hp_groups (collection, grp, key)',
  'CREATE INDEX IF NOT EXISTS hp_groups_by_record ON hp_groups (collection, id)',
  'CREATE TABLE IF NOT EXISTS hp_archives (sha256 text PRIMARY KEY, size bigint NOT NULL, docs jsonb, stored_at timestamptz NOT NULL DEFAULT now())',
  'CREATE TABLE IF NOT EXISTS hp_leases (job text PRIMARY KEY, owner text NOT NULL, until timestamptz NOT NULL)',
  'CREATE TABLE IF NOT EXISTS hp_archive_chunks (sha256 text NOT NULL, seq integer NOT NULL, data bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (sha256, seq))'
]

const PG_BACKUP = 'This Homeport keeps its registry in PostgreSQL: back it up with pg_dump (see docs/operations/postgresql.md), not with a Homeport backup.'

/** What the PostgreSQL store knows beyond the port: its pool, for the tests and the tools that look inside. */
export interface PostgresStore extends Store {
  readonly pool: pg.Pool
}

/**
 * Opens Homeport's store in the PostgreSQL database at `url` (creating and upgrading its tables,
 * one replica at a time, under an advisory lock): a table per collection plus the index tables,
 * archives in chunks. Several Homeports may use one database: writes lock the record they change,
 * unique keys are the database's own, and every replica hears the others' writes (LISTEN/NOTIFY)
 * to drop what it computed from older state and to see a changed installation record.
 */
export async function openPostgresStore(
  url: string,
  {
    archiveGraceMs = DEFAULT_ARCHIVE_GRACE_MS,
    connectTimeoutMs = CONNECT_TIMEOUT_MS,
    queryTimeoutMs = QUERY_TIMEOUT_MS,
    archiveCache
  }: {
    archiveGraceMs?: number
    connectTimeoutMs?: number
    queryTimeoutMs?: number
    /** A local folder this replica keeps copies of archives in, up to `maxBytes` (archive-cache.ts); none without it. */
    archiveCache?: { dir: string; maxBytes: number }
  } = {}
): Promise<PostgresStore> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    application_name: 'homeport',
    // A host that takes the connection and never answers must not hold the start (or a request) forever.
    connectionTimeoutMillis: connectTimeoutMs,
    query_timeout: queryTimeoutMs,
    // A database that vanished without closing the connection is noticed by the operating system.
    keepAlive: true
  })
  // An idle connection the server dropped must not take the process down.
  pool.on('error', (error) => console.error(`homeport: a PostgreSQL connection failed: ${error.message}`))
  // The server processes this replica's connections run in: the NOTIFY of its own writes comes back from
  // one of them, and such a write has already moved the revision and let the kept reads go (pg-collection.ts);
  // taking it again, late, made a read that followed a write look as if it had written. (node-postgres keeps
  // the process id PostgreSQL gives each connection, as it needs it to cancel a query.)
  const ownBackends = new Set<number>()
  const backendOf = (client: pg.PoolClient) => (client as pg.PoolClient & { processID?: number }).processID
  pool.on('connect', (client) => void ownBackends.add(backendOf(client) ?? -1))
  pool.on('remove', (client) => void ownBackends.delete(backendOf(client) ?? -1))
  let listener: pg.PoolClient | undefined
  try {
    const specs = collectionSpecs()
    let revision = 0
    // Group reads are kept only while this replica hears the others' writes (its LISTEN connection is up).
    const collection = <T extends Identified>(spec: CollectionSpec<T>) => new PgCollection<T>(pool, spec, () => listener !== undefined)
    const collections = {
      installation: collection(specs.installation),
      organizations: collection(specs.organizations),
      modules: collection(specs.modules),
      downloads: collection(specs.downloads),
      upstreamCache: collection(specs.upstreamCache),
      providers: collection(specs.providers),
      gpgKeys: collection(specs.gpgKeys),
      providerMirror: collection(specs.providerMirror),
      auditTrail: collection(specs.auditTrail),
      gatePolicies: collection(specs.gatePolicies),
      releaseSightings: collection(specs.releaseSightings),
      gateRequests: collection(specs.gateRequests),
      providerDocs: collection(specs.providerDocs),
      users: collection(specs.users)
    }
    await prepare(pool, Object.values(collections))
    const { installation } = collections
    let current = (await installation.get(INSTALLATION_ID)) ?? (await createInstallation(installation))

    // Another replica's write: what was computed before it may be stale, and the installation may have changed.
    const byName = new Map<string, PgCollection<Identified>>(Object.values(collections).map((kept) => [kept.name, kept as PgCollection<Identified>]))
    const pings = new CatchUpPings(pool)
    const onNotification = (message: pg.Notification) => {
      if (pings.heard(message.payload ?? '')) return
      if (ownBackends.has(message.processId)) return
      const { collection: name, id } = parseChangePayload(message.payload ?? '')
      byName.get(name)?.heardWrite(id)
      // The audit trail changes no answer a replica computed.
      if (name === 'audit-trail') return
      revision++
      if (name === 'installation') void installation.get(INSTALLATION_ID).then((record) => record && (current = record))
    }
    let closed = false
    const listen = async (): Promise<pg.PoolClient> => {
      const client = await pool.connect()
      client.on('notification', onNotification)
      // The connection dropped (the database restarted, the network failed): listen again once it is back,
      // and meanwhile take every answer computed before as stale, since other replicas' writes went unheard.
      let lost = false
      client.on('error', (error) => {
        // A dying connection can report more than one error, and once close has handed the client back
        // it is the pool's: releasing it again would throw from this handler.
        if (lost || closed) return
        lost = true
        console.error(`homeport: lost the PostgreSQL connection that hears other replicas' writes (${error.message}); listening again when the database is back`)
        client.release(error)
        if (listener === client) listener = undefined
        pings.lost()
        void relisten(1000)
      })
      await client.query(`LISTEN ${CHANGES_CHANNEL}`)
      return client
    }
    const relisten = async (waitMs: number): Promise<void> => {
      await new Promise((resolve) => setTimeout(resolve, waitMs).unref())
      if (closed) return
      try {
        listener = await listen()
        revision++
        for (const kept of byName.values()) kept.heardWrite(undefined)
      } catch {
        void relisten(Math.min(waitMs * 2, 30_000))
      }
    }
    listener = await listen()
    const archives = new PgArchives(pool, archiveGraceMs)

    return {
      pool,
      ...recordStores(collections),
      archives: archiveCache && archiveCache.maxBytes > 0 ? await cached(archives, archiveCache.dir, archiveCache.maxBytes) : archives,
      leases: new PgLeases(pool),
      installation: () => current,
      revision: () => revision + installation.revision + collections.organizations.revision + collections.modules.revision + collections.users.revision,
      caughtUp: () => (listener ? pings.ping() : Promise.resolve()),
      async updateInstallation(change) {
        const { record } = await installation.update(INSTALLATION_ID, change)
        current = record
        return record
      },
      backupRefusal: PG_BACKUP,
      backup: () => Promise.reject(new Error(PG_BACKUP)),
      async close() {
        closed = true
        listener?.release()
        listener = undefined
        await pool.end()
      }
    }
  } catch (error) {
    listener?.release()
    await pool.end().catch(() => undefined)
    throw isDatabaseUnreachable(error) ? unreachable(url, error, connectTimeoutMs) : error
  }
}

/** How long a connection to the database may take to open. */
const CONNECT_TIMEOUT_MS = 10_000
/** How long a statement may wait for the database's answer; past it the request gets a 503, not a hang. */
const QUERY_TIMEOUT_MS = 60_000

/** What could not be reached, and how to check, naming the database without its password. */
function unreachable(url: string, error: unknown, connectTimeoutMs: number): DatabaseUnreachableError {
  let where = 'in the URL given'
  let check = 'pg_isready'
  try {
    const parsed = new URL(url)
    const host = decodeURIComponent(parsed.hostname) || 'localhost'
    const port = parsed.port || '5432'
    where = `${host}:${port}${parsed.pathname.length > 1 ? ` (database ${decodeURIComponent(parsed.pathname.slice(1))})` : ''}`
    check = `pg_isready -h ${host} -p ${port}`
  } catch {
    // A URL pg could read but URL cannot: say less.
  }
  const code = (error as { code?: string }).code
  const why =
    code === 'ECONNREFUSED'
      ? 'nothing listens there'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name does not resolve'
        : /timeout/i.test((error as Error).message)
          ? `it did not answer within ${connectTimeoutMs / 1000} s`
          : (error as Error).message
  return new DatabaseUnreachableError(`The PostgreSQL database at ${where} could not be reached: ${why}. Check that PostgreSQL runs there and takes connections (${check}), and the URL's host and port.`)
}

/** Creates or upgrades the tables, one replica at a time. */
async function prepare(pool: pg.Pool, collections: Array<{ prepare(client: pg.PoolClient): Promise<void> }>): Promise<void> {
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK])
    try {
      for (const statement of LAYOUT) await client.query(statement)
      const { rows } = await client.query<{ value: string }>("SELECT value FROM hp_meta WHERE key = 'layout'")
      const layout = rows[0] ? Number(rows[0].value) : LAYOUT_VERSION
      if (layout > LAYOUT_VERSION) throw new StoreLoadError('hp_meta', `the tables were laid out by a newer Homeport (layout ${layout}, this one knows ${LAYOUT_VERSION})`)
      await client.query("INSERT INTO hp_meta (key, value) VALUES ('layout', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", [String(LAYOUT_VERSION)])
      await client.query('BEGIN')
      for (const collection of collections) await collection.prepare(client)
      await client.query('COMMIT')
      // What an upload that a crash interrupted left (a day on, so no upload still under way is touched).
      await client.query("DELETE FROM hp_archive_chunks WHERE sha256 LIKE 'tmp-%' AND created_at < now() - interval '1 day'")
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK])
    }
  } finally {
    client.release()
  }
}

/** The installation record, made by the first replica to start on an empty database. */
async function createInstallation(installation: PgCollection<InstallationFileRecord>): Promise<InstallationFileRecord> {
  return installation.upsert(INSTALLATION_ID, newInstallation, () => undefined)
}

/** The archives with a local cache over them; without one, said once, where the cache's folder cannot be used. */
async function cached(archives: PgArchives, dir: string, maxBytes: number): Promise<Archives> {
  try {
    return await CachedArchives.open(archives, dir, maxBytes)
  } catch (error) {
    console.error(`homeport: archives are read from PostgreSQL without a local cache: ${(error as Error).message}`)
    return archives
  }
}
