import { afterEach, describe, expect, it, vi } from 'vitest'
import { DownloadCounter } from '../../src-main/server/domain/modules/downloads.js'
import { openMemoryStore } from '../../src-main/server/store/memory/memory-store.js'
import type { Store } from '../../src-main/server/store/port.js'

/** Makes the store's download writes wait until released, as a busy disk or database makes them. */
function stallWrites(store: Store): () => void {
  let release!: () => void
  const stalled = new Promise<void>((resolve) => (release = resolve))
  const upsert = store.downloads.upsert.bind(store.downloads)
  store.downloads.upsert = async (...args) => {
    await stalled
    return upsert(...args)
  }
  return release
}

describe('the download counter, read while a flush writes', () => {
  it('gives every consumer: a revocation then never misses one (they are neither pending nor written yet)', async () => {
    const store = await openMemoryStore()
    const counter = new DownloadCounter(store, () => undefined)
    counter.consumed('mod-1', 'modv-1', 'team:early')
    const release = stallWrites(store)
    const flushing = counter.flushPending()
    const during = counter.consumersOf('mod-1', 'modv-1')
    counter.consumed('mod-1', 'modv-1', 'team:during')
    release()
    expect((await during).sort()).toEqual(['team:during', 'team:early'])
    await flushing
    expect((await counter.consumersOf('mod-1', 'modv-1')).sort()).toEqual(['team:during', 'team:early'])
    await store.close()
  })

  it('counts every download once: the summary, the days and the totals', async () => {
    const store = await openMemoryStore()
    const counter = new DownloadCounter(store, () => undefined)
    const now = new Date('2026-11-26T08:00:00Z')
    counter.count('mod-1', now, 3)
    await counter.flush()
    counter.count('mod-1', now, 2)
    const release = stallWrites(store)
    const flushing = counter.flushPending()
    const reads = Promise.all([counter.summary('mod-1', now), counter.daily('mod-1', 2, now), counter.totals(['mod-1', 'mod-2'])])
    counter.count('mod-1', now)
    release()
    const [summary, daily, totals] = await reads
    expect(summary).toEqual({ week: 6, month: 6, year: 6, total: 6 })
    expect(daily).toEqual([{ date: '2026-11-25', count: 0 }, { date: '2026-11-26', count: 6 }])
    expect([...totals]).toEqual([['mod-1', 6], ['mod-2', 0]])
    await flushing
    expect(await counter.summary('mod-1', now)).toEqual({ week: 6, month: 6, year: 6, total: 6 })
    await store.close()
  })

  it('counts what a failed flush could not write, once', async () => {
    const store = await openMemoryStore()
    const counter = new DownloadCounter(store, () => undefined)
    const now = new Date('2026-11-26T08:00:00Z')
    counter.count('mod-1', now, 4)
    store.downloads.upsert = () => Promise.reject(new Error('ENOSPC: no space left on device'))
    await expect(counter.flushPending()).rejects.toThrow(/kept in memory and tried again: ENOSPC/)
    expect(await counter.summary('mod-1', now)).toEqual({ week: 4, month: 4, year: 4, total: 4 })
    await store.close()
  })

  it('counts a download now on the UTC day it happens, across midnight and a clock set back', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const store = await openMemoryStore()
    const counter = new DownloadCounter(store, () => undefined)
    // The day is read once a turn of the event loop: each download here comes in a turn of its own.
    const countAt = async (time: string) => {
      await new Promise((resolve) => setImmediate(resolve))
      vi.setSystemTime(new Date(time))
      counter.count('mod-1')
    }
    await countAt('2026-11-26T23:59:59.999Z')
    await countAt('2026-11-27T00:00:00.000Z')
    await countAt('2026-11-27T00:00:00.000Z')
    await countAt('2026-11-26T12:00:00Z')
    expect(await counter.daily('mod-1', 3, new Date('2026-11-27T12:00:00Z'))).toEqual([
      { date: '2026-11-25', count: 0 },
      { date: '2026-11-26', count: 2 },
      { date: '2026-11-27', count: 2 }
    ])
    await store.close()
  })
})

afterEach(() => {
  vi.useRealTimers()
})
