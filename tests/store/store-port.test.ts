import { afterEach, describe, expect, it, vi } from 'vitest'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { inject } from 'vitest'
import { UniqueConstraintError, RecordMissingError } from '../../src-main/server/store/errors.js'
import { openFileStore, type FileStore } from '../../src-main/server/store/file/file-store.js'
import { openMemoryStore } from '../../src-main/server/store/memory/memory-store.js'
import { CHUNK_BYTES } from '../../src-main/server/store/postgres/pg-archives.js'
import { openPostgresStore, type PostgresStore } from '../../src-main/server/store/postgres/pg-store.js'
import type { GpgKeyRecord } from '../../src-main/server/store/records.js'
import { BY_ORGANIZATION, GPG_KEY, type Store } from '../../src-main/server/store/port.js'
import { eventually } from '../helpers/eventually.js'
import { postgresDatabases } from '../helpers/postgres.js'

/**
 * The store port's contract, the same for every store: the file store and the memory store in the
 * `files` run, PostgreSQL (two replicas on one database, too) in the `postgres` run.
 */
const POSTGRES = process.env.HOMEPORT_TEST_STORE === 'postgres'
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Opens a store of `kind`; `again` opens another on the same data (a restart, or a second replica). */
async function open(kind: string): Promise<{ store: Store; again: () => Promise<Store> }> {
  const track = (store: Store) => {
    cleanups.push(() => store.close())
    return store
  }
  if (kind === 'memory') {
    const store = track(await openMemoryStore())
    return { store, again: () => Promise.resolve(store) }
  }
  if (kind === 'file') {
    // One file store per data directory at a time (its lock): `again` is a restart.
    const dir = await mkdtemp(join(tmpdir(), 'homeport-port-'))
    let current: Store = await openFileStore(dir)
    cleanups.push(async () => {
      await current.close()
      await rm(dir, { recursive: true, force: true })
    })
    return {
      store: current,
      again: async () => {
        await current.close()
        return (current = await openFileStore(dir))
      }
    }
  }
  const url = await database()
  return { store: await replica(url), again: () => replica(url) }
}

/** A PostgreSQL database of the test's own, dropped after it. */
async function database(): Promise<string> {
  const databases = postgresDatabases(inject('postgresUrl'))
  const url = await databases.create()
  cleanups.push(() => databases.drop(url))
  return url
}

/** A replica on `url`, closed after the test (before its database is dropped). */
async function replica(url: string, archiveGraceMs = 0): Promise<PostgresStore> {
  const store = await openPostgresStore(url, { archiveGraceMs })
  cleanups.push(() => store.close())
  return store
}

const key = (id: string, keyId: string, organizationId = 'org-a'): GpgKeyRecord => ({
  id,
  organizationId,
  keyId,
  asciiArmor: '-----BEGIN PGP PUBLIC KEY BLOCK-----',
  createdAt: '2026-11-22T00:00:00.000Z',
  updatedAt: '2026-11-22T00:00:00.000Z'
})

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString()
}

