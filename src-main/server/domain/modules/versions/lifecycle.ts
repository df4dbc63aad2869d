import type { ModuleRecord, VersionRecord } from '../../../store/records.js'
import type { Store } from '../../../store/port.js'
import { callerKey, describeCaller, isSiteAdmin, type Caller } from '../../core/access.js'
import type { DownloadCounter } from '../downloads.js'
import { InvalidInputError, NotFoundError } from '../../core/errors.js'
import { now } from '../../core/ids.js'
import { noticeLink, noticeText, type DeprecationChange } from '../../core/notice.js'
import { findVersion, label, versionResource, type ModuleAddress, type ModuleView } from '../module-rules.js'
import type { ModuleService } from '../modules.js'

/** What a publisher asks of a version, in HCP's words (`deprecated-status`, `status`). */
export type LifecycleChange =
  | DeprecationChange
  | { revocation: 'Revoked'; message: string; link: string | null }
  | { revocation: 'Unrevoked' }

/**
 * HCP's module version lifecycle: a publisher deprecates a published version (with a reason and a
 * link) and may then revoke it; either is reverted. A deprecated version is still offered, with
 * its deprecation shown; a revoked one is offered only to those who had downloaded it when it was
 * revoked (its existing users, whose pinned configurations go on working), and to nobody new.
 */
export class VersionLifecycle {
  constructor(
    private readonly store: Store,
    private readonly modules: ModuleService,
    private readonly downloads: DownloadCounter
  ) {}

  async change(caller: Caller, address: ModuleAddress, version: string, change: LifecycleChange): Promise<{ view: ModuleView; version: VersionRecord }> {
    const view = await this.modules.readForChange(caller, address, 'deprecate or revoke version', actionOf(change), version)
    const target = findVersion(view.module, version)
    if (!target) throw new NotFoundError(`version ${version} of ${label(address)} not found`)
    const by = describeCaller(caller, view.org)
    // Who uses it now, read before the write: they keep it if it is revoked.
    const consumers = 'revocation' in change && change.revocation === 'Revoked' ? await this.downloads.consumersOf(view.module.id, target.id) : []
    const { record } = await this.store.modules.update(view.module.id, (draft) => {
      const current = draft.versions.find((candidate) => candidate.id === target.id)
      if (!current) throw new NotFoundError(`version ${version} of ${label(address)} not found`)
      apply(current, change, { by, at: now(), consumers })
      current.updatedAt = now()
    })
    await this.modules.changed(caller, 'deprecate or revoke version', view, actionOf(change), versionResource(view, target))
    return { view: { org: view.org, module: record }, version: record.versions.find((candidate) => candidate.id === target.id)! }
  }
}

/** The change in the audit trail's words. */
function actionOf(change: LifecycleChange): string {
  if ('deprecation' in change) return change.deprecation === 'Deprecated' ? 'deprecate' : 'undeprecate'
  return change.revocation === 'Revoked' ? 'revoke' : 'unrevoke'
}

/** The change, checked against the version's state (inside the write, so two changes cannot cross). */
function apply(version: VersionRecord, change: LifecycleChange, context: { by: string; at: string; consumers: string[] }): void {
  const { by, at } = context
  if (version.status !== 'ok') throw new InvalidInputError(`Version ${version.version} is not published (it is ${version.status}): only a published version is deprecated or revoked.`, 'version')
  if ('deprecation' in change) {
    if (change.deprecation === 'Deprecated') {
      version.deprecation = { reason: noticeText(change.reason, 'deprecation.reason'), link: noticeLink(change.link, 'deprecation.link'), by, at }
    } else {
      if (version.revocation) throw new InvalidInputError(`Version ${version.version} is revoked: revert the revocation before the deprecation.`, 'deprecation.deprecatedStatus')
      version.deprecation = null
    }
    return
  }
  if (change.revocation === 'Revoked') {
    if (!version.deprecation) throw new InvalidInputError(`Deprecate version ${version.version} before revoking it.`, 'revocation.status')
    version.revocation = { message: noticeText(change.message, 'revocation.message'), link: noticeLink(change.link, 'revocation.link'), by, at, consumers: context.consumers }
  } else {
    // Back to deprecated, as HCP does.
    version.revocation = null
  }
}

/** Whether `caller` may still be offered a version: it is not revoked, or the caller used it before it was. */
export function offeredTo(caller: Caller, version: VersionRecord): boolean {
  return version.revocation === null || isSiteAdmin(caller) || version.revocation.consumers.includes(callerKey(caller))
}

/** The published versions a caller is offered, newest first. */
export function offered(caller: Caller, versions: VersionRecord[]): VersionRecord[] {
  return versions.filter((version) => offeredTo(caller, version))
}

/** Why a revoked version is not offered, in its publisher's words. */
export function revokedReason(module: ModuleRecord, version: VersionRecord): string {
  const revocation = version.revocation!
  return `version ${version.version} of ${module.name}/${module.provider} was revoked by its publisher (${revocation.message}${revocation.link ? ` See ${revocation.link}` : ''}); choose another version`
}
