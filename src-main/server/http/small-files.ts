import { createHash } from 'node:crypto'
import type { ArchiveFile } from '../domain/archives/archive-file.js'
import { Lru } from '../../shared/lru.js'

export interface SmallFileLimits {
  /** A file larger than this is always read from the store. */
  maxFileBytes: number
  /** All files kept together. */
  maxBytes: number
}

/**
 * Most module archives are a few dozen kilobytes, and opening, reading and closing such a file
 * costs more than sending it: a static file server answered 42 KB archives at 1.3 times
 * Homeport's rate (bench figure 12). 64 KB covers a module of Terraform files without a large
 * asset; 16 MB keeps the few hundred most used, least recently used out first.
 */
export const DEFAULT_SMALL_FILE_LIMITS: SmallFileLimits = { maxFileBytes: 64 * 1024, maxBytes: 16 * 1024 * 1024 }

/**
 * Small stored files kept in memory by content hash, for the downloads that send them. Stored
 * bytes are immutable and named by their SHA-256, so a copy is never stale, and one process may
 * share it between servers (the same hash is the same bytes in any data directory). A copy is kept
 * only once its SHA-256 is the one it is kept by: a file damaged on disk is sent as it is read, as
 * before, but never kept. Whether a caller may have a file is decided before it is asked for here.
 */
export class SmallFiles {
  private readonly files: Lru<string, Buffer>

  constructor(private readonly limits: SmallFileLimits = DEFAULT_SMALL_FILE_LIMITS) {
    this.files = new Lru(limits.maxBytes)
  }

  /** The whole of `file`: from memory when kept, else read from the store (and kept when it is small and whole); undefined for a file too large to hold. */
  async read(file: ArchiveFile): Promise<Buffer | undefined> {
    if (file.size > this.limits.maxFileBytes) return undefined
    const kept = this.files.get(file.sha256)
    if (kept) return kept
    const chunks: Buffer[] = []
    for await (const chunk of file.open()) chunks.push(chunk as Buffer)
    const bytes = Buffer.concat(chunks)
    if (bytes.length !== file.size) throw new Error(`the stored file ${file.sha256} has ${bytes.length} bytes, not ${file.size}`)
    if (createHash('sha256').update(bytes).digest('hex') === file.sha256) this.files.set(file.sha256, bytes, bytes.length)
    return bytes
  }

  get size(): { files: number; bytes: number } {
    return { files: this.files.size, bytes: this.files.weight }
  }
}
