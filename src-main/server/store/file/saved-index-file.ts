import { closeSync, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs'
import { readdir, unlink } from 'node:fs/promises'
import { dirname, join, sep } from 'node:path'
import { syncFolder, TEMP_SUFFIX, writeInside } from '../../files/folder-writes.js'
import type { GroupEntries, IndexSnapshot, SavedIndexes, UniqueEntries } from '../engine/record-backend.js'

/** The file, in the saved-indexes folder, that holds them. */
export const SAVED_INDEXES_FILE = 'indexes'

/** How the file starts: a name, then the length of its header in bytes. */
const MAGIC = 'homeport-saved-indexes'

interface Header {
  stamp: string
  /** The records folder's inode and modification and change times (in nanoseconds) when they were saved. */
  folder: string
  ids: string[]
  /**
   * Each record file's inode, size and modification time then, three numbers a record in the order
   * of `ids`: a Float64Array, in base64 (300,000 numbers in JSON were a tenth of a start's parsing).
   */
  files: string
  /** Where each index's entries are, after the header: `unique/<index>` and `group/<group>`, [start, length] in bytes. */
  sections: Record<string, [start: number, length: number]>
}

/**
 * A records folder's indexes as a clean close saved them, in one file: a header with the ids, and
 * each index's entries in a section of its own, read and parsed only when that index is first used.
 * A start reads the header alone; at 1,000,000 versions that is 5.4 MB of the file's 49, and the
 * version-id index's million entries are never made unless a request needs them.
 *
 * They are taken only while the records folder and every record file are as they were at the close.
 * The folder's inode, modification and change times change with any file added, removed or renamed
 * there (every write Homeport makes renames a file into it, and so does a write a crash cut short),
 * and each file's inode, size and modification time with a change made in place by hand: a `stat`
 * each, 0.3 s at 100,000 modules, where listing the folder to count its files took 0.1 s more.
 */
export class SavedIndexFile implements SavedIndexes {
  private constructor(
    private readonly dir: string,
    private readonly path: string,
    private readonly header: Header,
    private readonly files: Float64Array,
    /** The file's inode and size: a section is read only from the file the header came from. */
    private readonly identity: string,
    /** Where the sections start. */
    private readonly body: number
  ) {}

  get ids(): readonly string[] {
    return this.header.ids
  }

  /** The indexes saved in `savedDir` for the records folder `dir`, if they carry `stamp` and the folder has not changed since. */
  static open(dir: string, savedDir: string, stamp: string): SavedIndexFile | undefined {
    const path = join(savedDir, SAVED_INDEXES_FILE)
    try {
      const fd = openSync(path, 'r')
      try {
        const start = readAt(fd, 0, 64).toString('latin1')
        const match = new RegExp(`^${MAGIC} (\\d{1,12})\\n`).exec(start)
        if (!match) return undefined
        const body = match[0].length + Number(match[1])
        const header = JSON.parse(readAt(fd, match[0].length, Number(match[1])).toString('utf8')) as Header
        if (header.stamp !== stamp || header.folder !== folderSignature(dir)) return undefined
        const bytes = Buffer.from(header.files, 'base64')
        if (bytes.length !== header.ids.length * 3 * Float64Array.BYTES_PER_ELEMENT) return undefined
        // Copied out: a small Buffer may sit at an offset of Node's pool that a Float64Array cannot start at.
        const files = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))
        const saved = new SavedIndexFile(dir, path, header, files, identity(fstatSync(fd)), body)
        return header.ids.every((_, place) => !saved.changed(place)) ? saved : undefined
      } finally {
        closeSync(fd)
      }
    } catch {
      return undefined
    }
  }

  /** Saves `snapshot` for the records folder `dir` in `savedDir`, which must be inside it and made already (changing the folder after this would void them). */
  static async save(dir: string, savedDir: string, snapshot: IndexSnapshot): Promise<void> {
    // What a save a crash cut short left: its file is as large as the indexes.
    for (const entry of await readdir(savedDir)) if (entry.endsWith(TEMP_SUFFIX)) await unlink(join(savedDir, entry))
    const files = new Float64Array(snapshot.ids.length * 3)
    snapshot.ids.forEach((id, place) => files.set(fileVersion(statSync(recordPath(dir, id), { throwIfNoEntry: false })), place * 3))
    const sections: Header['sections'] = {}
    const parts: Buffer[] = []
    let offset = 0
    const add = (name: string, entries: unknown) => {
      const part = Buffer.from(JSON.stringify(entries))
      sections[name] = [offset, part.length]
      parts.push(part)
      offset += part.length
    }
    for (const [index, entries] of Object.entries(snapshot.unique)) add(`unique/${index}`, entries)
    for (const [group, entries] of Object.entries(snapshot.groups)) add(`group/${group}`, entries)
    const header = Buffer.from(JSON.stringify({ stamp: snapshot.stamp, folder: folderSignature(dir), ids: snapshot.ids, files: Buffer.from(files.buffer).toString('base64'), sections } satisfies Header))
    await writeInside(savedDir, SAVED_INDEXES_FILE, Buffer.concat([Buffer.from(`${MAGIC} ${header.length}\n`), header, ...parts]), { atomic: true })
  }

  unique(index: string): UniqueEntries | undefined {
    const entries = this.section(`unique/${index}`) as Partial<UniqueEntries> | undefined
    return Array.isArray(entries?.keys) && Array.isArray(entries.records) && entries.keys.length === entries.records.length ? (entries as UniqueEntries) : undefined
  }

  group(group: string): GroupEntries | undefined {
    const entries = this.section(`group/${group}`) as Partial<GroupEntries> | undefined
    if (!Array.isArray(entries?.keys) || !Array.isArray(entries.sizes) || !Array.isArray(entries.records) || entries.keys.length !== entries.sizes.length) return undefined
    return entries.sizes.reduce((sum, size) => sum + size, 0) === entries.records.length ? (entries as GroupEntries) : undefined
  }

  private section(name: string): unknown {
    const where = this.header.sections[name]
    if (!where) return undefined
    try {
      const fd = openSync(this.path, 'r')
      try {
        if (identity(fstatSync(fd)) !== this.identity) return undefined
        return JSON.parse(readAt(fd, this.body + where[0], where[1]).toString('utf8'))
      } finally {
        closeSync(fd)
      }
    } catch {
      return undefined
    }
  }

  /** Whether the record file at `place` is not the one the indexes were saved with. */
  private changed(place: number): boolean {
    const now = fileVersion(statSync(recordPath(this.dir, this.header.ids[place]!), { throwIfNoEntry: false }))
    const { files } = this
    return now[0] !== files[3 * place] || now[1] !== files[3 * place + 1] || now[2] !== files[3 * place + 2]
  }

  async discard(): Promise<void> {
    await unlink(this.path).catch(() => undefined)
    await syncFolder(dirname(this.path))
  }
}

/** Record `id`'s file in the records folder `dir` (a normalized path). Not path.join: it was a sixth of the start's check of 100,000 files. */
function recordPath(dir: string, id: string): string {
  return `${dir}${sep}${id}.json`
}

/** `length` bytes of the file `fd` from `position` (short if the file is). */
function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length)
  let read = 0
  while (read < length) {
    const got = readSync(fd, buffer, read, length - read, position + read)
    if (got === 0) break
    read += got
  }
  return buffer.subarray(0, read)
}

/** A record file's inode, size and modification time; zeros when it is missing. */
function fileVersion(stats: Stats | undefined): [number, number, number] {
  return stats ? [stats.ino, stats.size, stats.mtimeMs] : [0, 0, 0]
}

function identity(stats: Stats): string {
  return `${stats.ino}:${stats.size}`
}

/** The folder's inode and its modification and change times, to the nanosecond: any entry added, removed or renamed changes them. */
function folderSignature(dir: string): string {
  const stats = statSync(dir, { bigint: true })
  return `${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}`
}
