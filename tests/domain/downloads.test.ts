import { describe, expect, it } from 'vitest'
import { DownloadCounter } from '../../src-main/server/domain/modules/downloads.js'
import { openMemoryStore } from '../../src-main/server/store/memory/memory-store.js'

describe('the download counter’s consumers', () => {
  it('are read while a flush writes them: a revocation then never misses one (they are neither pending nor written yet)', async () => {
    const store = await openMemoryStore()
    const counter = new DownloadCounter(store, () => undefined)
    counter.consumed('mod-1', 'modv-1', 'team:early')
    // The flush's write stalls until released, as a busy disk or database makes it.
    let release!: () => void
    const stalled = new Promise<void>((resolve) => (release = resolve))
    const upsert = store.downloads.upsert.bind(store.downloads)
    store.downloads.upsert = async (...args) => {
      await stalled
      return upsert(...args)
    }
    const flushing = counter.flushPending()
    expect(await counter.consumersOf('mod-1', 'modv-1')).toEqual(['team:early'])
    release()
    await flushing
    expect(await counter.consumersOf('mod-1', 'modv-1')).toEqual(['team:early'])
    await store.close()
  })
})
