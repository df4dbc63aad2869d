import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { StoredFileMissingError, TooLargeError } from '../errors.js'
import { makeCollections, storeOver } from '../engine/collections.js'
import { RecordMemory } from './record-memory.js'
import type { ArchiveRef } from '../records.js'
import type { Archives, Store } from '../port.js'

/**
 * The store port in memory: the same collections (indexes, write queue, checks, migrations) as
 * the file store, over documents kept in memory, and archives as buffers. It is for unit tests
 * of the domain services, which run in milliseconds on it; nothing survives the process, and it
 * takes no backups.
 */
export function openMemoryStore(): Promise<Store> {
  return storeOver(makeCollections(() => new RecordMemory()), new MemoryArchives(), {
    backup: () => Promise.reject(new Error('The memory store keeps nothing on disk to back up.')),
    release: () => Promise.resolve()
  })
}

/** Archives and their documentation, in memory. */
export class MemoryArchives implements Archives {
  private readonly archives = new Map<string, Buffer>()
  private readonly docs = new Map<string, string>()

  async put(source: Readable, maxBytes: number): Promise<ArchiveRef> {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of source as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > maxBytes) {
        source.destroy()
        throw new TooLargeError(maxBytes)
      }
      chunks.push(chunk)
    }
    const content = Buffer.concat(chunks)
    const sha256 = createHash('sha256').update(content).digest('hex')
    this.archives.set(sha256, content)
    return { sha256, size }
  }

  read(sha256: string, range?: { start: number; end: number }): Readable {
    const whole = this.archives.get(sha256)
    const content = whole && range ? whole.subarray(range.start, range.end + 1) : whole
    if (!content) {
      const missing = new Readable({ read: () => undefined })
      process.nextTick(() => missing.destroy(new StoredFileMissingError(sha256)))
      return missing
    }
    return Readable.from([content])
  }

  writeDocs(sha256: string, docs: unknown): Promise<void> {
    this.docs.set(sha256, JSON.stringify(docs))
    return Promise.resolve()
  }

  readDocs<T>(sha256: string): Promise<T | undefined> {
    const text = this.docs.get(sha256)
    return Promise.resolve(text === undefined ? undefined : (JSON.parse(text) as T))
  }

  readManyDocs<T>(hashes: readonly string[]): Promise<Array<T | undefined>> {
    return Promise.all(hashes.map((sha256) => this.readDocs<T>(sha256)))
  }

  delete(sha256: string): Promise<void> {
    this.archives.delete(sha256)
    this.docs.delete(sha256)
    return Promise.resolve()
  }

  list(): Promise<string[]> {
    return Promise.resolve([...new Set([...this.archives.keys(), ...this.docs.keys()])])
  }
}
