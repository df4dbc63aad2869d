import type { Readable } from 'node:stream'
import { TooLargeError } from '../../store/errors.js'
import { RecordMissingError, unwritableCause, WritesRefusedError } from '../../store/errors.js'
import type { VersionRecord } from '../../store/records.js'
import { VERSION_ID, versionArchives, type Store } from '../../store/port.js'
import { ConflictError, ExpiredError, LimitExceededError, NotFoundError } from '../core/errors.js'
import { now } from '../core/ids.js'
import { formatBytes } from '../ingest/archive-reader.js'
import type { ArchiveKeeper } from '../archives/archive-keeper.js'
import type { DomainEvents } from '../core/events.js'
import { acceptsUpload, versionResource, type ModuleView } from './module-rules.js'
import type { AuditChange, AuditTrailService } from '../organizations/audit-trail.js'
import type { FirstDownloads } from './first-download.js'
import type { Origin } from '../core/origin.js'
import { linkState, parseObjectId, type LinkState } from '../archives/upload-links.js'

/** Largest archive accepted by default: 100 MB, far above any real module. */
export const DEFAULT_MAX_ARCHIVE_BYTES = 100 * 1024 * 1024

/**
 * Endpoint 5: the archive upload. The link is the credential; the archive is stored
 * (content-addressed), the version moves to `reg_ingressing`, and ingest runs off the request
 * path. Until the link expires another archive may come through it (go-tfe PUTs twice, and the
 * first may be published already): the last one stored wins and is ingested again, and the ingest
 * of an earlier one finds it superseded. Once anyone has downloaded the version its archive is
 * frozen: another archive answers 409 (the same bytes again change nothing), so nobody gets two
 * different archives under one version (HCSEC-2024-04).
 */
export class UploadService {
  constructor(
    private readonly store: Store,
    private readonly archives: ArchiveKeeper,
    private readonly events: DomainEvents,
    private readonly audit: AuditTrailService,
    private readonly firstDownloads: FirstDownloads,
    private readonly maxArchiveBytes = DEFAULT_MAX_ARCHIVE_BYTES
  ) {}

  async receive(objectId: string, body: Readable, declaredLength: number | undefined, origin?: Origin): Promise<{ view: ModuleView; version: VersionRecord }> {
    const key = this.store.installation().signingKey
    const link = parseObjectId(objectId)
    const found = link && (await this.store.modules.findBy(VERSION_ID, link.versionId))
    const version = found && found.versions.find((candidate) => candidate.id === link.versionId)
    if (!link || !found || !version || linkState(key, version.id, link) === 'unknown') {
      throw new NotFoundError('This upload link is unknown: it never existed, or its version was deleted', false)
    }
    checkTakesArchive(version, linkState(key, version.id, link))
    if (declaredLength !== undefined && declaredLength > this.maxArchiveBytes) {
      throw new LimitExceededError(`The archive is ${formatBytes(declaredLength)}; Homeport accepts at most ${formatBytes(this.maxArchiveBytes)}.`)
    }

    let archive
    try {
      archive = await this.store.archives.put(body, this.maxArchiveBytes)
    } catch (error) {
      const tooLarge = error instanceof TooLargeError
      const unwritable = unwritableCause(error) ?? (error instanceof WritesRefusedError ? error.reason : undefined)
      const reason = tooLarge
        ? `The archive is larger than ${formatBytes(this.maxArchiveBytes)}, the most Homeport accepts.`
        : unwritable === 'disk-full'
          ? 'The disk that holds Homeport’s data is full: the archive was not stored. Free some space, then upload it again.'
          : unwritable === 'read-only'
            ? 'Homeport cannot write to its data directory: the archive was not stored.'
            : 'The upload was interrupted before the whole archive arrived.'
      // Best effort: on a full disk even this small write may fail, and the version stays pending, which is true too.
      await this.fail(found.id, version.id, reason).catch(() => undefined)
      throw tooLarge ? new LimitExceededError(reason) : error
    }

    const unpin = this.archives.pin(archive.sha256)
    let superseded: string[] = []
    try {
      const org = await this.store.organizations.get(found.organizationId)
      if (!org) throw new RecordMissingError(found.organizationId)
      const change: AuditChange = { author: { kind: 'link', link: 'upload link', origin }, permission: 'publish module', org, action: 'upload', resource: versionResource({ org, module: found }, version) }
      if (this.firstDownloads.downloaded(version)) {
        // The same bytes again change nothing; other bytes are refused, and the owners see the attempt.
        if (version.archive?.sha256 === archive.sha256) return { view: { org, module: found }, version }
        throw await this.audit.refused(change, frozen(version))
      }
      const { record } = await this.store.modules.update(found.id, (draft) => {
        const target = draft.versions.find((candidate) => candidate.id === version.id)
        if (!target) throw new RecordMissingError(version.id)
        // Checked again at the write: the version may have been published, or downloaded, while the archive came in.
        checkTakesArchive(target, 'usable')
        if (target.firstDownloadedAt !== undefined) throw frozen(target)
        superseded = versionArchives(target)
        target.archive = archive
        // Made again from the new archive at its ingest.
        delete target.zip
        target.status = 'reg_ingressing'
        target.error = ''
        target.warnings = []
        target.updatedAt = now()
      })
      await this.events.emit('archiveStored', { organizationId: record.organizationId, moduleId: record.id, versionId: version.id })
      await this.audit.done(change)
      return { view: { org, module: record }, version: record.versions.find((candidate) => candidate.id === version.id)! }
    } catch (error) {
      return versionGone(error)
    } finally {
      unpin()
      await this.archives.release([archive.sha256, ...superseded])
    }
  }

  private async fail(moduleId: string, versionId: string, reason: string): Promise<void> {
    await this.store.modules
      .update(moduleId, (draft) => {
        const target = draft.versions.find((candidate) => candidate.id === versionId)
        if (!target) return
        target.status = 'reg_ingress_failed'
        target.error = reason
        target.updatedAt = now()
      })
      .catch((error: unknown) => {
        if (!(error instanceof RecordMissingError)) throw error
      })
  }
}

/** Refuses an archive for a version that no longer takes one, or through a link past its expiry, saying which. */
function checkTakesArchive(version: VersionRecord, link: LinkState): void {
  if (!acceptsUpload(version)) {
    throw new ConflictError(`Version ${version.version} is published from git (${version.status}): it takes no uploaded archive.`)
  }
  if (link === 'expired') throw new ExpiredError('This upload link has expired. Read the version again for a fresh link.')
}

function frozen(version: VersionRecord): ConflictError {
  const when = version.firstDownloadedAt === undefined ? 'already' : `on ${version.firstDownloadedAt.slice(0, 10)}`
  return new ConflictError(
    `Version ${version.version} was downloaded ${when}: its archive can no longer change, so that everyone who installs it gets the same module. Publish a new version instead.`,
    'version-frozen'
  )
}

/** A module deleted while its upload ran: the upload has nothing left to belong to. */
function versionGone(error: unknown): never {
  if (error instanceof RecordMissingError) throw new NotFoundError('The version was deleted during the upload', false)
  throw error
}
