import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mkdtemp, readFile, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RecordFiles, SAVED_INDEXES_FILE } from '../../src-main/server/store/file/record-files.js'
import type { SavedIndexes } from '../../src-main/server/store/engine/record-backend.js'
import { Collection } from '../../src-main/server/store/engine/collection.js'
import { StoreLoadError, UniqueConstraintError } from '../../src-main/server/store/errors.js'

interface Thing {
  id: string
  name: string
  tags: string[]
  group: string
}

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'homeport-collection-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function things(options: Partial<ConstructorParameters<typeof Collection<Thing>>[2]> = {}, backend = new RecordFiles(dir)) {
  return new Collection<Thing>('things', backend, {
    schema: { version: 1, migrations: {} },
    unique: { name: (t) => t.name.toLowerCase(), tag: (t) => t.tags },
    groups: { group: (t) => t.group },
    ...options
  })
}

describe('Collection', () => {
  it('writes one file per record and reads them back after a restart', async () => {
    const first = things()
    await first.load()
    await first.create({ id: 'thing-a', name: 'A', tags: ['x'], group: 'g' })
    await first.create({ id: 'thing-b', name: 'B', tags: [], group: 'g' })
    await first.update('thing-a', (draft) => {
      draft.name = 'A2'
    })
    expect((await readdir(dir)).sort()).toEqual(['thing-a.json', 'thing-b.json'])
    const file = JSON.parse(await readFile(join(dir, 'thing-a.json'), 'utf8')) as { schemaVersion: number; record: Thing }
    expect(file.schemaVersion).toBe(1)
    expect(file.record.name).toBe('A2')

    const second = things()
    await second.load()
    expect(await second.get('thing-a')).toEqual({ id: 'thing-a', name: 'A2', tags: ['x'], group: 'g' })
    expect((await second.findBy('name', 'a2'))?.id).toBe('thing-a')
    expect((await second.findBy('tag', 'x'))?.id).toBe('thing-a')
    expect((await second.listBy('group', 'g')).map((t) => t.id).sort()).toEqual(['thing-a', 'thing-b'])
  })

  it('enforces unique indexes on create and update, and keeps indexes current', async () => {
    const collection = things()
    await collection.load()
    await collection.create({ id: 'thing-a', name: 'A', tags: ['x'], group: 'g' })
    await expect(collection.create({ id: 'thing-b', name: 'a', tags: [], group: 'g' })).rejects.toBeInstanceOf(UniqueConstraintError)
    await expect(collection.create({ id: 'thing-c', name: 'C', tags: ['x'], group: 'g' })).rejects.toBeInstanceOf(UniqueConstraintError)
    await collection.create({ id: 'thing-d', name: 'D', tags: [], group: 'h' })
    await expect(
      collection.update('thing-d', (draft) => {
        draft.name = 'A'
      })
    ).rejects.toBeInstanceOf(UniqueConstraintError)
    await collection.update('thing-a', (draft) => {
      draft.name = 'Z'
      draft.tags = ['y']
      draft.group = 'h'
    })
    expect(await collection.findBy('name', 'a')).toBeUndefined()
    expect(await collection.findBy('tag', 'x')).toBeUndefined()
    expect((await collection.listBy('group', 'g')).length).toBe(0)
    expect((await collection.listBy('group', 'h')).length).toBe(2)
    await collection.delete('thing-a')
    expect(await collection.findBy('name', 'z')).toBeUndefined()
    expect(await readdir(dir)).toEqual(['thing-d.json'])
  })

  it('serializes read-check-write updates so none is lost', async () => {
    const collection = things()
    await collection.load()
    await collection.create({ id: 'thing-a', name: 'A', tags: [], group: 'g' })
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        collection.update('thing-a', (draft) => {
          draft.tags.push(`t${i}`)
        })
      )
    )
    expect((await collection.get('thing-a'))?.tags).toHaveLength(50)
    const reloaded = things()
    await reloaded.load()
    expect((await reloaded.get('thing-a'))?.tags).toHaveLength(50)
  })

  it('changes nothing, on disk or in memory, when the change throws or the write fails', async () => {
    const collection = things()
    await collection.load()
    await collection.create({ id: 'thing-a', name: 'A', tags: [], group: 'g' })
    await expect(
      collection.update('thing-a', (draft) => {
        draft.name = 'changed'
        throw new Error('rule broken')
      })
    ).rejects.toThrow('rule broken')
    expect((await collection.get('thing-a'))?.name).toBe('A')

    // Take the folder away: the write fails, and the record must stay as it was.
    await rm(dir, { recursive: true })
    await expect(
      collection.update('thing-a', (draft) => {
        draft.name = 'lost'
      })
    ).rejects.toThrow()
    expect((await collection.get('thing-a'))?.name).toBe('A')
    expect(await collection.findBy('name', 'lost')).toBeUndefined()
  })

  it('removes temporary files left by an interrupted write', async () => {
    await writeFile(join(dir, '.thing-a.json.0a1b2c.partial'), '{"schemaVersion":1,"rec')
    const collection = things()
    await collection.load()
    expect(await readdir(dir)).toEqual([])
  })

  it('refuses to start on a file it cannot parse, names it, and leaves it alone', async () => {
    const path = join(dir, 'thing-a.json')
    await writeFile(path, '{"schemaVersion":1,"record":{"id":"thing-a"')
    const error = await things()
      .load()
      .then(() => undefined, (caught: unknown) => caught)
    expect(error).toBeInstanceOf(StoreLoadError)
    expect((error as StoreLoadError).path).toBe(path)
    expect((error as Error).message).toContain(path)
    expect((error as Error).message).toMatch(/restore/i)
    expect(await readFile(path, 'utf8')).toBe('{"schemaVersion":1,"record":{"id":"thing-a"')
  })

  it('refuses files from a newer schema and files whose id does not match their name', async () => {
    await writeFile(join(dir, 'thing-a.json'), JSON.stringify({ schemaVersion: 9, record: { id: 'thing-a' } }))
    await expect(things().load()).rejects.toThrow(/newer Homeport/)
    await writeFile(join(dir, 'thing-a.json'), JSON.stringify({ schemaVersion: 1, record: { id: 'thing-b' } }))
    await expect(things().load()).rejects.toThrow(/does not match/)
  })

  it('migrates records written by an older schema, and saves them upgraded', async () => {
    await writeFile(join(dir, 'thing-a.json'), JSON.stringify({ schemaVersion: 1, record: { id: 'thing-a', title: 'Old' } }))
    const collection = things({
      schema: { version: 2, migrations: { 1: ({ title, ...rest }) => ({ ...rest, name: title, tags: [], group: 'migrated' }) } }
    })
    await collection.load()
    expect(await collection.get('thing-a')).toEqual({ id: 'thing-a', name: 'Old', tags: [], group: 'migrated' })
    const file = JSON.parse(await readFile(join(dir, 'thing-a.json'), 'utf8')) as { schemaVersion: number }
    expect(file.schemaVersion).toBe(2)
    await expect(things({ schema: { version: 3, migrations: {} } }).load()).rejects.toThrow(/no migration from schema 2/)
  })
})

