import { readdirSync, readFileSync, statSync } from 'node:fs'
import { readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Adapter } from 'lowdb'
import { makeFolder, syncFolder, TEMP_SUFFIX, writeInside } from '../../files/folder-writes.js'
import type { RecordFile, SavedIndexBackend, SavedIndexes, StoredDocument } from '../engine/record-backend.js'
import type { WritesRefusedError } from '../errors.js'
import { AtomicJsonFile } from './atomic-json-file.js'

/**
 * How many record files a load reads between two turns of the event loop. They are read
 * synchronously: an asynchronous read costs four trips through libuv's thread pool (open, stat,
 * read, close), and 5,000 records took seconds that way against a tenth of a second synchronously. A
 * batch takes a few milliseconds, so the loop is never held for long.
 */
const READ_BATCH = 200

/**
 * The collection's indexes as a clean close left them, with what each record file was then (not a
 * `.json` file: neither a record nor part of a backup).
 */
export const SAVED_INDEXES_FILE = 'indexes.saved'

interface SavedIndexesFile {
  /** Each record file's name and signature (inode, size, modification time) at the close. */
  files: Array<[name: string, signature: string]>
  indexes: SavedIndexes
}

/** One durable, atomically written JSON file per record in a folder. */
export class RecordFiles implements SavedIndexBackend {
  constructor(
    readonly dir: string,
    private readonly writesRefused?: WritesRefusedError
  ) {}

  async *readAll(): AsyncGenerator<StoredDocument> {
    const names = await this.names()
    for (const [index, name] of names.entries()) {
      if (index > 0 && index % READ_BATCH === 0) await nextTurn()
      yield readDocument(join(this.dir, name), name)
    }
  }

  private async names(): Promise<string[]> {
    if (!this.writesRefused) await makeFolder(this.dir)
    const names: string[] = []
    for (const entry of await readdir(this.dir).catch(() => [])) {
      // A write interrupted before its rename leaves only a temporary file; the record it
      // belonged to was never acknowledged.
      if (entry.endsWith(TEMP_SUFFIX)) {
        if (!this.writesRefused) await unlink(join(this.dir, entry))
      } else if (entry.endsWith('.json')) names.push(entry)
    }
    return names.sort()
  }

  /**
   * The saved indexes, if every record file is the one they were saved with. Every write replaces
   * its file (a new inode) and a removal leaves one name fewer, so any change since the close, a
   * crash's writes included, makes them unusable: the start then reads every file.
   */
  savedIndexes(stamp: string): SavedIndexes | undefined {
    let saved: SavedIndexesFile
    try {
      saved = JSON.parse(readFileSync(join(this.dir, SAVED_INDEXES_FILE), 'utf8')) as SavedIndexesFile
      if (saved.indexes.stamp !== stamp) return undefined
      const entries = readdirSync(this.dir)
      // What an interrupted write left: readAll clears it.
      if (entries.some((entry) => entry.endsWith(TEMP_SUFFIX))) return undefined
      if (entries.filter((entry) => entry.endsWith('.json')).length !== saved.files.length) return undefined
      for (const [name, signature] of saved.files) if (fileSignature(join(this.dir, name)) !== signature) return undefined
    } catch {
      return undefined
    }
    return saved.indexes
  }

  async saveIndexes(indexes: SavedIndexes): Promise<void> {
    if (this.writesRefused) return
    const names = await this.names()
    const files = names.map((name): [string, string] => [name, fileSignature(join(this.dir, name)) ?? ''])
    await writeInside(this.dir, SAVED_INDEXES_FILE, JSON.stringify({ files, indexes } satisfies SavedIndexesFile), { atomic: true })
  }

  read(name: string): StoredDocument {
    return readDocument(join(this.dir, name), name)
  }

  document(name: string): Adapter<RecordFile> {
    return new AtomicJsonFile<RecordFile>(join(this.dir, name))
  }

  async remove(name: string): Promise<void> {
    await unlink(join(this.dir, name))
    await syncFolder(this.dir)
  }

  describe(name: string): string {
    return join(this.dir, name)
  }
}

function fileSignature(path: string): string | undefined {
  const stats = statSync(path, { throwIfNoEntry: false })
  return stats && `${stats.ino}:${stats.size}:${stats.mtimeMs}`
}

function readDocument(path: string, name: string): StoredDocument {
  try {
    return { name, data: JSON.parse(readFileSync(path, 'utf8')) as RecordFile }
  } catch (failure) {
    return { name, failure: failure as Error }
  }
}
