import { PassThrough, type Readable } from 'node:stream'
import { crc32, createDeflateRaw, deflateRawSync, type DeflateRaw } from 'node:zlib'
import { Zip, type AsyncFlateStreamHandler, type FlateError, type ZipInputFile } from 'fflate'
import type { ArchiveRef } from '../../store/records.js'
import type { Archives } from '../../store/port.js'
import { readModuleArchive, type ArchiveLimits, type CheckedEntry } from './archive-reader.js'

/** Every entry's time: the zip format's first day. The zip is made once and kept, but nothing about it should say when. */
const ZIP_EPOCH = new Date(1980, 0, 1)
/** Unix, in the zip's "made by" field: it makes the external attributes carry Unix modes (a link's type, an executable bit). */
const UNIX = 3

/**
 * A module's archive (a .tar.gz, already checked or being checked at ingest) repackaged as the zip
 * OpenTofu installs `oci://` modules from: the same files at the same paths, the module's root the
 * zip's root, links kept as links. It is made as the archive is read (`add` is readModuleArchive's
 * visitor, so one read of the archive can document it and zip it) and stored as it is made, never
 * held whole.
 */
export class ModuleZipWriter {
  private readonly out = new PassThrough()
  private readonly stored: Promise<ArchiveRef>
  private readonly zip = new Zip((error, chunk, final) => {
    if (error) return void this.out.destroy(error)
    this.out.write(chunk)
    if (final) this.out.end()
  })

  constructor(archives: Archives, limits: ArchiveLimits) {
    // The store hears an error from its read of the zip (and `stored` fails with it), but it may not have
    // begun to read when a small archive fails: unheard, the error would take the process down.
    this.out.on('error', () => undefined)
    // A zip holds at most a little more than its files: a header and a directory entry per file.
    this.stored = archives.put(this.out, limits.maxUnpackedBytes + limits.maxEntries * 1024)
    // Heard by finish or abandon; until then a failed store must not be an unhandled rejection.
    this.stored.catch(() => undefined)
  }

  /** Adds an entry of the archive, as readModuleArchive visits it. */
  readonly add = (entry: CheckedEntry): void => addEntry(this.zip, entry)

  /** The archive was read whole: the zip, once stored. */
  finish(): Promise<ArchiveRef> {
    this.zip.end()
    return this.stored
  }

  /** The archive could not be read: nothing is kept. */
  async abandon(error: Error): Promise<void> {
    this.out.destroy(error)
    await this.stored.catch(() => undefined)
  }
}

/** Repackages a stored module archive as its zip (see ModuleZipWriter), read within the same limits as at ingest. */
export async function storeModuleZip(archives: Archives, source: Readable, compressedSize: number, limits: ArchiveLimits): Promise<ArchiveRef> {
  const writer = new ModuleZipWriter(archives, limits)
  try {
    await readModuleArchive(source, compressedSize, () => false, limits, writer.add)
  } catch (error) {
    await writer.abandon(error as Error)
    throw error
  }
  return writer.finish()
}

/** Deflate's level in every zip: zlib's default, as zip tools use it. */
const LEVEL = 6

/**
 * Up to this size a file is deflated at once when it has been read, on the event loop: a few dozen
 * microseconds for a Terraform file, where a zlib stream's trips to the thread pool cost it several
 * times that (33 files of a realistic module: 5.5 ms streamed, 1.8 ms at once). Larger files stream.
 */
const DEFLATED_AT_ONCE_BYTES = 64 * 1024

/** How a file's bytes go into the zip. */
type Packing = 'stored' | 'deflated' | 'deflated at once'

/**
 * One file of the zip, as fflate's Zip takes it: its bytes stored as they are or deflated by Node's
 * zlib (see Packing), and its CRC-32 by zlib too. fflate's own entries compute the CRC in JavaScript,
 * on the event loop (4 ms of publishing a 1 MB module, bench figure 3), and its ZipDeflate compresses
 * there too: a quarter of a second, with every request waiting, for the 5 MB of Terraform in bench
 * figure 7.
 */
class ZipEntry implements ZipInputFile {
  crc = 0
  size = 0
  readonly compression: number
  readonly mtime = ZIP_EPOCH
  readonly os = UNIX
  /** Set by the Zip it is added to. */
  ondata?: AsyncFlateStreamHandler
  private readonly deflate: DeflateRaw | undefined
  /** A file deflated at once: its bytes until the last. */
  private readonly held: Uint8Array[] | undefined

  constructor(
    readonly filename: string,
    /** The Unix type and mode in the high 16 bits of the external attributes. */
    readonly attrs: number,
    packing: Packing
  ) {
    this.compression = packing === 'stored' ? 0 : 8
    if (packing === 'deflated at once') this.held = []
    if (packing !== 'deflated') return
    const deflate = (this.deflate = createDeflateRaw({ level: LEVEL }))
    // zlib's output is never over shared memory, which is all fflate's narrower type rules out.
    deflate.on('data', (chunk: Buffer<ArrayBuffer>) => this.ondata!(null, chunk, false))
    deflate.on('end', () => this.ondata!(null, new Uint8Array(0), true))
    deflate.on('error', (error) => this.ondata!(error as FlateError, new Uint8Array(0), true))
  }

  /** The file's next bytes, as they come (the last with `final`). */
  push(chunk: Uint8Array, final: boolean): void {
    this.crc = crc32(chunk, this.crc)
    this.size += chunk.length
    if (this.held) {
      this.held.push(chunk)
      if (final) this.ondata!(null, deflateRawSync(Buffer.concat(this.held), { level: LEVEL }), true)
      return
    }
    if (!this.deflate) return this.ondata!(null, chunk as Uint8Array<ArrayBuffer>, final)
    if (chunk.length > 0) this.deflate.write(chunk)
    if (final) this.deflate.end()
  }
}

/**
 * Files in formats that are compressed already, stored as they are, as zip tools do (Info-ZIP's
 * `zip -n`): deflate cannot shrink them, and trying costs as much as it does on any random bytes,
 * about 30 ms a megabyte, most of a publish whose module has a diagram (bench figure 3).
 */
const COMPRESSED_ALREADY = /\.(png|jpe?g|gif|webp|avif|zip|gz|tgz|bz2|xz|zst|7z|jar|woff2?)$/i

function addEntry(zip: Zip, entry: CheckedEntry): void {
  const packing: Packing =
    entry.kind === 'link' || COMPRESSED_ALREADY.test(entry.path) ? 'stored' : entry.data.size <= DEFLATED_AT_ONCE_BYTES ? 'deflated at once' : 'deflated'
  // Multiplied, not shifted: a shift would make it negative.
  const attrs = ((entry.kind === 'link' ? 0o120000 : 0o100000) | (entry.mode & 0o777)) * 0x10000
  const file = new ZipEntry(entry.path, attrs, packing)
  zip.add(file)
  if (entry.kind === 'link') return file.push(Buffer.from(entry.linkpath ?? ''), true)
  entry.data.on('data', (chunk: Buffer) => file.push(chunk, false))
  entry.data.on('end', () => file.push(new Uint8Array(0), true))
}
