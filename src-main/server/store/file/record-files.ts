import { readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { Adapter } from 'lowdb'
import { makeFolder, syncFolder, TEMP_SUFFIX } from '../../files/folder-writes.js'
import type { RecordBackend, RecordFile } from '../engine/record-backend.js'
import type { WritesRefusedError } from '../errors.js'
import { AtomicJsonFile } from './atomic-json-file.js'

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