describe('a start after a clean close', () => {
  /** Three things saved, and their indexes saved as a clean close saves them. */
  async function closedCleanly(): Promise<void> {
    const first = things()
    await first.load()
    await first.create({ id: 'thing-a', name: 'A', tags: ['x'], group: 'g' })
    await first.create({ id: 'thing-b', name: 'B', tags: ['y'], group: 'g' })
    await first.create({ id: 'thing-c', name: 'C', tags: [], group: 'h' })
    await first.saveIndexes()
  }

  /** A collection over the folder, and how its files were read: all at the start, or one by one. */
  async function reopened(options: Parameters<typeof things>[0] = {}) {
    const backend = new RecordFiles(dir)
    const readAll = vi.spyOn(backend, 'readAll')
    const read = vi.spyOn(backend, 'read')
    const collection = things(options, backend)
    await collection.load()
    return { collection, readEverything: readAll.mock.calls.length > 0, read }
  }

  it('takes the saved indexes and reads each record when it is asked for, through every read and write', async () => {
    await closedCleanly()
    const { collection: second, readEverything, read } = await reopened()
    expect(readEverything).toBe(false)
    expect(read).not.toHaveBeenCalled()
    expect(second.size).toBe(3)
    expect((await second.ids()).sort()).toEqual(['thing-a', 'thing-b', 'thing-c'])
    expect((await second.findBy('tag', 'x'))?.id).toBe('thing-a')
    expect((await second.listBy('group', 'g')).map((t) => t.id).sort()).toEqual(['thing-a', 'thing-b'])
    expect(Object.isFrozen(await second.get('thing-b'))).toBe(true)
    expect(read.mock.calls.map(([name]) => name).sort()).toEqual(['thing-a.json', 'thing-b.json'])
    // Unique keys of records not read yet still hold.
    await expect(second.create({ id: 'thing-d', name: 'c', tags: [], group: 'h' })).rejects.toBeInstanceOf(UniqueConstraintError)
    await expect(second.create({ id: 'thing-c', name: 'D', tags: [], group: 'h' })).rejects.toBeInstanceOf(UniqueConstraintError)
    await second.update('thing-c', (draft) => void (draft.name = 'C2'))
    expect(await second.findBy('name', 'c')).toBeUndefined()
    expect((await second.findBy('name', 'c2'))?.id).toBe('thing-c')

    await second.saveIndexes()
    const { collection: third, readEverything: again } = await reopened()
    expect(again).toBe(false)
    await third.delete('thing-b')
    expect(await third.findBy('tag', 'y')).toBeUndefined()
    expect((await third.all()).map((t) => t.name).sort()).toEqual(['A', 'C2'])
  })

  it('reads every record instead when any record file changed, was added or removed, or a write was cut short', async () => {
    const renamed = async () => {
      const file = JSON.parse(await readFile(join(dir, 'thing-a.json'), 'utf8')) as { record: Thing }
      file.record.name = 'Renamed while stopped'
      await writeFile(join(dir, 'thing-a.json'), JSON.stringify(file))
    }
    const added = () => writeFile(join(dir, 'thing-z.json'), JSON.stringify({ schemaVersion: 1, record: { id: 'thing-z', name: 'Z', tags: [], group: 'h' } }))
    const removed = () => unlink(join(dir, 'thing-c.json'))
    const cutShort = () => writeFile(join(dir, 'thing-q.json.partial'), '{"schemaVe')
    const cases: Array<[() => Promise<unknown>, (collection: Collection<Thing>) => Promise<void>]> = [
      [renamed, async (c) => expect((await c.findBy('name', 'renamed while stopped'))?.id).toBe('thing-a')],
      [added, async (c) => expect((await c.findBy('name', 'z'))?.id).toBe('thing-z')],
      [removed, async (c) => expect([c.size, await c.findBy('name', 'c')]).toEqual([2, undefined])],
      [cutShort, async (c) => expect([c.size, (await readdir(dir)).some((name) => name.endsWith('.partial'))]).toEqual([3, false])]
    ]
    for (const [change, check] of cases) {
      await rm(dir, { recursive: true, force: true })
      await closedCleanly()
      await change()
      const { collection, readEverything } = await reopened()
      expect(readEverything).toBe(true)
      await check(collection)
    }
  })

  it('reads every record when the indexes were saved by other index rules, or their file is damaged', async () => {
    await closedCleanly()
    const otherRules = await reopened({ unique: { name: (t) => t.name.toLowerCase() }, groups: { group: (t) => `${t.group}!` } })
    expect(otherRules.readEverything).toBe(true)
    expect((await otherRules.collection.listBy('group', 'g!')).map((t) => t.id).sort()).toEqual(['thing-a', 'thing-b'])

    await writeFile(join(dir, SAVED_INDEXES_FILE), '{"files": [')
    const damaged = await reopened()
    expect(damaged.readEverything).toBe(true)
    expect((await damaged.collection.findBy('tag', 'y'))?.id).toBe('thing-b')
  })

  it('names each record by its place among the saved ids, and reads every record when the indexes name one otherwise (as an earlier Homeport saved them)', async () => {
    await closedCleanly()
    const saved = JSON.parse(await readFile(join(dir, SAVED_INDEXES_FILE), 'utf8')) as { indexes: SavedIndexes }
    expect(saved.indexes.unique.tag).toEqual([['x', saved.indexes.ids.indexOf('thing-a')], ['y', saved.indexes.ids.indexOf('thing-b')]])
    const { collection, readEverything } = await reopened()
    expect(readEverything).toBe(false)
    expect((await collection.findBy('name', 'a'))?.id).toBe('thing-a')

    const { ids } = saved.indexes
    const byId = { ...saved.indexes, unique: Object.fromEntries(Object.entries(saved.indexes.unique).map(([index, entries]) => [index, entries.map(([key, at]) => [key, ids[at]])])) }
    await writeFile(join(dir, SAVED_INDEXES_FILE), JSON.stringify({ ...saved, indexes: byId }))
    const earlier = await reopened()
    expect(earlier.readEverything).toBe(true)
    expect((await earlier.collection.findBy('tag', 'x'))?.id).toBe('thing-a')
    expect((await earlier.collection.listBy('group', 'g')).map((t) => t.id).sort()).toEqual(['thing-a', 'thing-b'])
  })

  it('saves them again at a close only when something was written since', async () => {
    await closedCleanly()
    const savedFile = async () => (await stat(join(dir, SAVED_INDEXES_FILE))).ino
    const before = await savedFile()
    const { collection: unchanged } = await reopened()
    await unchanged.get('thing-a')
    await unchanged.saveIndexes()
    expect(await savedFile()).toBe(before)
    const { collection: written } = await reopened()
    await written.update('thing-b', (draft) => void (draft.name = 'B2'))
    await written.saveIndexes()
    expect(await savedFile()).not.toBe(before)
    const { collection: after, readEverything } = await reopened()
    expect(readEverything).toBe(false)
    expect((await after.findBy('name', 'b2'))?.id).toBe('thing-b')
  })

  it('leaves the saved indexes out of what it lists as records', async () => {
    await closedCleanly()
    expect((await readdir(dir)).sort()).toEqual(['indexes.saved', 'thing-a.json', 'thing-b.json', 'thing-c.json'])
  })
})
