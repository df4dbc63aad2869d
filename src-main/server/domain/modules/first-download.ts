import type { VersionRecord } from '../../store/records.js'
import type { Store } from '../../store/port.js'
import { unwritableCause, WritesRefusedError } from '../../store/errors.js'
import { NotFoundError } from '../core/errors.js'
import { now } from '../core/ids.js'
import { acceptsUpload, type ModuleView } from './module-rules.js'

/**
 * Marks a version as downloaded the first time any face hands it out (a download location, an OCI
 * pull, a bundle, the GUI's archive), so that its archive never changes after (uploads.ts answers
 * 409): nobody gets two different archives under one version (HCSEC-2024-04). The one write a read
 * makes, once per version, and only for a version an upload link could still change. The mark is
 * set only while the version still holds the archive it was read with: an archive uploaded
 * meanwhile is being ingested, and this download waits for it.
 *
 * A store that cannot be written (a full disk, a read-only data directory) does not stop the
 * download: the version is held frozen in this process (no upload can store an archive then
 * either), and the next download writes the mark.
 */
export class FirstDownloads {
  /** Versions downloaded while the store could not be written: frozen here all the same. */
  private readonly unwritten = new Set<string>()

  constructor(private readonly store: Store) {}

  /** The version, marked as downloaded (`firstDownloadedAt`), once it is. */
  async mark(view: ModuleView, version: VersionRecord): Promise<VersionRecord> {
    if (version.firstDownloadedAt !== undefined || !acceptsUpload(version)) return version
    const served = version.archive?.sha256
    try {
      const { record } = await this.store.modules.update(view.module.id, (draft) => {
        const target = draft.versions.find((candidate) => candidate.id === version.id)
        if (!target || target.status !== 'ok' || target.archive?.sha256 !== served) {
          throw new NotFoundError(`version ${version.version} has just been given another archive, which is being published: try again in a moment`, false)
        }
        target.firstDownloadedAt ??= now()
      })
      this.unwritten.delete(version.id)
      return record.versions.find((candidate) => candidate.id === version.id)!
    } catch (error) {
      if (!(error instanceof WritesRefusedError) && unwritableCause(error) === undefined) throw error
      this.unwritten.add(version.id)
      return version
    }
  }

  /** Whether anyone has downloaded the version: its record says so, or this process saw it while the store could not be written. */
  downloaded(version: VersionRecord): boolean {
    return version.firstDownloadedAt !== undefined || this.unwritten.has(version.id)
  }
}
