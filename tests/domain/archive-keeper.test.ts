import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { ArchiveKeeper } from '../../src-main/server/domain/archives/archive-keeper.js'
import { openMemoryStore } from '../../src-main/server/store/memory/memory-store.js'
import type { VersionRecord } from '../../src-main/server/store/records.js'

describe('the archive keeper', () => {
  it('keeps a file two writes pinned until both have let go of it', async () => {
    const store = await openMemoryStore()
    const keeper = new ArchiveKeeper(store)
    const { sha256 } = await store.archives.put(Readable.from([Buffer.from('one zip, imported twice at once')]), 1024)
    const first = keeper.pin(sha256)
    const second = keeper.pin(sha256)
    first()
    first()
    await keeper.release([sha256])
    expect(await store.archives.list()).toEqual([sha256])
    second()
    await keeper.release([sha256])
    expect(await store.archives.list()).toEqual([])
    await store.close()
  })

  it('keeps a file pinned and let go while it counted the references to it: a version names it now', async () => {
    const store = await openMemoryStore()
    const keeper = new ArchiveKeeper(store)
    const { sha256 } = await store.archives.put(Readable.from([Buffer.from('a zip a version is about to name')]), 1024)
    const groupSizes = store.modules.groupSizes.bind(store.modules)
    store.modules.groupSizes = async (group, keys) => {
      const counted = await groupSizes(group, keys)
      // A publish that stored the same zip, named it in its version and let go, between the count and the delete.
      keeper.pin(sha256)()
      return counted
    }
    await keeper.release([sha256])
    expect(await store.archives.list()).toEqual([sha256])
    store.modules.groupSizes = groupSizes
    await keeper.release([sha256])
    expect(await store.archives.list()).toEqual([])
    await store.close()
  })

  it('deletes, of many archives, those no version refers to and none pinned, asking a page of them at a time', async () => {
    const store = await openMemoryStore()
    const keeper = new ArchiveKeeper(store)
    const hashes: string[] = []
    for (let n = 0; n < 1200; n++) hashes.push((await store.archives.put(Readable.from([Buffer.from(`archive ${n}`)]), 1024)).sha256)
    // Every third named by a module's version; two of the rest pinned (a version about to name them).
    const named = hashes.filter((_, n) => n % 3 === 0)
    const now = '2026-11-28T00:00:00.000Z'
    for (const [n, sha256] of named.entries()) {
      const version = { id: `modver-k${n}`, version: '1.0.0', status: 'ok', archive: { sha256, size: 1 } } as unknown as VersionRecord
      await store.modules.create({ id: `mod-k${n}`, organizationId: 'org-a', registryName: 'private', namespace: null, name: `m${n}`, provider: 'aws', noCode: false, status: 'setup_complete', testConfig: null, createdAt: now, updatedAt: now, versions: [version], vcsRepo: null })
    }
    const pinned = [hashes[1]!, hashes[1199]!]
    for (const sha256 of pinned) keeper.pin(sha256)
    const asked: number[] = []
    const groupSizes = store.modules.groupSizes.bind(store.modules)
    store.modules.groupSizes = (group, keys) => (asked.push(keys.length), groupSizes(group, keys))
    await keeper.release(hashes)
    expect((await store.archives.list()).sort()).toEqual([...named, ...pinned].sort())
    expect(asked).toEqual([499, 500, 199])
    await store.close()
  })
})
