import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readdir, rm, stat, utimes } from 'node:fs/promises'
import { PassThrough, Readable } from 'node:stream'
import { once } from 'node:events'
import { makeFolder, pathInside, TEMP_SUFFIX, writeInside } from '../../files/folder-writes.js'
import type { ArchiveRef } from '../records.js'
import { Lru } from '../../../shared/lru.js'
import type { Archives } from '../port.js'

const SHA256 = /^[0-9a-f]{64}$/

/**
 * A replica's own copy of the PostgreSQL archives it serves, on its local disk, bounded in size.
 *
 * Read from the database an archive streams at a fraction of a file's speed (each megabyte a query,
 * its bytes hex-encoded by the server and decoded again here: about 50 MB/s on two cores against
 * the file store's 1 GB/s; measured in docs/operations/performance.md). Archives never change and
 * are named by their SHA-256, so a copy is as good as the original once its hash is checked: the
 * first whole read of an archive streams to the client and into a temporary file at once, hashing
 * it, and the file takes the archive's name only if the hash is the name (fsynced first, then
 * renamed, so a crash leaves a `.partial` file, never a torn copy). A read that stops midway, a
 * range read, or a second read while one fills it, copies nothing. Past `maxBytes` the least
 * recently read copies go. A copy of an archive the database has since deleted is harmless: its
 * bytes are what that hash names, and nothing asks for it unless a record names it again. A copy a
 * previous run left is not taken on its name: its first read hashes it before serving a byte, and
 * one that is not what its name says (changed on disk meanwhile) is removed and read from the database.
 */
export class CachedArchives implements Archives {
  /** Copies on disk, by hash, weighing their sizes: past `maxBytes` the least recently read go (their files with them). */
  private readonly copies: Lru<string, number>
  /** The files of copies let go to make room, being removed: `remember` waits for them. */
  private readonly removals: Array<Promise<void>> = []
  private readonly filling = new Set<string>()
  /** Archives deleted while a read filled their copy: the copy goes as soon as it is written. */
  private readonly deletedWhileFilling = new Set<string>()
  /** Copies a previous run left, not yet hashed since this one started. */
  private readonly unverified = new Set<string>()

  private constructor(
    private readonly inner: Archives,
    private readonly dir: string,
    maxBytes: number
  ) {
    this.copies = new Lru<string, number>(maxBytes, { evicted: (sha256) => void this.removals.push(this.removeFile(sha256)) })
  }

  /** The cache in `dir` (made if missing), with the copies a previous run left there, oldest read first. */
  static async open(inner: Archives, dir: string, maxBytes: number): Promise<CachedArchives> {
    const cache = new CachedArchives(inner, await makeFolder(dir, undefined, 0o700), maxBytes)
    const found: Array<{ sha256: string; size: number; usedAt: number }> = []
    for (const name of await readdir(cache.dir)) {
      const path = pathInside(cache.dir, name)
      // A fill a crash interrupted.
      if (name.endsWith(TEMP_SUFFIX) || !SHA256.test(name)) await rm(path, { force: true })
      else {
        const stats = await stat(path)
        found.push({ sha256: name, size: stats.size, usedAt: stats.mtimeMs })
      }
    }
    for (const copy of found.sort((a, b) => a.usedAt - b.usedAt)) {
      cache.unverified.add(copy.sha256)
      await cache.remember(copy.sha256, copy.size)
    }
    return cache
  }

  put(source: Readable, maxBytes: number): Promise<ArchiveRef> {
    return this.inner.put(source, maxBytes)
  }

  read(sha256: string, range?: { start: number; end: number }): Readable {
    if (this.copies.get(sha256) !== undefined) {
      this.touch(sha256)
      if (this.unverified.has(sha256)) return Readable.from(this.verified(sha256, range), { objectMode: false })
      return createReadStream(pathInside(this.dir, sha256), range)
    }
    const source = this.inner.read(sha256, range)
    if (range || this.filling.has(sha256) || !SHA256.test(sha256)) return source
    return Readable.from(this.fill(sha256, source), { objectMode: false })
  }

