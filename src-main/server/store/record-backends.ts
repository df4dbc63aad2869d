import { readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { Adapter } from 'lowdb'
import { AtomicJsonFile } from './atomic-json-file.js'
import { makeFolder, syncFolder, TEMP_SUFFIX } from '../files/folder-writes.js'
import type { WritesRefusedError } from './errors.js'

/** The persisted form of a record: it says which schema it was written with. */
export interface RecordFile {
  schemaVersion: number
  record: Record<string, unknown>
}

/**
 * Where a Collection keeps its records, one document per record, named `<id>.json`. The
 * collection does the rest (indexes, the write queue, migrations, checks), so the file store and
 * the memory store share all of it.
 */
export interface RecordBackend {
  /** The names of the stored records, after clearing what an interrupted write left (when it may). */
  names(): Promise<string[]>
  /** The document `name`, to read and write. */
  document(name: string): Adapter<RecordFile>
  remove(name: string): Promise<void>
  /** How to name the document to a person (its path), in errors. */
  describe(name: string): string
}

/** One durable, atomically written JSON file per record in a folder. */
export class RecordFiles implements RecordBackend {
  constructor(
    readonly dir: string,
    private readonly writesRefused?: WritesRefusedError
  ) {}

  async names(): Promise<string[]> {
    if (!this.writesRefused) await makeFolder(this.dir)
    const names: string[] = []
    for (const entry of await readdir(this.dir).catch(() => [])) {
      // A write interrupted before its rename leaves only a temporary file; the record it
      // belonged to was never acknowledged.
      if (entry.endsWith(TEMP_SUFFIX)) {
        if (!this.writesRefused) await unlink(join(this.dir, entry))
      } else if (entry.endsWith('.json')) names.push(entry)
    }
    return names
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

/** Records in memory only: the same collection logic, for fast domain tests. */
export class RecordMemory implements RecordBackend {
  private readonly documents = new Map<string, string>()

  names(): Promise<string[]> {
    return Promise.resolve([...this.documents.keys()])
  }

  document(name: string): Adapter<RecordFile> {
    return {
      // Kept as JSON, as on disk: what is read back shares nothing with what was written.
      read: () => Promise.resolve(this.documents.has(name) ? (JSON.parse(this.documents.get(name)!) as RecordFile) : null),
      write: (data) => {
        this.documents.set(name, JSON.stringify(data))
        return Promise.resolve()
      }
    }
  }

  remove(name: string): Promise<void> {
    this.documents.delete(name)
    return Promise.resolve()
  }

  describe(name: string): string {
    return `memory:${name}`
  }
}
