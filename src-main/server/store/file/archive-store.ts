import { createHash, randomBytes } from 'node:crypto'
import { createReadStream, type ReadStream } from 'node:fs'
import { readFile, readdir, rm, stat, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { makeFolder, moveInside, syncFolder, writeInside } from '../../files/folder-writes.js'
import type { ArchiveRef } from '../records.js'
import { TooLargeError, type WritesRefusedError } from '../errors.js'
import { ARCHIVES_DIR, UPLOADS_DIR } from '../../data-dir/layout.js'

const SHA256 = /^[0-9a-f]{64}$/
/** How many documentation files readManyDocs reads at once. */
const DOCS_AT_ONCE = 2

/**
 * Module archives, content-addressed: `archives/<first two hex>/<sha256>.tar.gz`, so identical
 * uploads are stored once. Beside each, `<sha256>.docs.json` holds the documentation parsed
 * from it. Uploads stream into `uploads/` first and are renamed in only once complete.
 */
export class ArchiveStore {
  private readonly archivesDir: string
  private readonly uploadsDir: string

  constructor(
    private readonly dataDir: string,
    /** Set when the data directory cannot be written: nothing is stored or deleted. */
    private readonly writesRefused?: WritesRefusedError
  ) {
    this.archivesDir = join(dataDir, ARCHIVES_DIR)
    this.uploadsDir = join(dataDir, UPLOADS_DIR)
  }

  /** Creates the folders and drops uploads that a crash interrupted. */
  async open(): Promise<void> {
    if (this.writesRefused) return
    await makeFolder(this.archivesDir)
    await rm(this.uploadsDir, { recursive: true, force: true })
    await makeFolder(this.uploadsDir)
  }

  /** Streams `source` into the store, hashing it on the way. Past `maxBytes` it stores nothing. */
  async put(source: Readable, maxBytes: number): Promise<ArchiveRef> {
    if (this.writesRefused) {
      source.resume()
      throw this.writesRefused
    }
    const temp = join(this.uploadsDir, `${randomBytes(12).toString('hex')}.partial`)
    const hash = createHash('sha256')
    let size = 0
    async function* metered(): AsyncGenerator<Uint8Array> {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        size += chunk.length
        if (size > maxBytes) throw new TooLargeError(maxBytes)
        hash.update(chunk)
        yield chunk
      }
    }
    try {
      await writeInside(this.uploadsDir, temp, metered())
      const sha256 = hash.digest('hex')
      // An identical archive may be stored already; renaming over it changes nothing.
      await moveInside(this.dataDir, temp, this.pathOf(sha256))
      await syncFolder(join(this.archivesDir, sha256.slice(0, 2)))
      return { sha256, size }
    } catch (error) {
      await unlink(temp).catch(() => undefined)
      throw error
    }
  }

  pathOf(sha256: string): string {
    if (!SHA256.test(sha256)) throw new Error(`not a sha256: ${sha256}`)
    return join(this.archivesDir, sha256.slice(0, 2), `${sha256}.tar.gz`)
  }

  read(sha256: string, range?: { start: number; end: number }): ReadStream {
    return createReadStream(this.pathOf(sha256), range)
  }

  async size(sha256: string): Promise<number | undefined> {
    return stat(this.pathOf(sha256)).then(
      (stats) => stats.size,
      () => undefined
    )
  }

  async writeDocs(sha256: string, docs: unknown): Promise<void> {
    if (this.writesRefused) throw this.writesRefused
    await writeInside(this.archivesDir, this.docsPathOf(sha256), JSON.stringify(docs), { atomic: true })
  }

  async readDocs<T>(sha256: string): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(this.docsPathOf(sha256), 'utf8')) as T
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  /** Read DOCS_AT_ONCE at a time: a request's own file reads wait behind whatever is queued for Node's four file threads. */
  async readManyDocs<T>(hashes: readonly string[]): Promise<Array<T | undefined | SyntaxError>> {
    const docs: Array<T | undefined | SyntaxError> = []
    const read = (sha256: string) =>
      this.readDocs<T>(sha256).catch((error: unknown) => {
        if (error instanceof SyntaxError) return error
        throw error
      })
    for (let start = 0; start < hashes.length; start += DOCS_AT_ONCE) docs.push(...(await Promise.all(hashes.slice(start, start + DOCS_AT_ONCE).map(read))))
    return docs
  }

  /** Removes an archive and its documentation. */
  async delete(sha256: string): Promise<void> {
    if (this.writesRefused) throw this.writesRefused
    await unlink(this.pathOf(sha256)).catch(ignoreMissing)
    await unlink(this.docsPathOf(sha256)).catch(ignoreMissing)
  }

  /** The hashes of every stored archive, for sweeping out those no version refers to. */
  async list(): Promise<string[]> {
    const hashes = new Set<string>()
    for (const prefix of await readdir(this.archivesDir)) {
      for (const file of await readdir(join(this.archivesDir, prefix)).catch(() => [])) {
        const match = /^([0-9a-f]{64})\.(tar\.gz|docs\.json)$/.exec(file)
        if (match) hashes.add(match[1]!)
      }
    }
    return [...hashes]
  }

  private docsPathOf(sha256: string): string {
    return this.pathOf(sha256).replace(/\.tar\.gz$/, '.docs.json')
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error
}
