import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { CachedArchives } from '../../src-main/server/store/postgres/archive-cache.js'
import { openMemoryStore } from '../../src-main/server/store/memory/memory-store.js'
import type { Archives } from '../../src-main/server/store/port.js'

const MB = 1024 * 1024

/** What a read gave, as its SHA-256 (Vitest compares megabytes of bytes one by one, slowly). */
async function bytesOf(stream: Readable): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of stream) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

const hashOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** An archive store whose reads are counted, with a cache over it in a fresh folder. */
async function setup(maxBytes = 64 * MB) {
  const store = await openMemoryStore()
  const inner = store.archives
  let innerReads = 0
  const counted: Archives = Object.assign(Object.create(inner) as Archives, {
    read: (sha256: string, range?: { start: number; end: number }) => {
      innerReads++
      return inner.read(sha256, range)
    }
  })
  const root = await mkdtemp(join(tmpdir(), 'homeport-archive-cache-'))
  onTestFinished(() => rm(root, { recursive: true, force: true }))
  const dir = join(root, 'archive-cache')
  const cache = await CachedArchives.open(counted, dir, maxBytes)
  const put = async (bytes: Buffer) => (await cache.put(Readable.from([bytes]), 100 * MB)).sha256
  return { cache, counted, dir, put, innerReads: () => innerReads }
}

/** Makes `archives` give `bytes` whole as the database does, 64 KB at a time (ranges as before). */
function inPieces(archives: Archives, bytes: Buffer): void {
  const pieces = Array.from({ length: Math.ceil(bytes.length / (64 * 1024)) }, (_, index) => bytes.subarray(index * 64 * 1024, (index + 1) * 64 * 1024))
  const original = archives.read.bind(archives)
  archives.read = (name, range) => (range ? original(name, range) : Readable.from(pieces))
}

describe('the archive cache of a PostgreSQL replica', () => {
  it('keeps a copy of an archive read whole, and serves the next reads, ranges too, from it', async () => {
    const { cache, dir, put, innerReads } = await setup()
    const bytes = randomBytes(3 * MB + 17)
    const sha256 = await put(bytes)
    expect(await bytesOf(cache.read(sha256))).toBe(hashOf(bytes))
    expect(await readdir(dir)).toEqual([sha256])
    expect(await bytesOf(cache.read(sha256))).toBe(hashOf(bytes))
    expect(await bytesOf(cache.read(sha256, { start: 10, end: 2 * MB }))).toBe(hashOf(bytes.subarray(10, 2 * MB + 1)))
    expect(innerReads()).toBe(1)
  })

  it('keeps nothing of a read that stopped midway, of a range read, or of bytes that are not the archive', async () => {
    const { cache, counted, dir, put } = await setup()
    const bytes = randomBytes(2 * MB)
    const sha256 = await put(bytes)
    // As the database gives it: a piece at a time.
    inPieces(counted, bytes)
    const stopped = cache.read(sha256)
    for await (const chunk of stopped) {
      expect((chunk as Buffer).length).toBeGreaterThan(0)
      break
    }
    expect(await bytesOf(cache.read(sha256, { start: 0, end: 99 }))).toBe(hashOf(bytes.subarray(0, 100)))
    // The database answers other bytes under this name (a fault, or tampering): they are served as they come, never kept.
    counted.read = () => Readable.from([randomBytes(2 * MB)])
    await bytesOf(cache.read(sha256))
    await expect.poll(() => readdir(dir)).toEqual([])
  })

  it('gives the whole archive when its copy cannot be written (a full disk, a folder gone), and keeps none', async () => {
    const { cache, dir, put, innerReads } = await setup()
    const bytes = randomBytes(6 * MB)
    const sha256 = await put(bytes)
    await rm(dir, { recursive: true })
    await writeFile(dir, 'not a folder')
    expect(await bytesOf(cache.read(sha256))).toBe(hashOf(bytes))
    expect(await bytesOf(cache.read(sha256))).toBe(hashOf(bytes))
    expect(innerReads()).toBe(2)
  })

  it('keeps no copy of an archive deleted while a read filled it', async () => {
    const { cache, counted, dir, put } = await setup()
    const bytes = randomBytes(2 * MB)
    const sha256 = await put(bytes)
    inPieces(counted, bytes)
    const hash = createHash('sha256')
    let deleted = false
    for await (const chunk of cache.read(sha256)) {
      hash.update(chunk as Buffer)
      if (!deleted) {
        deleted = true
        await cache.delete(sha256)
      }
    }
    expect(hash.digest('hex')).toBe(sha256)
    expect(await readdir(dir)).toEqual([])
  })

  it('gives two readers at once the archive, and keeps one copy', async () => {
    const { cache, dir, put } = await setup()
    const bytes = randomBytes(4 * MB)
    const sha256 = await put(bytes)
    const [first, second] = await Promise.all([bytesOf(cache.read(sha256)), bytesOf(cache.read(sha256))])
    expect(first).toBe(hashOf(bytes))
    expect(second).toBe(hashOf(bytes))
    expect(await readdir(dir)).toEqual([sha256])
  })

  it('lets the least recently read copies go past its size, and a deleted archive’s copy with it', async () => {
    const { cache, dir, put } = await setup(5 * MB)
    const [a, b, c] = await Promise.all([put(randomBytes(2 * MB)), put(randomBytes(2 * MB)), put(randomBytes(2 * MB))])
    await bytesOf(cache.read(a))
    await bytesOf(cache.read(b))
    await bytesOf(cache.read(a))
    await bytesOf(cache.read(c))
    expect((await readdir(dir)).sort()).toEqual([a, c].sort())
    await cache.delete(c)
    expect(await readdir(dir)).toEqual([a])
  })

  it('finds its copies again at the next start, and removes what an interrupted fill left', async () => {
    const { cache, counted, dir, put, innerReads } = await setup()
    const bytes = randomBytes(MB)
    const sha256 = await put(bytes)
    await bytesOf(cache.read(sha256))
    await writeFile(join(dir, `.${sha256}.0a1b2c.partial`), 'half')
    const again = await CachedArchives.open(counted, dir, 64 * MB)
    expect(await readdir(dir)).toEqual([sha256])
    expect(await bytesOf(again.read(sha256))).toBe(hashOf(bytes))
    expect(innerReads()).toBe(1)
  })

  it('takes no copy a previous run left on its name: one changed on disk is removed, and the archive read from the database', async () => {
    const { cache, counted, dir, put, innerReads } = await setup()
    const bytes = randomBytes(MB)
    const sha256 = await put(bytes)
    await bytesOf(cache.read(sha256))
    expect(innerReads()).toBe(1)
    // Someone with write access to the cache's folder plants other bytes under the archive's name.
    await writeFile(join(dir, sha256), randomBytes(MB))
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      const again = await CachedArchives.open(counted, dir, 64 * MB)
      expect(await bytesOf(again.read(sha256))).toBe(hashOf(bytes))
      expect(innerReads()).toBe(2)
      expect(errors.mock.calls.join()).toContain(`copy of ${sha256} is not that archive`)
      expect(await readdir(dir)).toEqual([])
    } finally {
      errors.mockRestore()
    }
  })
})
