import { open, readFile, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Adapter } from 'lowdb'

/** Suffix of the temporary files a write goes through; a crash can leave one behind. */
export const TEMP_SUFFIX = '.partial'

/**
 * A lowdb adapter for one JSON file whose writes are durable and atomic: the bytes go to a
 * temporary file beside it, are fsynced, renamed over the target, and the folder is fsynced so
 * the rename itself survives a power cut. lowdb's own TextFile (steno) renames but never fsyncs.
 * A reader therefore sees the old document or the new one, never a torn one.
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
    await writeFileAtomically(this.path, JSON.stringify(data))
  }
}

export async function writeFileAtomically(path: string, contents: string | Uint8Array, mode = 0o600): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`)
  const file = await open(temp, 'w', mode)
  try {
    await file.writeFile(contents)
    await file.sync()
  } catch (error) {
    await file.close()
    await unlink(temp).catch(() => undefined)
    throw error
  }
  await file.close()
  try {
    await rename(temp, path)
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
  await syncDirectory(dirname(path))
}

/** Makes a rename or unlink in `dir` durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
