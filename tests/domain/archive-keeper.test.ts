import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { ArchiveKeeper } from '../../src-main/server/domain/archives/archive-keeper.js'
import { openMemoryStore } from '../../src-main/server/store/memory/memory-store.js'

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
})
