import type { Store } from '../../store/port.js'
import { archiveFile, type ArchiveFile } from '../archives/archive-file.js'
import type { Caller } from '../core/access.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import { DEFAULT_ARCHIVE_LIMITS, formatBytes, readModuleArchive, type ArchiveLimits } from '../ingest/archive-reader.js'
import type { ModuleAddress } from './module-rules.js'
import type { FirstDownloads } from './first-download.js'
import type { ModuleService } from './modules.js'

/** A file of a version's archive, as the Files tab lists it. */
export interface VersionFile {
  /** Relative to the module root. */
  path: string
  size: number
}

/** The largest file shown as text: a module's files are source, a few kilobytes; past this, download the archive. */
export const MAX_SHOWN_FILE_BYTES = 1024 * 1024

/**
 * The files of a published version, read from its archive as it was published, for the GUI's Files tab:
 * the same reader and limits as ingest, nothing unpacked to disk, and the same authorization as reading
 * the version.
 */
export class VersionFiles {
  constructor(
    private readonly store: Store,
    private readonly modules: ModuleService,
    private readonly firstDownloads: FirstDownloads,
    private readonly limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS
  ) {}

  /** Every file and link of the version's archive, in path order. */
  async list(caller: Caller, address: ModuleAddress, version: string): Promise<VersionFile[]> {
    const archive = await this.archiveOf(caller, address, version)
    const found: VersionFile[] = []
    await readModuleArchive(this.store.archives.read(archive.sha256), archive.size, () => false, this.limits, (entry) => {
      if (entry.kind === 'file') found.push({ path: entry.path, size: entry.data.size })
    })
    return found.sort((a, b) => a.path.localeCompare(b.path))
  }

  /** One file's text; a binary file or one past MAX_SHOWN_FILE_BYTES is refused, saying so. */
  async text(caller: Caller, address: ModuleAddress, version: string, path: string): Promise<string> {
    const archive = await this.archiveOf(caller, address, version)
    const contents = await readModuleArchive(this.store.archives.read(archive.sha256), archive.size, (candidate) => candidate === path, { ...this.limits, maxTextFileBytes: MAX_SHOWN_FILE_BYTES })
    const text = contents.files.get(path)
    if (text === undefined) {
      if (!contents.paths.includes(path)) throw new NotFoundError(`${version} has no file ${path}`, false)
      throw new InvalidInputError(`${path} is larger than ${formatBytes(MAX_SHOWN_FILE_BYTES)}: download the archive to read it.`, 'path')
    }
    if (text.includes('\0')) throw new InvalidInputError(`${path} is not text: download the archive to read it.`, 'path')
    return text
  }

  /** The version's archive as it was published, to download (a person reading it, not an install: it is not counted). */
  async archive(caller: Caller, address: ModuleAddress, version: string): Promise<ArchiveFile> {
    const { view, version: found } = await this.published(caller, address, version)
    // Whoever takes the archive away has it: it is frozen as an install's is (first-download.ts).
    return archiveFile(this.store.archives, (await this.firstDownloads.mark(view, found)).archive!)
  }

  private async archiveOf(caller: Caller, address: ModuleAddress, version: string) {
    return (await this.published(caller, address, version)).version.archive!
  }

  private async published(caller: Caller, address: ModuleAddress, version: string) {
    const found = await this.modules.readVersion(caller, address, version)
    if (found.version.status !== 'ok' || !found.version.archive) throw new NotFoundError(`${version} is not published: it has no files to show`, false)
    return found
  }
}
