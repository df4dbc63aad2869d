import { createGunzip } from 'node:zlib'
import { posix } from 'node:path'
import type { Readable } from 'node:stream'
import { Parser, type ReadEntry } from 'tar'
import { TarEndCheck } from './tar-end.js'

/** What an archive may hold before it is refused. docs/guide/publishing.md lists these ("hostile archives"). */
export interface ArchiveLimits {
  /** Entries of any kind. */
  maxEntries: number
  /** The sum of the sizes of the files once unpacked. */
  maxUnpackedBytes: number
  /** Unpacked bytes per compressed byte, checked once past `ratioFloorBytes`. */
  maxRatio: number
  ratioFloorBytes: number
  /** Largest single file whose text is read (Terraform files, READMEs); larger ones are skipped with a warning. */
  maxTextFileBytes: number
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxEntries: 10_000,
  maxUnpackedBytes: 256 * 1024 * 1024,
  maxRatio: 200,
  ratioFloorBytes: 8 * 1024 * 1024,
  maxTextFileBytes: 4 * 1024 * 1024
}

/** The archive is not one Homeport accepts; the message says why, for the person who made it. */
export class InvalidArchiveError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'InvalidArchiveError'
  }
}

/** An entry of an archive that passed every rule, as a visitor of readModuleArchive sees it. */
export interface CheckedEntry {
  /** Relative to the module root. */
  path: string
  kind: 'file' | 'link'
  /** The permission bits the archive gives it. */
  mode: number
  /** A link's target, as the archive names it. */
  linkpath?: string
  /** A file's bytes, as they are read: listen to it at once, or they are gone. */
  data: ReadEntry
}

export interface ArchiveContents {
  /** The text of the files `wanted` asked for, by path relative to the module root. */
  files: Map<string, string>
  /** Every regular file's path. */
  paths: string[]
  warnings: string[]
}

/**
 * Reads a module archive (a gzipped tar with the module at its root) entry by entry, without
 * writing anything to disk, and refuses it at the first entry that breaks a rule: absolute
 * paths, `..`, links that leave the root, devices, too many files, too many bytes, a compression
 * ratio that only a bomb has. Only the files `wanted` selects are kept, as text.
 */
export async function readModuleArchive(
  source: Readable,
  compressedSize: number,
  wanted: (path: string) => boolean,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
  /** Sees every file and link that passed the rules, in the archive's order (a repackager: domain/ingest/module-zip.ts). */
  visit?: (entry: CheckedEntry) => void
): Promise<ArchiveContents> {
  const files = new Map<string, string>()
  const paths: string[] = []
  const warnings: string[] = []
  let entries = 0
  let unpacked = 0
  let failure: Error | undefined

  const onEntry = (entry: ReadEntry): void => {
    try {
      entries++
      if (entries > limits.maxEntries) throw new InvalidArchiveError(`The archive has more than ${limits.maxEntries} entries.`)
      const path = entryPath(entry.path)
      checkType(entry, path)
      if (entry.type === 'Directory') return entry.resume()
      unpacked += entry.size
      if (unpacked > limits.maxUnpackedBytes) {
        throw new InvalidArchiveError(`The archive unpacks to more than ${formatBytes(limits.maxUnpackedBytes)}.`)
      }
      if (!isRegularFile(entry)) {
        visit?.({ path, kind: 'link', mode: entry.mode ?? 0o777, linkpath: entry.linkpath ?? '', data: entry })
        return entry.resume()
      }
      visit?.({ path, kind: 'file', mode: entry.mode ?? 0o644, data: entry })
      paths.push(path)
      if (!wanted(path)) return entry.resume()
      if (entry.size > limits.maxTextFileBytes) {
        warnings.push(`${path} is larger than ${formatBytes(limits.maxTextFileBytes)}; it was not read.`)
        return entry.resume()
      }
      const chunks: Buffer[] = []
      entry.on('data', (chunk: Buffer) => chunks.push(chunk))
      entry.on('end', () => files.set(path, Buffer.concat(chunks).toString('utf8')))
    } catch (error) {
      failure ??= error as Error
      entry.resume()
    }
  }

  const parser = new Parser({ strict: true, onReadEntry: onEntry })
  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('end', resolve)
    parser.on('error', reject)
  })
  // The parser reports errors as events; keep the first so the loop below stops at once.
  parsed.catch((error: unknown) => {
    failure ??= error as Error
  })

  // zlib's default 16 KB would make a megabyte 64 trips to the thread pool and back: on a busy single
  // core, 5–20 ms to read a 1 MB module rather than 2–4 (bench figure 3).
  const gunzip = createGunzip({ chunkSize: 256 * 1024 })
  source.on('error', (error) => gunzip.destroy(error))
  source.pipe(gunzip)
  let decompressed = 0
  const end = new TarEndCheck()
  // A tar with no entries is only its end-of-archive zero blocks; node-tar calls that unrecognized.
  let onlyZeros = true
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      decompressed += chunk.length
      if (onlyZeros && chunk.some((byte) => byte !== 0)) onlyZeros = false
      if (decompressed > limits.ratioFloorBytes && decompressed > compressedSize * limits.maxRatio) {
        throw new InvalidArchiveError(
          `The archive expands more than ${limits.maxRatio} times (${formatBytes(compressedSize)} compressed); it looks like a decompression bomb.`
        )
      }
      if (!end.write(chunk)) {
        throw new InvalidArchiveError('The archive has data after its end-of-archive marker; upload a plain .tar.gz with nothing appended.')
      }
      parser.write(chunk)
      if (failure) throw failure
    }
    parser.end()
    await parsed
    // gunzip stops quietly at bytes that follow the gzip stream; Terraform's reader does not.
    if (gunzip.bytesWritten < compressedSize) {
      throw new InvalidArchiveError(`The archive has ${formatBytes(compressedSize - gunzip.bytesWritten)} after the end of its gzip stream; upload a plain .tar.gz with nothing appended.`)
    }
  } catch (error) {
    gunzip.destroy()
    source.destroy()
    // Until the source has closed, what it was reading from may still be settling (PostgreSQL's archive
    // cache finishing, or taking back, the copy this read filled): the refusal waits for it.
    if (!source.closed) await new Promise((closed) => source.once('close', closed))
    if (entries === 0 && decompressed > 0 && onlyZeros) throw new InvalidArchiveError('The archive holds no files.')
    throw describe(failure ?? error)
  }
  if (failure) throw describe(failure)
  if (paths.length === 0) throw new InvalidArchiveError('The archive holds no files.')
  return { files, paths, warnings }
}

