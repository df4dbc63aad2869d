import type { VersionRecord } from '../../store/records.js'
import type { Store } from '../../store/port.js'
import { NotFoundError } from '../core/errors.js'
import { now } from '../core/ids.js'
import { acceptsUpload, type ModuleView } from './module-rules.js'

/**
 * Marks a version as downloaded the first time any face hands it out (a download location, an OCI
 * pull, a bundle, the GUI's archive), so that its archive never changes after (uploads.ts answers
 * 409): nobody gets two different archives under one version (HCSEC-2024-04). The one write a read
 * makes, once per version, and only for a version an upload link could still change. The mark is
 * set only while the version still holds the archive `version` was read with: an archive uploaded
 * meanwhile is being ingested, and this download waits for it.
 */
export async function markDownloaded(store: Store, view: ModuleView, version: VersionRecord): Promise<VersionRecord> {
  if (version.firstDownloadedAt !== undefined || !acceptsUpload(version)) return version
  const served = version.archive?.sha256
  const { record } = await store.modules.update(view.module.id, (draft) => {
    const target = draft.versions.find((candidate) => candidate.id === version.id)
    if (!target || target.status !== 'ok' || target.archive?.sha256 !== served) {
      throw new NotFoundError(`version ${version.version} has just been given another archive, which is being published: try again in a moment`, false)
    }
    target.firstDownloadedAt ??= now()
  })
  return record.versions.find((candidate) => candidate.id === version.id)!
}
