import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mkdtemp, readFile, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RecordFiles, SAVED_INDEXES_FOLDER } from '../../src-main/server/store/file/record-files.js'
import { SAVED_INDEXES_FILE, SavedIndexFile } from '../../src-main/server/store/file/saved-index-file.js'
import { Collection } from '../../src-main/server/store/engine/collection.js'
import { AtomicJsonFile } from '../../src-main/server/store/file/atomic-json-file.js'
import { RecordMemory } from '../../src-main/server/store/memory/record-memory.js'
import type { RecordBackend } from '../../src-main/server/store/engine/record-backend.js'
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

function things(options: Partial<ConstructorParameters<typeof Collection<Thing>>[2]> = {}, backend: RecordBackend = new RecordFiles(dir)) {
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
  const savedFile = () => join(dir, SAVED_INDEXES_FOLDER, SAVED_INDEXES_FILE)

  /** Three things saved, and their indexes saved as a clean close saves them. */
  async function closedCleanly(): Promise<void> {
    const first = things()
    await first.load()
    await first.create({ id: 'thing-a', name: 'A', tags: ['x'], group: 'g' })
    await first.create({ id: 'thing-b', name: 'B', tags: ['y'], group: 'g' })
    await first.create({ id: 'thing-c', name: 'C', tags: [], group: 'h' })
    await first.saveIndexes()
  }

  /** A collection over the folder, and how it read: every file at the start, or records and indexes one by one. */
  async function reopened(options: Parameters<typeof things>[0] = {}) {
    vi.restoreAllMocks()
    const backend = new RecordFiles(dir)
    const readAll = vi.spyOn(backend, 'readAll')
    const read = vi.spyOn(backend, 'readNow')
    const sections = [vi.spyOn(SavedIndexFile.prototype, 'unique'), vi.spyOn(SavedIndexFile.prototype, 'group')]
    const collection = things(options, backend)
    await collection.load()
    const indexesMade = () => sections.flatMap((spy) => spy.mock.calls.map(([name]) => name)).sort()
    return { collection, readEverything: readAll.mock.calls.length > 0, read, indexesMade }
  }

  afterEach(() => vi.restoreAllMocks())

  it('takes the saved ids, makes each index when it is first used and reads each record when it is asked for, through every read and write', async () => {
    await closedCleanly()
    const { collection: second, readEverything, read, indexesMade } = await reopened()
    expect(readEverything).toBe(false)
    expect(read).not.toHaveBeenCalled()
    expect(indexesMade()).toEqual([])
    expect(second.size).toBe(3)
    expect((await second.ids()).sort()).toEqual(['thing-a', 'thing-b', 'thing-c'])
    expect((await second.findBy('tag', 'x'))?.id).toBe('thing-a')
    expect(indexesMade()).toEqual(['tag'])
    expect((await second.listBy('group', 'g')).map((t) => t.id).sort()).toEqual(['thing-a', 'thing-b'])
    expect(indexesMade()).toEqual(['group', 'tag'])
    expect(Object.isFrozen(await second.get('thing-b'))).toBe(true)
    expect(read.mock.calls.map(([name]) => name).sort()).toEqual(['thing-a.json', 'thing-b.json'])
    // Unique keys of records not read yet, in an index not made yet, still hold: the first write makes every index.
    await expect(second.create({ id: 'thing-d', name: 'c', tags: [], group: 'h' })).rejects.toBeInstanceOf(UniqueConstraintError)
    expect(indexesMade()).toEqual(['group', 'name', 'tag'])
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

  it('keeps none of the records a start read every file for: each is read again when first asked for', async () => {
    await closedCleanly()
    await unlink(savedFile())
    const { collection, readEverything, read } = await reopened()
    expect(readEverything).toBe(true)
    expect(read).not.toHaveBeenCalled()
    expect((await collection.findBy('tag', 'y'))?.id).toBe('thing-b')
    expect(Object.isFrozen(await collection.get('thing-b'))).toBe(true)
    expect((await collection.listBy('group', 'g')).map((t) => t.name).sort()).toEqual(['A', 'B'])
    expect(read.mock.calls.map(([name]) => name).sort()).toEqual(['thing-a.json', 'thing-b.json'])
    await collection.update('thing-c', (draft) => void (draft.name = 'C2'))
    expect((await collection.all()).map((t) => t.name).sort()).toEqual(['A', 'B', 'C2'])
    expect(read).toHaveBeenCalledTimes(3)
  })

  it('removes the saved indexes before the first write, which a crash after it must not find', async () => {
    await closedCleanly()
    const { collection } = await reopened()
    await collection.get('thing-a')
    await stat(savedFile())
    await collection.update('thing-a', (draft) => void (draft.name = 'A2'))
    await expect(stat(savedFile())).rejects.toMatchObject({ code: 'ENOENT' })
    // No close: as after a crash, the next start reads everything, and has the write.
    const { collection: next, readEverything } = await reopened()
    expect(readEverything).toBe(true)
    expect((await next.findBy('name', 'a2'))?.id).toBe('thing-a')
  })

  it('saves them again at the close when the first write, which removed them, failed', async () => {
    await closedCleanly()
    const { collection } = await reopened()
    await expect(collection.update('thing-a', () => { throw new Error('refused by the domain') })).rejects.toThrow('refused')
    await expect(stat(savedFile())).rejects.toMatchObject({ code: 'ENOENT' })
    await collection.saveIndexes()
    const { readEverything } = await reopened()
    expect(readEverything).toBe(false)
  })

  it('reads every record instead when any record file changed, was added, removed or replaced, or a write was cut short', async () => {
    const changedInPlace = async () => {
      const file = JSON.parse(await readFile(join(dir, 'thing-a.json'), 'utf8')) as { record: Thing }
      file.record.name = 'Renamed while stopped'
      await writeFile(join(dir, 'thing-a.json'), JSON.stringify(file))
    }
    const added = () => writeFile(join(dir, 'thing-z.json'), JSON.stringify({ schemaVersion: 1, record: { id: 'thing-z', name: 'Z', tags: [], group: 'h' } }))
    const removed = () => unlink(join(dir, 'thing-c.json'))
    const replaced = async () => {
      await writeFile(join(dir, 'elsewhere'), JSON.stringify({ schemaVersion: 1, record: { id: 'thing-c', name: 'Replaced', tags: [], group: 'h' } }))
      await rename(join(dir, 'elsewhere'), join(dir, 'thing-c.json'))
    }
    const cutShort = () => writeFile(join(dir, 'thing-q.json.partial'), '{"schemaVe')
    const cases: Array<[() => Promise<unknown>, (collection: Collection<Thing>) => Promise<void>]> = [
      [changedInPlace, async (c) => expect((await c.findBy('name', 'renamed while stopped'))?.id).toBe('thing-a')],
      [added, async (c) => expect((await c.findBy('name', 'z'))?.id).toBe('thing-z')],
      [removed, async (c) => expect([c.size, await c.findBy('name', 'c')]).toEqual([2, undefined])],
      [replaced, async (c) => expect((await c.findBy('name', 'replaced'))?.id).toBe('thing-c')],
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

    await writeFile(savedFile(), 'homeport-saved-indexes 1000\n{"stamp": ')
    const damaged = await reopened()
    expect(damaged.readEverything).toBe(true)
    expect((await damaged.collection.findBy('tag', 'y'))?.id).toBe('thing-b')
  })

  it('makes an index from every record when its saved entries cannot be read after the start, or name a record they do not hold', async () => {
    await closedCleanly()
    const saved = await readFile(savedFile())
    const { collection, readEverything } = await reopened()
    expect(readEverything).toBe(false)
    // Replaced after the start: the start's header does not describe this file.
    await writeFile(savedFile(), Buffer.concat([saved, Buffer.from(' ')]))
    expect((await collection.findBy('tag', 'y'))?.id).toBe('thing-b')
    expect(collection.size).toBe(3)

    // The name index's entries name record 7 of 3.
    const misplaced = saved.toString('utf8').replace(/(\{"keys":\["a","b","c"\],"records":\[)\d/, '$17')
    expect(misplaced).not.toBe(saved.toString('utf8'))
    await writeFile(savedFile(), misplaced)
    const { collection: misnamed, read } = await reopened()
    expect((await misnamed.findBy('name', 'a'))?.id).toBe('thing-a')
    // Every record read to make the index, and not kept (a large registry's would not fit), then the one found.
    expect(read).toHaveBeenCalledTimes(4)
    expect((await misnamed.findBy('name', 'c'))?.id).toBe('thing-c')
  })

  it('holds what all() read: a collection read whole at every request is read from its files once', async () => {
    await closedCleanly()
    const { collection, read } = await reopened()
    for (let round = 0; round < 2; round++) expect((await collection.all()).map((thing) => thing.id)).toEqual(['thing-a', 'thing-b', 'thing-c'])
    expect(read).toHaveBeenCalledTimes(3)
  })

  it('saves them again at a close only when something was written since', async () => {
    await closedCleanly()
    // Its inode says whether it was written again (a new file is renamed over it); its text, what it holds.
    // A new file's inode alone is no proof: the file system may give it the old one's number, freed meanwhile.
    const saved = async () => ({ inode: (await stat(savedFile())).ino, text: await readFile(savedFile(), 'utf8') })
    const before = await saved()
    const { collection: unchanged } = await reopened()
    await unchanged.get('thing-a')
    await unchanged.saveIndexes()
    expect(await saved()).toEqual(before)
    const { collection: written } = await reopened()
    await written.update('thing-b', (draft) => void (draft.name = 'B2'))
    await written.saveIndexes()
    const after = await saved()
    expect(after.text).not.toBe(before.text)
    expect([before.text.includes('"b2"'), after.text.includes('"b2"')]).toEqual([false, true])
    const { collection: reread, readEverything } = await reopened()
    expect(readEverything).toBe(false)
    expect((await reread.findBy('name', 'b2'))?.id).toBe('thing-b')
  })

  it('keeps them in a folder of their own, left out of what it lists as records, and removes those an earlier Homeport kept beside the records', async () => {
    const first = things()
    await first.load()
    await first.create({ id: 'thing-a', name: 'A', tags: ['x'], group: 'g' })
    await writeFile(join(dir, 'indexes.saved'), '{"files": []}')
    await first.saveIndexes()
    expect((await readdir(dir)).sort()).toEqual([SAVED_INDEXES_FOLDER, 'thing-a.json'])
    // A save a crash cut short left its temporary file: the next save removes it.
    await writeFile(join(dir, SAVED_INDEXES_FOLDER, `.${SAVED_INDEXES_FILE}.0a1b2c.partial`), 'homeport-saved-indexes 99')
    await first.update('thing-a', (draft) => void (draft.name = 'A2'))
    await first.saveIndexes()
    expect(await readdir(join(dir, SAVED_INDEXES_FOLDER))).toEqual([SAVED_INDEXES_FILE])
    const { readEverything } = await reopened()
    expect(readEverything).toBe(false)
  })
})

describe('records held within a budget', () => {
  /** Each thing's document is 86 or 87 characters: a budget of 400 holds four. */
  const BUDGET = 400
  const ids = Array.from({ length: 10 }, (_, index) => `thing-${String.fromCharCode(97 + index)}`)

  async function filled() {
    const backend = new RecordFiles(dir)
    const collection = things({ heldCharacters: BUDGET }, backend)
    await collection.load()
    for (const [index, id] of ids.entries()) await collection.create({ id, name: `N${index}`, tags: [`t${index}`], group: index % 2 ? 'odd' : 'even' })
    return { collection, read: vi.spyOn(backend, 'readNow') }
  }

  afterEach(() => vi.restoreAllMocks())

  it('lets the least recently used go and reads them again from their files, through every read', async () => {
    const { collection, read } = await filled()
    // The last four written are held; the first was let go long ago.
    expect((await collection.get('thing-j'))?.name).toBe('N9')
    expect(read).not.toHaveBeenCalled()
    expect((await collection.get('thing-a'))?.name).toBe('N0')
    expect(read).toHaveBeenCalledTimes(1)
    // Now held: asked again, it is not read again.
    expect((await collection.findBy('tag', 't0'))?.id).toBe('thing-a')
    expect(read).toHaveBeenCalledTimes(1)
    // A crawl: every record read, each the one written, the last four held at the end.
    expect((await collection.getMany(ids)).map((thing) => thing?.name)).toEqual(ids.map((_, index) => `N${index}`))
    expect((await collection.listBy('group', 'odd')).map((thing) => thing.id)).toEqual(['thing-b', 'thing-d', 'thing-f', 'thing-h', 'thing-j'])
    expect(collection.size).toBe(10)
    expect((await collection.ids()).sort()).toEqual(ids)
    // all() reads the six not held, and answers in id order.
    read.mockClear()
    expect((await collection.all()).map((thing) => thing.id)).toEqual(ids)
    expect(read).toHaveBeenCalledTimes(6)
    // Updated and deleted when let go: read, changed, and the indexes with them.
    await collection.update('thing-b', (draft) => {
      draft.name = 'B2'
    })
    await collection.delete('thing-c')
    expect(await collection.deleteWhere('thing-d', () => true)).toBe(true)
    await collection.getMany(ids.slice(4))
    expect((await collection.get('thing-b'))?.name).toBe('B2')
    expect((await collection.findBy('name', 'n1'))?.id).toBeUndefined()
    expect(await collection.get('thing-c')).toBeUndefined()
    expect(collection.size).toBe(8)
    await expect(collection.create({ id: 'thing-z', name: 'N0', tags: [], group: 'odd' })).rejects.toBeInstanceOf(UniqueConstraintError)
  })

  it('holds a record while it is written: readers see the old one, let go or not, until the write is done, and the old one if it fails', async () => {
    const { collection } = await filled()
    for (const failing of [false, true]) {
      let release!: () => void
      let started!: () => void
      const writing = new Promise<void>((resolve) => (started = resolve))
      // Held up once the new document is in its file (as between a write's rename and its return), or before a write that fails.
      vi.spyOn(AtomicJsonFile.prototype, 'write').mockImplementationOnce(async function (this: AtomicJsonFile<unknown>, data) {
        // The spy answers once: this write is the real one.
        if (!failing) await new AtomicJsonFile(this.path).write(data)
        started()
        await new Promise<void>((resolve) => (release = resolve))
        if (failing) throw new Error('disk full')
      })
      const name = failing ? 'never' : 'renamed'
      const updating = collection.update('thing-e', (draft) => {
        draft.name = name
      })
      await writing
      // Every other record read meanwhile: thing-e is let go from the held ones, and still read as it was.
      await collection.getMany(ids.filter((id) => id !== 'thing-e'))
      expect((await collection.get('thing-e'))?.name).toBe(failing ? 'renamed' : 'N4')
      expect((await collection.findBy('name', failing ? 'renamed' : 'n4'))?.id).toBe('thing-e')
      await collection.getMany(ids.filter((id) => id !== 'thing-e'))
      release()
      if (failing) await expect(updating).rejects.toThrow('disk full')
      else await updating
      await collection.getMany(ids.filter((id) => id !== 'thing-e'))
      expect((await collection.get('thing-e'))?.name).toBe('renamed')
      expect((await collection.findBy('name', 'renamed'))?.id).toBe('thing-e')
      expect((await collection.findBy('name', 'n4'))?.id).toBeUndefined()
    }
  })

  it('holds every record where the backend cannot read them again (in memory)', async () => {
    const memory = things({ heldCharacters: BUDGET }, new RecordMemory())
    await memory.load()
    for (const id of ids) await memory.create({ id, name: id, tags: [], group: 'g' })
    // One let go could not be read: the memory backend reads no document again.
    expect((await memory.getMany(ids)).map((thing) => thing?.id)).toEqual(ids)
  })
})
