import { readFile } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import type { Adapter } from 'lowdb'
import { writeInside } from '../../files/folder-writes.js'

/**
 * A lowdb adapter for one JSON file whose writes are durable and atomic (files/folder-writes.ts:
 * a temporary file beside it, fsynced, renamed over the target, the folder fsynced). lowdb's own
 * TextFile (steno) renames but never fsyncs. A reader therefore sees the old document or the new
 * one, never a torn one.
 */
export class AtomicJsonFile<T> implements Adapter<T> {
  constructor(readonly path: string) {}

  async read(): Promise<T | null> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
    return JSON.parse(text) as T
  }

  async write(data: T): Promise<void> {
    await writeInside(dirname(this.path), basename(this.path), JSON.stringify(data), { atomic: true })
  }
}