describe.each(POSTGRES ? ['postgres'] : ['memory', 'file'])('the %s store', (kind) => {
  it('keeps records with their unique and group indexes, frozen, through every write', async () => {
    const { store } = await open(kind)
    await store.gpgKeys.create(key('gpg-a', 'AAAA'))
    await store.gpgKeys.create(key('gpg-b', 'BBBB'))
    await expect(store.gpgKeys.create(key('gpg-c', 'AAAA'))).rejects.toBeInstanceOf(UniqueConstraintError)
    await expect(store.gpgKeys.create(key('gpg-a', 'CCCC'))).rejects.toBeInstanceOf(UniqueConstraintError)
    expect((await store.gpgKeys.findBy(GPG_KEY, 'org-a/AAAA'))?.id).toBe('gpg-a')
    expect((await store.gpgKeys.listBy(BY_ORGANIZATION, 'org-a')).map((record) => record.id).sort()).toEqual(['gpg-a', 'gpg-b'])
    const read = (await store.gpgKeys.get('gpg-a'))!
    expect(Object.isFrozen(read)).toBe(true)
    // Many at once, in the order asked for, a missing one as undefined, a repeated one twice.
    const many = await store.gpgKeys.getMany(['gpg-b', 'gpg-none', 'gpg-a', 'gpg-b'])
    expect(many.map((found) => found?.keyId)).toEqual(['BBBB', undefined, 'AAAA', 'BBBB'])
    expect(many.every((found) => found === undefined || Object.isFrozen(found))).toBe(true)
    expect(await store.gpgKeys.getMany([])).toEqual([])

    // A change that breaks a unique key, or throws, writes nothing.
    await expect(store.gpgKeys.update('gpg-b', (draft) => void (draft.keyId = 'AAAA'))).rejects.toBeInstanceOf(UniqueConstraintError)
    await expect(store.gpgKeys.update('gpg-b', () => {
      throw new Error('refused')
    })).rejects.toThrow('refused')
    expect((await store.gpgKeys.get('gpg-b'))?.keyId).toBe('BBBB')
    const { record, result } = await store.gpgKeys.update('gpg-b', (draft) => {
      draft.organizationId = 'org-b'
      return 'moved'
    })
    expect([record.organizationId, result]).toEqual(['org-b', 'moved'])
    expect((await store.gpgKeys.listBy(BY_ORGANIZATION, 'org-b')).map((found) => found.id)).toEqual(['gpg-b'])
    expect(await store.gpgKeys.listBy(BY_ORGANIZATION, 'org-a')).toHaveLength(1)
    await expect(store.gpgKeys.update('gpg-none', () => undefined)).rejects.toBeInstanceOf(RecordMissingError)

    await store.gpgKeys.upsert('gpg-c', () => key('gpg-c', 'CCCC'), (draft) => void (draft.asciiArmor = 'first'))
    await store.gpgKeys.upsert('gpg-c', () => key('gpg-c', 'DDDD'), (draft) => void (draft.asciiArmor = 'second'))
    expect(await store.gpgKeys.get('gpg-c')).toMatchObject({ keyId: 'CCCC', asciiArmor: 'second' })
    expect(await store.gpgKeys.deleteWhere('gpg-c', (found) => found.asciiArmor === 'first')).toBe(false)
    expect(await store.gpgKeys.deleteWhere('gpg-c', (found) => found.asciiArmor === 'second')).toBe(true)
    await store.gpgKeys.delete('gpg-a')
    expect(await store.gpgKeys.findBy(GPG_KEY, 'org-a/AAAA')).toBeUndefined()
    expect((await store.gpgKeys.all()).map((found) => found.id)).toEqual(['gpg-b'])
  })

  it('tells who listens of every write once stored, by the id written', async () => {
    const { store } = await open(kind)
    const heard: Array<string | undefined> = []
    const stop = store.gpgKeys.onChange((id) => heard.push(id))
    await store.gpgKeys.create(key('gpg-a', 'AAAA'))
    await store.gpgKeys.update('gpg-a', (draft) => void (draft.asciiArmor = 'changed'))
    await store.gpgKeys.upsert('gpg-b', () => key('gpg-b', 'BBBB'), () => undefined)
    await expect(store.gpgKeys.update('gpg-a', () => {
      throw new Error('refused')
    })).rejects.toThrow('refused')
    await store.gpgKeys.delete('gpg-b')
    // A listener that fails does not fail the write, nor keep the others from hearing.
    const failing = store.gpgKeys.onChange(() => {
      throw new Error('a listener fails')
    })
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      await store.gpgKeys.deleteWhere('gpg-a', () => true)
      expect(log).toHaveBeenCalledWith(expect.stringContaining('a listener fails'))
    } finally {
      log.mockRestore()
      failing()
    }
    stop()
    await store.gpgKeys.create(key('gpg-c', 'CCCC'))
    // PostgreSQL tells of the refused update too (a write that failed may yet have committed): a listener reads it again for nothing.
    const refused = kind === 'postgres' ? ['gpg-a'] : []
    expect(heard).toEqual(['gpg-a', 'gpg-a', 'gpg-b', ...refused, 'gpg-b', 'gpg-a'])
  })

  it('reads a pass over every record as getMany does, and the file store keeps none it had not read (the start on saved indexes stays lazy)', async () => {
    const { store, again } = await open(kind)
    // Key ids as a start checks them: 16 hexadecimal digits.
    await store.gpgKeys.create(key('gpg-a', 'AAAAAAAAAAAAAAAA'))
    await store.gpgKeys.create(key('gpg-b', 'BBBBBBBBBBBBBBBB'))
    const reopened = await again()
    expect((await reopened.gpgKeys.scanMany(['gpg-b', 'gpg-none', 'gpg-a'])).map((found) => found?.keyId)).toEqual(['BBBBBBBBBBBBBBBB', undefined, 'AAAAAAAAAAAAAAAA'])
    if (kind !== 'file') return
    // Not kept: a file damaged after the pass is what the next read finds.
    await writeFile(join((reopened as FileStore).dataDir, 'gpg-keys', 'gpg-a.json'), '{"schemaVersion": 1, "record": ')
    await expect((async () => reopened.gpgKeys.get('gpg-a'))()).rejects.toThrow(/gpg-a\.json/)
  })

  it('says which records and groups exist without reading them', async () => {
    const { store } = await open(kind)
    await store.gpgKeys.create(key('gpg-a', 'AAAA'))
    await store.gpgKeys.create(key('gpg-b', 'BBBB', 'org-b'))
    expect((await store.gpgKeys.ids()).sort()).toEqual(['gpg-a', 'gpg-b'])
    expect((await store.gpgKeys.groupKeys(BY_ORGANIZATION)).sort()).toEqual(['org-a', 'org-b'])
    await store.gpgKeys.create(key('gpg-c', 'CCCC', 'org-b'))
    expect(await store.gpgKeys.groupSizes(BY_ORGANIZATION, ['org-b', 'org-z', 'org-a'])).toEqual(new Map([['org-b', 2], ['org-z', 0], ['org-a', 1]]))
    expect(await store.gpgKeys.groupSizes(BY_ORGANIZATION, [])).toEqual(new Map())
    await store.gpgKeys.delete('gpg-c')
    await store.gpgKeys.delete('gpg-b')
    expect(await store.gpgKeys.ids()).toEqual(['gpg-a'])
    expect(await store.gpgKeys.groupSizes(BY_ORGANIZATION, ['org-b'])).toEqual(new Map([['org-b', 0]]))
    expect(await store.gpgKeys.groupKeys(BY_ORGANIZATION)).toEqual(['org-a'])
  })

  it('keeps archives by content, streamed in and out, in whole or in part', async () => {
    const { store } = await open(kind)
    // Larger than a PostgreSQL chunk, so reads and ranges cross chunks.
    const content = Array.from({ length: CHUNK_BYTES * 2 + 10 }, (_, index) => String.fromCharCode(97 + (index % 26))).join('')
    const stored = await store.archives.put(Readable.from([Buffer.from(content.slice(0, 1000)), Buffer.from(content.slice(1000))]), content.length)
    expect(stored.size).toBe(content.length)
    expect(await store.archives.put(Readable.from([Buffer.from(content)]), content.length)).toEqual(stored)
    expect(await text(store.archives.read(stored.sha256))).toBe(content)
    const start = CHUNK_BYTES - 5
    expect(await text(store.archives.read(stored.sha256, { start, end: start + 9 }))).toBe(content.slice(start, start + 10))
    await expect(store.archives.put(Readable.from([Buffer.from(content)]), 100)).rejects.toThrow(/larger than|at most/)
    await store.archives.writeDocs(stored.sha256, { description: 'docs' })
    expect(await store.archives.readDocs(stored.sha256)).toEqual({ description: 'docs' })
    const other = await store.archives.put(Readable.from([Buffer.from('another archive')]), 100)
    await store.archives.writeDocs(other.sha256, { description: 'other docs' })
    // Many at once, in the order asked for; none for an archive without docs, or no archive.
    expect(await store.archives.readManyDocs([other.sha256, 'f'.repeat(64), stored.sha256])).toEqual([{ description: 'other docs' }, undefined, { description: 'docs' }])
    expect(await store.archives.readManyDocs([])).toEqual([])
    if (kind === 'file') {
      // A damaged file is its SyntaxError, in its place, and the rest are read.
      await writeFile(join((store as FileStore).dataDir, 'archives', other.sha256.slice(0, 2), `${other.sha256}.docs.json`), '{"description": "cut')
      const [damaged, docs] = await store.archives.readManyDocs([other.sha256, stored.sha256])
      expect(damaged).toBeInstanceOf(SyntaxError)
      expect(docs).toEqual({ description: 'docs' })
    }
    await store.archives.delete(other.sha256)
    expect(await store.archives.list()).toEqual([stored.sha256])
    await store.archives.delete(stored.sha256)
    expect(await store.archives.list()).toEqual([])
    await expect(text(store.archives.read(stored.sha256))).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('loses no update and lets one of many duplicate creates win, under concurrent writers', async () => {
    const { store, again } = await open(kind)
    // For PostgreSQL, a second replica on the same database writes too.
    const other = kind === 'postgres' ? await again() : store
    await store.gpgKeys.create(key('gpg-count', 'COUNT'))
    const writers = Array.from({ length: 50 }, (_, index) =>
      (index % 2 ? other : store).gpgKeys.update('gpg-count', (draft) => void (draft.asciiArmor = String(Number(draft.asciiArmor.replace(/\D/g, '') || 0) + 1)))
    )
    await Promise.all(writers)
    expect((await store.gpgKeys.get('gpg-count'))?.asciiArmor).toBe('50')
    const creates = await Promise.allSettled(Array.from({ length: 20 }, (_, index) => (index % 2 ? other : store).gpgKeys.create(key(`gpg-dup${index}`, 'SAME'))))
    expect(creates.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
    expect(creates.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected').every((outcome) => outcome.reason instanceof UniqueConstraintError)).toBe(true)
  })

  it('keeps the installation record and its changes across a restart', async () => {
    const { store, again } = await open(kind)
    const before = store.installation()
    const revision = store.revision()
    await store.updateInstallation((draft) => void (draft.costEstimationEnabled = true))
    // Answers computed before the write are known to be stale.
    expect(store.revision()).toBeGreaterThan(revision)
    const reopened = await again()
    expect(reopened.installation()).toMatchObject({ installationId: before.installationId, signingKey: before.signingKey, costEstimationEnabled: true })
  })

  it('grants its holder a lease, renews it, releases it, and grants it again', async () => {
    const { store } = await open(kind)
    expect(await store.leases.acquire('git-poll', 60_000)).toBe(true)
    expect(await store.leases.acquire('git-poll', 60_000)).toBe(true) // a renewal
    expect(await store.leases.acquire('archive-sweep', 60_000)).toBe(true) // jobs are leased apart
    await store.leases.release('git-poll')
    await store.leases.release('git-poll') // releasing what is not held is no error
    expect(await store.leases.acquire('git-poll', 60_000)).toBe(true)
  })

  // A second owner: another replica on the same database; for the file store, another Homeport on
  // the same data directory, which its lock refuses whole (so one process holds every lease). The
  // memory store lives in one process: no second owner can exist.
  it.skipIf(kind === 'memory')('refuses a second owner while a lease is held, and lets it take over once expired or released', async () => {
    const { store, again } = await open(kind)
    if (kind === 'file') {
      await expect(openFileStore((store as FileStore).dataDir)).rejects.toThrow(/already|in use|lock/i)
      return
    }
    const replica = await again()
    expect(await store.leases.acquire('git-poll', 60_000)).toBe(true)
    expect(await replica.leases.acquire('git-poll', 60_000)).toBe(false)
    await replica.leases.release('git-poll') // not its to give up
    expect(await replica.leases.acquire('git-poll', 60_000)).toBe(false)
    await store.leases.release('git-poll')
    expect(await replica.leases.acquire('git-poll', 60_000)).toBe(true)
    // A lease its holder stopped renewing (here: held for no time at all) is free to take over.
    expect(await replica.leases.acquire('ingest:v1', 0)).toBe(true)
    expect(await store.leases.acquire('ingest:v1', 60_000)).toBe(true)
    expect(await replica.leases.acquire('ingest:v1', 60_000)).toBe(false)
  })
})

describe.skipIf(!POSTGRES)(`a replica whose connection to the database drops${POSTGRES ? '' : ' (skipped: PostgreSQL only, in the postgres run)'}`, () => {
  it('listens again for the other replicas’ writes, and takes what it computed meanwhile as stale', async () => {
    const url = await database()
    const [one, two] = [await replica(url), await replica(url)]
    // A group read kept before the drop.
    expect(await one.gpgKeys.listBy(BY_ORGANIZATION, 'org-a')).toEqual([])
    // The connections that LISTEN are cut, as a database restart or a network failure would.
    await one.pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()")
    const before = one.revision()
    // Within a bounded time (the first try is a second after the drop), it hears a write of the other again.
    let heard = false
    for (let attempt = 0; attempt < 100 && !heard; attempt++) {
      await two.gpgKeys.create(key(`gpg-${attempt}`, `K${attempt}`))
      await new Promise((resolve) => setTimeout(resolve, 100))
      heard = one.revision() > before + 1
    }
    expect(heard).toBe(true)
    // What was kept before is not what it reads now: every key the other wrote, heard or not.
    const written = (await two.gpgKeys.listBy(BY_ORGANIZATION, 'org-a')).map((record) => record.id)
    expect((await one.gpgKeys.listBy(BY_ORGANIZATION, 'org-a')).map((record) => record.id)).toEqual(written)
  })
})

describe.skipIf(!POSTGRES)(`a replica’s group reads${POSTGRES ? '' : ' (skipped: PostgreSQL only, in the postgres run)'}`, () => {
  it('are kept until the collection is written, and a write through another replica is read at once', async () => {
    const url = await database()
    const [one, two] = [await replica(url), await replica(url)]
    const ids = async (store: PostgresStore) => (await store.gpgKeys.listBy(BY_ORGANIZATION, 'org-a')).map((record) => record.id)
    const before = one.revision()
    await one.gpgKeys.create(key('gpg-a', 'AAAA'))
    expect(await ids(one)).toEqual(['gpg-a'])
    // Read again from what was kept: one query, of where the collection's changes sequence is.
    const queries = vi.spyOn(one.pool, 'query')
    const kept = await one.gpgKeys.listBy(BY_ORGANIZATION, 'org-a')
    expect(queries.mock.calls.map((call) => String(call[0]))).toEqual(['SELECT last_value, is_called FROM hp_gpg_keys_changes'])
    queries.mockRestore()
    // Each read is the caller's own list: changing it changes nothing kept.
    kept.pop()
    expect(await ids(one)).toEqual(['gpg-a'])

    // This replica's own write is read at once.
    await one.gpgKeys.create(key('gpg-b', 'BBBB'))
    expect(await ids(one)).toEqual(['gpg-a', 'gpg-b'])
    await one.gpgKeys.update('gpg-b', (draft) => void (draft.organizationId = 'org-b'))
    expect(await ids(one)).toEqual(['gpg-a'])
    // And another replica's, at once: its write moved the sequence before it was answered.
    await two.gpgKeys.create(key('gpg-c', 'CCCC'))
    expect(await ids(one)).toEqual(['gpg-a', 'gpg-c'])
    await two.gpgKeys.delete('gpg-a')
    expect(await ids(one)).toEqual(['gpg-c'])

    // What decides is the sequence, not the NOTIFY, which may come later: a record written as a
    // replica writes it, but with neither, is not read (what was kept answers), and is once the
    // sequence moves. The other replica's two NOTIFYs heard first, and the group read after them, kept.
    await eventually(() => expect(one.revision()).toBe(before + 2))
    expect(await ids(one)).toEqual(['gpg-c'])
    const record = key('gpg-d', 'DDDD')
    await two.pool.query("INSERT INTO hp_gpg_keys (id, schema_version, record) VALUES ($1, 1, $2)", [record.id, record])
    await two.pool.query("INSERT INTO hp_groups (collection, grp, key, id) VALUES ('gpg-keys', $1, 'org-a', $2)", [BY_ORGANIZATION, record.id])
    expect(await ids(one)).toEqual(['gpg-c'])
    await two.pool.query("SELECT nextval('hp_gpg_keys_changes')")
    expect(await ids(one)).toEqual(['gpg-c', 'gpg-d'])
  })
})

describe.skipIf(!POSTGRES)(`a replica’s reads of records by id${POSTGRES ? '' : ' (skipped: PostgreSQL only, in the postgres run)'}`, () => {
  it('are kept until the collection is written, and a write through another replica is read at once; a pass over every record keeps nothing', async () => {
    const url = await database()
    const [one, two] = [await replica(url), await replica(url)]
    const armors = async (ids: string[]) => (await one.gpgKeys.getMany(ids)).map((record) => record?.asciiArmor)
    await one.gpgKeys.create(key('gpg-a', 'AAAA'))
    await one.gpgKeys.create(key('gpg-b', 'BBBB'))
    const before = await armors(['gpg-b', 'gpg-none', 'gpg-a'])
    expect(before).toHaveLength(3)
    expect(before[1]).toBeUndefined()
    // Read again from what was kept: one query, of where the collection's changes sequence is.
    const queries = vi.spyOn(one.pool, 'query')
    expect(await armors(['gpg-a', 'gpg-b'])).toEqual([before[2], before[0]])
    expect(queries.mock.calls.map((call) => String(call[0]))).toEqual(['SELECT last_value, is_called FROM hp_gpg_keys_changes'])
    queries.mockClear()
    // What scanMany reads is neither kept nor answered from what was.
    await one.gpgKeys.scanMany(['gpg-a'])
    expect(queries.mock.calls.map((call) => String(call[0]))).toEqual([expect.stringContaining('SELECT id, record FROM hp_gpg_keys')])
    queries.mockRestore()
    // Another replica's write, at once: its write moved the sequence before it was answered.
    await two.gpgKeys.update('gpg-a', (draft) => void (draft.asciiArmor = 'changed through two'))
    expect((await armors(['gpg-a', 'gpg-b']))[0]).toBe('changed through two')
    await two.gpgKeys.delete('gpg-b')
    expect(await armors(['gpg-a', 'gpg-b'])).toEqual(['changed through two', undefined])
    // This replica's own, at once.
    await one.gpgKeys.update('gpg-a', (draft) => void (draft.asciiArmor = 'changed through one'))
    expect(await armors(['gpg-a'])).toEqual(['changed through one'])
  })
})

describe.skipIf(!POSTGRES)(`a replica’s listeners${POSTGRES ? '' : ' (skipped: PostgreSQL only, in the postgres run)'}`, () => {
  it('hear the other replicas’ writes by id, and of writes that may have gone unheard when the connection that hears them is back', async () => {
    const url = await database()
    const [one, two] = [await replica(url), await replica(url)]
    const heard: Array<string | undefined> = []
    one.gpgKeys.onChange((id) => heard.push(id))
    await two.gpgKeys.create(key('gpg-far', 'FAR1'))
    await two.gpgKeys.delete('gpg-far')
    await eventually(() => expect(heard).toEqual(['gpg-far', 'gpg-far']))
    await one.pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()")
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      await eventually(() => expect(heard).toContain(undefined))
    } finally {
      log.mockRestore()
    }
  })
})

describe.skipIf(!POSTGRES)(`a replica’s catch-up${POSTGRES ? '' : ' (skipped: PostgreSQL only, in the postgres run)'}`, () => {
  it('has heard every write another replica answered before it, and its pings are no write to the others', async () => {
    const url = await database()
    const [one, two] = [await replica(url), await replica(url)]
    const heard: Array<string | undefined> = []
    one.gpgKeys.onChange((id) => heard.push(id))
    for (const id of ['gpg-1', 'gpg-2', 'gpg-3']) {
      await two.gpgKeys.create(key(id, id.toUpperCase()))
      // No waiting but the catch-up's own: the write's NOTIFY has been handled when it resolves.
      await one.caughtUp()
      expect(heard.at(-1)).toBe(id)
    }
    const revision = two.revision()
    const twoHeard: Array<string | undefined> = []
    two.gpgKeys.onChange((id) => twoHeard.push(id))
    await Promise.all([one.caughtUp(), one.caughtUp(), two.caughtUp()])
    expect(two.revision()).toBe(revision)
    expect(twoHeard).toEqual([])
  })
})

describe.skipIf(!POSTGRES)(`a replica’s own writes${POSTGRES ? '' : ' (skipped: PostgreSQL only, in the postgres run)'}`, () => {
  it('move its revision once: their NOTIFY, which comes back to it as to the others, does not move it again later', async () => {
    const url = await database()
    const [one, two] = [await replica(url), await replica(url)]
    const before = one.revision()
    await one.gpgKeys.create(key('gpg-own', 'OWN1'))
    await one.updateInstallation((draft) => void (draft.costEstimationEnabled = true))
    const written = one.revision()
    expect(written).toBeGreaterThan(before)
    // The other replica's write, after: NOTIFYs arrive in the order their transactions committed, so
    // once this one is heard (the installation read again), this replica's own two have come back too.
    await two.updateInstallation((draft) => void (draft.costEstimationEnabled = false))
    await eventually(() => expect(one.installation().costEstimationEnabled).toBe(false))
    expect(one.revision()).toBe(written + 1)
  })
})

describe.skipIf(!POSTGRES)(`archives shared by replicas${POSTGRES ? '' : ' (skipped: PostgreSQL only, in the postgres run)'}`, () => {
  it('keeps an archive stored again within the grace period, which another replica may be about to record', async () => {
    const store = await replica(await database(), 60_000)
    const stored = await store.archives.put(Readable.from([Buffer.from('shared content')]), 1000)
    await store.archives.delete(stored.sha256)
    expect(await store.archives.list()).toEqual([stored.sha256])
    expect(await text(store.archives.read(stored.sha256))).toBe('shared content')
    // Stored long enough ago: it goes.
    await store.pool.query("UPDATE hp_archives SET stored_at = now() - interval '2 minutes'")
    await store.archives.delete(stored.sha256)
    expect(await store.archives.list()).toEqual([])
    await expect(text(store.archives.read(stored.sha256))).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe.skipIf(!POSTGRES)(`indexes a newer Homeport adds${POSTGRES ? '' : ' (skipped: PostgreSQL only, in the postgres run)'}`, () => {
  it('writes every record’s keys for an index the tables do not have yet, page by page, at start', async () => {
    const { store, again } = await open('postgres')
    const pool = (store as PostgresStore).pool
    // More records than one page of the rewrite, in two organizations.
    const ids = Array.from({ length: 1_050 }, (_, at) => String(at).padStart(4, '0'))
    for (let at = 0; at < ids.length; at += 50) {
      await Promise.all(ids.slice(at, at + 50).map((id) => store.gpgKeys.create(key(`gpg-${id}`, `K${id}`, Number(id) % 2 ? 'org-b' : 'org-a'))))
    }
    // As an older Homeport left them: no keys for the group, and a layout without it.
    await pool.query("DELETE FROM hp_groups WHERE collection = 'gpg-keys'")
    await pool.query("UPDATE hp_meta SET value = $1 WHERE key = 'indexes:gpg-keys'", [JSON.stringify({ unique: [GPG_KEY], groups: [] })])
    expect(await store.gpgKeys.listBy(BY_ORGANIZATION, 'org-a')).toEqual([])

    const upgraded = await again()
    expect((await upgraded.gpgKeys.listBy(BY_ORGANIZATION, 'org-a')).map((record) => record.id)).toEqual(ids.filter((id) => Number(id) % 2 === 0).map((id) => `gpg-${id}`))
    expect(await upgraded.gpgKeys.listBy(BY_ORGANIZATION, 'org-b')).toHaveLength(525)
    expect((await upgraded.gpgKeys.findBy(GPG_KEY, 'org-b/K1049'))?.id).toBe('gpg-1049')
    await expect(upgraded.gpgKeys.create(key('gpg-again', 'K0000'))).rejects.toBeInstanceOf(UniqueConstraintError)
    // Once written, a start with the same indexes does not write them again (a row taken away stays away).
    await pool.query("DELETE FROM hp_groups WHERE collection = 'gpg-keys' AND id = 'gpg-0000'")
    const restarted = await again()
    expect((await restarted.gpgKeys.listBy(BY_ORGANIZATION, 'org-a')).map((record) => record.id)).not.toContain('gpg-0000')
  })
})
