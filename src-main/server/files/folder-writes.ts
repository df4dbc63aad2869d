import { randomBytes } from 'node:crypto'
// The one place that imports node's file-writing calls (eslint.config.js refuses them elsewhere).
import { createWriteStream } from 'node:fs'
import { copyFile, link, mkdir, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

/**
 * Every file Homeport writes, it writes through this module, naming the folder the file belongs
 * in: the data directory, a bundle's staging folder, the folder a user chose for an output. A
 * path that would land outside that folder (`../`, an absolute path, a NUL) is refused before
 * anything is written, whatever produced it: a provider's file name from an API call, a bundle's
 * manifest, an upstream's answer. Names are checked here once, rather than trusted everywhere.
 */

/** A write aimed outside its folder; nothing was written. */
export class OutsideFolderError extends Error {
  constructor(path: string) {
    // The folder is not named: the message may reach an API caller, who has no business with the server's paths.
    super(`${JSON.stringify(path)} is not a path inside the folder it is written to: nothing was written`)
    this.name = 'OutsideFolderError'
  }
}

/** Suffix of the temporary files an atomic write goes through; a crash can leave one behind. */
export const TEMP_SUFFIX = '.partial'

/** `path` (relative to `folder`, or absolute) as an absolute path inside `folder`; refused if it would leave it or name the folder itself. */
export function pathInside(folder: string, path: string): string {
  const root = resolve(folder)
  if (path.includes('\0') || folder.includes('\0')) throw new OutsideFolderError(path)
  const target = resolve(root, path)
  const within = relative(root, target)
  if (within === '' || within === '..' || within.startsWith(`..${sep}`) || isAbsolute(within)) throw new OutsideFolderError(path)
  return target
}

/** Makes `folder` (and, with `path`, a folder inside it), with its parents; returns the folder made. */
export async function makeFolder(folder: string, path?: string, mode?: number): Promise<string> {
  const target = path === undefined ? resolve(folder) : pathInside(folder, path)
  await mkdir(target, { recursive: true, ...(mode === undefined ? {} : { mode }) })
  return target
}

export interface WriteOptions {
  /** The new file's permissions (0o600 unless told: Homeport's files are its own). */
  mode?: number
  /** Fail with EEXIST rather than replace a file that is there. */
  exclusive?: boolean
  /**
   * Write a temporary file beside it, fsync it, rename it over the target and fsync the folder:
   * a reader (or a power cut) sees the old file or the new one, never a torn one. The target's
   * folder must exist: a durable replace never quietly makes a data folder that went away.
   */
  atomic?: boolean
}

/** Writes `contents` to `path` inside `folder` (a plain write makes its parent folders); returns the file's absolute path. */
export async function writeInside(folder: string, path: string, contents: string | Uint8Array | Readable | AsyncIterable<Uint8Array>, options: WriteOptions = {}): Promise<string> {
  const target = pathInside(folder, path)
  const mode = options.mode ?? 0o600
  if (!options.atomic) {
    await mkdir(dirname(target), { recursive: true })
    await writeTo(target, contents, options.exclusive ? 'wx' : 'w', mode)
    return target
  }
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`)
  try {
    await writeTo(temp, contents, 'w', mode)
    if (options.exclusive) {
      // link fails where the target exists: the same refusal as 'wx', atomically.
      await link(temp, target)
      await unlink(temp)
    } else {
      await rename(temp, target)
    }
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
  await syncFolder(dirname(target))
  return target
}

/** Moves a file within `folder` (a finished upload into its place); both paths must be inside it. */
export async function moveInside(folder: string, from: string, to: string): Promise<void> {
  const target = pathInside(folder, to)
  await mkdir(dirname(target), { recursive: true })
  await rename(pathInside(folder, from), target)
}

/**
 * Hard-links `source` (a file anywhere) at `path` inside `folder`: it keeps this exact content even
 * if the source is renamed over later. It fails with EEXIST where a file is there already (a lock
 * relies on that), unless `orCopy`, which copies where a link cannot be made (another file system).
 */
export async function linkInside(source: string, folder: string, path: string, { orCopy = false } = {}): Promise<void> {
  const target = pathInside(folder, path)
  await mkdir(dirname(target), { recursive: true })
  await link(source, target).catch((error: unknown) => {
    if (!orCopy) throw error
    return copyFile(source, target)
  })
}

/** Makes a rename or unlink in `dir` durable. */
export async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

async function writeTo(path: string, contents: string | Uint8Array | Readable | AsyncIterable<Uint8Array>, flags: string, mode: number): Promise<void> {
  if (typeof contents === 'string' || contents instanceof Uint8Array) {
    const file = await open(path, flags, mode)
    try {
      await file.writeFile(contents)
      await file.sync()
    } finally {
      await file.close()
    }
    return
  }
  await pipeline(contents, createWriteStream(path, { flags, mode, flush: true }))
}
