import type { Readable } from 'node:stream'
import type { Archives } from '../../store/port.js'

/** A byte range of a file, both ends included. */
export interface ByteRange {
  start: number
  end: number
}

/**
 * Bytes the archive store keeps (a module archive, a provider's file, an OCI layer) as the faces
 * send them: the content hash they are kept by, which names the same bytes forever, their size,
 * and a way to read them whole or a range of them.
 */
export interface ArchiveFile {
  sha256: string
  size: number
  open(range?: ByteRange): Readable
}

/** The stored file `stored` names, read from `archives`. */
export function archiveFile(archives: Archives, stored: { sha256: string; size: number }): ArchiveFile {
  const { sha256, size } = stored
  return { sha256, size, open: (range) => archives.read(sha256, range) }
}
