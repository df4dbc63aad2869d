import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RecordFiles } from '../../src-main/server/store/file/record-files.js'
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

function things(options: Partial<ConstructorParameters<typeof Collection<Thing>>[2]> = {}) {
  return new Collection<Thing>('things', new RecordFiles(dir), {
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