  /** A copy from a previous run, hashed whole before any of it is served; read from the database instead when it is not the archive. */
  private async *verified(sha256: string, range?: { start: number; end: number }): AsyncGenerator<Buffer> {
    const hash = createHash('sha256')
    const path = pathInside(this.dir, sha256)
    let matches = false
    try {
      for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
      matches = hash.digest('hex') === sha256
    } catch {
      // Gone or unreadable: the database has it.
    }
    if (matches) {
      this.unverified.delete(sha256)
      yield* createReadStream(path, range) as AsyncIterable<Buffer>
      return
    }
    console.error(`homeport: the archive cache's copy of ${sha256} is not that archive (changed on disk?): removed, and read from the database`)
    this.unverified.delete(sha256)
    await this.drop(sha256)
    yield* this.inner.read(sha256, range) as AsyncIterable<Buffer>
  }

  /** Passes the archive's bytes on while writing them to a copy, which is kept only if whole and its hash is `sha256`. */
  private async *fill(sha256: string, source: Readable): AsyncGenerator<Buffer> {
    this.filling.add(sha256)
    const hash = createHash('sha256')
    const toFile = new PassThrough({ highWaterMark: 4 * 1024 * 1024 })
    const written = writeInside(this.dir, sha256, toFile, { atomic: true })
    // A copy that cannot be written (a full or read-only disk) is given up; the download goes on from the database.
    let copying = true
    const settled = written.then(
      () => undefined,
      () => {
        copying = false
      }
    )
    let size = 0
    try {
      for await (const chunk of source) {
        const piece = chunk as Buffer
        hash.update(piece)
        size += piece.length
        if (copying && !toFile.destroyed && !toFile.write(piece)) await Promise.race([once(toFile, 'drain').catch(() => undefined), settled])
        yield piece
      }
    } finally {
      // A read that stopped midway has hashed only part: it is not the archive either.
      if (copying && hash.digest('hex') === sha256) {
        toFile.end()
        const kept = await written.then(
          () => true,
          () => false
        )
        if (kept && this.deletedWhileFilling.has(sha256)) await rm(pathInside(this.dir, sha256), { force: true })
        else if (kept) await this.remember(sha256, size)
      } else {
        toFile.destroy(new Error('not kept: the read stopped, or the bytes are not the archive'))
        await written.catch(() => undefined)
      }
      this.filling.delete(sha256)
      this.deletedWhileFilling.delete(sha256)
    }
  }

  writeDocs(sha256: string, docs: unknown): Promise<void> {
    return this.inner.writeDocs(sha256, docs)
  }

  readDocs<T>(sha256: string): Promise<T | undefined> {
    return this.inner.readDocs<T>(sha256)
  }

  readManyDocs<T>(hashes: readonly string[]): Promise<Array<T | undefined | SyntaxError>> {
    return this.inner.readManyDocs<T>(hashes)
  }

  async delete(sha256: string): Promise<void> {
    await this.inner.delete(sha256)
    if (this.filling.has(sha256)) this.deletedWhileFilling.add(sha256)
    await this.drop(sha256)
  }

  list(): Promise<string[]> {
    return this.inner.list()
  }

  /** Keeps a copy in the reckoning, once the copies it makes room for are gone; one larger than the whole budget is not kept, and its file goes. */
  private async remember(sha256: string, size: number): Promise<void> {
    this.copies.set(sha256, size, size)
    if (this.copies.get(sha256) === undefined) this.removals.push(this.removeFile(sha256))
    await Promise.all(this.removals.splice(0))
  }

  /** Marks a copy as just read (the reckoning's get did): its file's time says so to the next run. */
  private touch(sha256: string): void {
    const now = new Date()
    void utimes(pathInside(this.dir, sha256), now, now).catch(() => undefined)
  }

  private async drop(sha256: string): Promise<void> {
    if (this.copies.get(sha256) === undefined) return
    this.copies.delete(sha256)
    await this.removeFile(sha256)
  }

  /** A read already open on the file keeps its bytes (the file is unlinked, not truncated). */
  private async removeFile(sha256: string): Promise<void> {
    this.unverified.delete(sha256)
    await rm(pathInside(this.dir, sha256), { force: true })
  }
}
