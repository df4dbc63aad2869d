import { readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Adapter } from 'lowdb'
import { makeFolder, syncFolder, TEMP_SUFFIX } from '../../files/folder-writes.js'
import type { IndexSnapshot, RecordFile, SavedIndexBackend, SavedIndexes, StoredDocument } from '../engine/record-backend.js'
import { readDocument } from './read-document.js'
import { SavedIndexFile } from './saved-index-file.js'
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
 * The folder, inside a records folder, where a clean close saves its indexes (see saved-index-file.ts).
 * A folder of its own: saving them changes nothing in the records folder, whose own inode and times
 * then say whether anything was added, removed or renamed there since.
 */
export const SAVED_INDEXES_FOLDER = 'saved'

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

  savedIndexes(stamp: string): SavedIndexes | undefined {
    return SavedIndexFile.open(this.dir, join(this.dir, SAVED_INDEXES_FOLDER), stamp)
  }

  async saveIndexes(snapshot: IndexSnapshot): Promise<void> {
    if (this.writesRefused) return
    // Where an earlier Homeport kept them, in the records folder itself.
    await unlink(join(this.dir, 'indexes.saved')).catch(() => undefined)
    await SavedIndexFile.save(this.dir, await makeFolder(this.dir, SAVED_INDEXES_FOLDER), snapshot)
  }

  readNow(name: string): StoredDocument {
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