/** The entry's path relative to the root, or an error for one that could leave it. */
function entryPath(raw: string): string {
  if (raw.includes('\0')) throw new InvalidArchiveError('An entry has a NUL character in its name.')
  const path = raw.replace(/\\/g, '/')
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) {
    throw new InvalidArchiveError(`The archive has an absolute path, "${raw}"; paths must be relative to the module root.`)
  }
  if (path.split('/').includes('..')) {
    throw new InvalidArchiveError(`The archive has a path that climbs out of the module root, "${raw}".`)
  }
  return posix.normalize(path).replace(/^(\.\/)+/, '').replace(/\/$/, '')
}

function isRegularFile(entry: ReadEntry): boolean {
  return entry.type === 'File' || entry.type === 'OldFile' || entry.type === 'ContiguousFile'
}

function checkType(entry: ReadEntry, path: string): void {
  if (isRegularFile(entry) || entry.type === 'Directory') return
  if (entry.type === 'SymbolicLink' || entry.type === 'Link') {
    const target = (entry.linkpath ?? '').replace(/\\/g, '/')
    // A symbolic link resolves from its own folder; a hard link names a path from the root.
    const base = entry.type === 'SymbolicLink' ? posix.dirname(path) : '.'
    const resolved = posix.normalize(posix.join(base, target))
    if (target === '' || target.startsWith('/') || resolved === '..' || resolved.startsWith('../')) {
      throw new InvalidArchiveError(`"${path}" links to "${entry.linkpath ?? ''}", outside the module root.`)
    }
    return
  }
  throw new InvalidArchiveError(`"${path}" is a ${entry.type}; a module archive may hold only files, folders and links.`)
}

/** Turns zlib's and tar's terse errors into what a person needs to hear. */
function describe(error: unknown): Error {
  if (error instanceof InvalidArchiveError) return error
  const { code, message } = error as NodeJS.ErrnoException
  if (code === 'Z_DATA_ERROR') {
    return new InvalidArchiveError(`The upload is not a gzip-compressed tar archive (${message}). Upload a .tar.gz with the module at its root.`)
  }
  if (code === 'Z_BUF_ERROR' || /unexpected end/i.test(message)) {
    return new InvalidArchiveError('The archive is truncated: the gzip stream ends early. Upload it again.')
  }
  if (code?.startsWith('TAR_') || message.startsWith('TAR_')) {
    return new InvalidArchiveError(`The archive is not a valid tar file (${message.replace(/^TAR_[A-Z_]+: /, '')}).`)
  }
  return error as Error
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`
  if (bytes >= 1024) return `${Math.round(bytes / 102.4) / 10} KB`
  return `${bytes} bytes`
}
