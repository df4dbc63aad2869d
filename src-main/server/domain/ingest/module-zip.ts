import { PassThrough, type Readable } from 'node:stream'
import { createDeflateRaw } from 'node:zlib'
import { Zip, ZipPassThrough, type FlateError } from 'fflate'
import type { ArchiveRef } from '../../store/records.js'
import type { Archives } from '../../store/port.js'
import { readModuleArchive, type ArchiveLimits, type CheckedEntry } from './archive-reader.js'

/** Every entry's time: the zip format's first day. The zip is made once and kept, but nothing about it should say when. */
const ZIP_EPOCH = new Date(1980, 0, 1)
/** Unix, in the zip's "made by" field: it makes the external attributes carry Unix modes (a link's type, an executable bit). */
const UNIX = 3

/**
 * Repackages a module archive (a .tar.gz, already ingested) as the zip OpenTofu installs `oci://`
 * modules from: the same files at the same paths, the module's root the zip's root, links kept as
 * links, read within the same limits as at ingest. The zip is stored as it is made, never held whole.
 */
export async function storeModuleZip(archives: Archives, source: Readable, compressedSize: number, limits: ArchiveLimits): Promise<ArchiveRef> {
  const out = new PassThrough()
  const zip = new Zip((error, chunk, final) => {
    if (error) return void out.destroy(error)
    out.write(chunk)
    if (final) out.end()
  })
  // A zip holds at most a little more than its files: a header and a directory entry per file.
  const stored = archives.put(out, limits.maxUnpackedBytes + limits.maxEntries * 1024)
  try {
    await readModuleArchive(source, compressedSize, () => false, limits, (entry) => addEntry(zip, entry))
    zip.end()
  } catch (error) {
    out.destroy(error as Error)
    await stored.catch(() => undefined)
    throw error
  }
  return stored
}

/**
 * A zip entry deflated by Node's zlib, in its thread pool, as fflate allows (a ZipPassThrough whose
 * process() compresses). fflate's own ZipDeflate compresses in JavaScript, on the event loop: a
 * quarter of a second, with every request waiting, for the 5 MB of Terraform in bench figure 7.
 */
class ZlibZipDeflate extends ZipPassThrough {
  private readonly deflate = createDeflateRaw({ level: 6 })

  constructor(filename: string) {
    super(filename)
    this.compression = 8
    // zlib's output is never over shared memory, which is all fflate's narrower type rules out.
    this.deflate.on('data', (chunk: Buffer<ArrayBuffer>) => this.ondata(null, chunk, false))
    this.deflate.on('end', () => this.ondata(null, new Uint8Array(0), true))
    this.deflate.on('error', (error) => this.ondata(error as FlateError, new Uint8Array(0), true))
  }

  override process(chunk: Uint8Array, final: boolean): void {
    if (chunk.length > 0) this.deflate.write(chunk)
    if (final) this.deflate.end()
  }
}

function addEntry(zip: Zip, entry: CheckedEntry): void {
  const file = entry.kind === 'link' ? new ZipPassThrough(entry.path) : new ZlibZipDeflate(entry.path)
  file.mtime = ZIP_EPOCH
  file.os = UNIX
  // The Unix type and mode in the high 16 bits (multiplied, not shifted: a shift would make it negative).
  file.attrs = ((entry.kind === 'link' ? 0o120000 : 0o100000) | (entry.mode & 0o777)) * 0x10000
  zip.add(file)
  if (entry.kind === 'link') return file.push(Buffer.from(entry.linkpath ?? ''), true)
  entry.data.on('data', (chunk: Buffer) => file.push(chunk))
  entry.data.on('end', () => file.push(new Uint8Array(0), true))
}
