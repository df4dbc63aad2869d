import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { ArchiveRef, ModuleRecord } from '../../store/records.js'
import { RecordMissingError } from '../../store/errors.js'
import { VCS_MODULES, VERSION_ID, WEBHOOK_ID, type Store } from '../../store/port.js'
import type { ArchiveKeeper } from '../archives/archive-keeper.js'
import type { Background } from '../core/background.js'
import { InvalidInputError } from '../core/errors.js'
import type { DomainEvents } from '../core/events.js'
import { now } from '../core/ids.js'
import { newVersion, normalizeVersion } from '../modules/module-rules.js'
import type { VcsBuilder } from '../modules/modules.js'
import type { VcsConnectionService } from './connections.js'
import type { AuditTrailService } from '../organizations/audit-trail.js'
import { moduleResource } from '../modules/module-rules.js'
import type { Origin } from '../core/origin.js'
import { archive, GitError, hasFolder, listRemote, resolveCommit, syncMirror, type Tag } from './git.js'

export interface BuildOptions {
  /** How often the repositories of tag-based modules are checked for new tags. */
  pollIntervalMs: number
  maxArchiveBytes: number
  /** A local folder for the bare git mirrors (one per module): a cache, made again when missing. */
  mirrorsDir: string
}

export const DEFAULT_POLL_INTERVAL_MS = 60_000

/**
 * The git side of VCS modules: tag-based modules get a version for every tag that is a semantic
 * version (an optional `v`, and the module's tag prefix in a monorepo); branch-based modules get
 * one for each version created through HCP’s create a module version (`POST …/versions`), built from its commit. Archives are made with
 * `git archive` from a bare mirror kept per module, announced as stored, and go through the
 * same ingest as uploads. New tags are found by a poll every `pollIntervalMs`, or at once through
 * the module's webhook. All of it runs in the background, under its owner.
 */
export class VcsBuilds implements VcsBuilder {
  private readonly syncing = new Set<string>()
  private readonly again = new Set<string>()

  constructor(
    private readonly store: Store,
    private readonly connections: VcsConnectionService,
    private readonly archives: ArchiveKeeper,
    private readonly events: DomainEvents,
    private readonly background: Background,
    private readonly audit: AuditTrailService,
    private readonly options: BuildOptions
  ) {}

  /** Builds again the versions a crash left half-built. */
  async resumeBuilds(): Promise<void> {
    for (const module of await this.store.modules.listBy(VCS_MODULES, 'all')) {
      for (const version of module.versions) if (version.status === 'cloning') this.build(module.id, version.id)
    }
  }


  /** A push notification on a module's webhook: read its repository now. */
  async webhook(webhookId: string, origin?: Origin): Promise<boolean> {
    const module = await this.store.modules.findBy(WEBHOOK_ID, webhookId)
    if (!module?.vcsRepo || module.vcsRepo.webhookId !== webhookId) return false
    if (module.vcsRepo.branch !== '') return true
    this.resync(module.id)
    const org = await this.store.organizations.get(module.organizationId)
    if (org) await this.audit.done({ author: { kind: 'link', link: 'webhook', origin }, permission: 'publish module', org, action: 'resync', resource: moduleResource({ org, module }) })
    return true
  }


  /** Reads a module's tags again, in the background; one sync per module at a time (a request meanwhile runs after it). */
  resync(moduleId: string): void {
    if (this.syncing.has(moduleId)) {
      this.again.add(moduleId)
      return
    }
    this.syncing.add(moduleId)
    void this.background
      .run('git sync', (signal) => this.sync(moduleId, signal))
      .finally(() => {
        this.syncing.delete(moduleId)
        if (this.again.delete(moduleId)) this.resync(moduleId)
      })
  }


  async resolveCommit(module: ModuleRecord, commitSha: string | null): Promise<string> {
    const url = await this.repositoryUrl(module)
    const mirror = this.mirrorOf(module.id)
    await syncMirror(url, mirror).catch((error: unknown) => {
      throw new InvalidInputError(`The repository cannot be read: ${(error as Error).message}`)
    })
    const ref = commitSha ?? module.vcsRepo!.branch
    const commit = await resolveCommit(mirror, ref)
    if (!commit) throw new InvalidInputError(`The repository has no commit "${ref}".`, commitSha ? 'commitSha' : 'version')
    return commit
  }


  async checkBranch(module: ModuleRecord, branch: string): Promise<void> {
    const { heads } = await listRemote(await this.repositoryUrl(module)).catch((error: unknown) => {
      throw new InvalidInputError(`The repository cannot be read: ${(error as Error).message}`)
    })
    if (!heads.has(branch)) throw new InvalidInputError(`The repository has no branch "${branch}".`, 'vcsRepo.branch')
  }


  build(moduleId: string, versionId: string): void {
    void this.background.run('git build', (signal) => this.buildVersion(moduleId, versionId, signal))
  }


  /** Drops a deleted module's mirror. */
  async forget(module: ModuleRecord): Promise<void> {
    if (module.vcsRepo) await rm(this.mirrorOf(module.id), { recursive: true, force: true })
  }

  /**
   * The git poll (a periodic job, on one replica at a time: boot/jobs.ts): syncs every tag-based
   * module whose repository has tags Homeport has not seen.
   */
  async poll(signal: AbortSignal): Promise<void> {
    for (const module of await this.store.modules.listBy(VCS_MODULES, 'all')) {
      if (signal.aborted) return
      if (module.vcsRepo?.branch !== '' || this.syncing.has(module.id)) continue
      const url = await this.repositoryUrl(module).catch(() => undefined)
      const tags = url && (await listRemote(url, signal).then((remote) => remote.tags, () => undefined))
      if (!tags) continue
      const known = new Set(module.versions.map((version) => version.tag))
      if (tags.some((tag) => versionOfTag(tag.name, module.vcsRepo!.tagPrefix) && !known.has(tag.name))) this.resync(module.id)
    }
  }


  private async sync(moduleId: string, signal: AbortSignal): Promise<void> {
    const module = await this.store.modules.get(moduleId)
    if (!module?.vcsRepo || module.vcsRepo.branch !== '') return
    const { tagPrefix } = module.vcsRepo
    let tags: Tag[]
    try {
      const url = await this.repositoryUrl(module)
      await syncMirror(url, this.mirrorOf(moduleId), signal)
      tags = (await listRemote(url, signal)).tags
    } catch (error) {
      await this.recordSync(moduleId, `The repository cannot be read: ${(error as Error).message}`)
      return
    }
    const created: string[] = []
    await this.store.modules
      .update(moduleId, (draft) => {
        const vcsRepo = draft.vcsRepo!
        vcsRepo.syncedAt = now()
        vcsRepo.syncError = ''
        for (const tag of tags) {
          const version = versionOfTag(tag.name, tagPrefix)
          if (!version || draft.versions.some((existing) => existing.tag === tag.name || existing.version === version)) continue
          const record = newVersion(version, { source: 'git', status: 'cloning', commitSha: tag.commit, tag: tag.name })
          draft.versions.push(record)
          created.push(record.id)
        }
        if (draft.versions.length === 0) draft.status = 'no_version_tags'
        else if (draft.status === 'no_version_tags' || draft.status === 'setup_failed') draft.status = 'pending'
        draft.updatedAt = now()
      })
      .catch(ignoreDeleted)
    for (const versionId of created) this.build(moduleId, versionId)
  }


  private async buildVersion(moduleId: string, versionId: string, signal: AbortSignal): Promise<void> {
    const module = await this.store.modules.findBy(VERSION_ID, versionId)
    const version = module?.versions.find((candidate) => candidate.id === versionId)
    if (!module?.vcsRepo || !version?.commitSha || version.status !== 'cloning') return
    const mirror = this.mirrorOf(module.id)
    const folder = module.vcsRepo.sourceDirectory
    let failure: string | undefined
    let stored: ArchiveRef | undefined
    try {
      if (!(await resolveCommit(mirror, version.commitSha, signal))) await syncMirror(await this.repositoryUrl(module), mirror, signal)
      if (!(await hasFolder(mirror, version.commitSha, folder, signal))) {
        failure = folder ? `The commit ${version.commitSha.slice(0, 12)} has no folder "${folder}".` : `The commit ${version.commitSha} is not in the repository.`
      } else {
        stored = await this.store.archives.put(archive(mirror, version.commitSha, folder, signal), this.options.maxArchiveBytes)
      }
    } catch (error) {
      failure = `Homeport could not make an archive of ${version.tag ?? version.commitSha}: ${(error as Error).message}`
    }
    const unpin = stored ? this.archives.pin(stored.sha256) : () => undefined
    try {
      await this.store.modules
        .update(module.id, (draft) => {
          const target = draft.versions.find((candidate) => candidate.id === versionId)
          if (!target || target.status !== 'cloning') return
          target.updatedAt = now()
          if (stored) {
            target.archive = stored
            target.status = 'reg_ingressing'
          } else {
            target.status = 'clone_failed'
            target.error = failure ?? 'The archive could not be made.'
          }
        })
        .catch(ignoreDeleted)
      if (stored) await this.events.emit('archiveStored', { organizationId: module.organizationId, moduleId: module.id, versionId })
    } finally {
      unpin()
      if (stored) await this.archives.release([stored.sha256])
    }
  }


  private async recordSync(moduleId: string, error: string): Promise<void> {
    await this.store.modules
      .update(moduleId, (draft) => {
        if (!draft.vcsRepo) return
        draft.vcsRepo.syncedAt = now()
        draft.vcsRepo.syncError = error
        if (draft.versions.length === 0) draft.status = 'setup_failed'
      })
      .catch(ignoreDeleted)
  }


  private async repositoryUrl(module: ModuleRecord): Promise<string> {
    const org = await this.store.organizations.get(module.organizationId)
    const connection = org && module.vcsRepo && this.connections.connectionFor(org, module.vcsRepo.oauthTokenId)
    if (!connection || !module.vcsRepo) throw new GitError('the module’s VCS connection no longer exists')
    return this.connections.repositoryUrl(connection, module.vcsRepo.identifier)
  }


  private mirrorOf(moduleId: string): string {
    return join(this.options.mirrorsDir, `${moduleId}.git`)
  }

}

/** The version a tag publishes, or undefined: semantic versions with an optional `v`, after the prefix. */
function versionOfTag(tag: string, prefix: string): string | undefined {
  if (!tag.startsWith(prefix)) return undefined
  return normalizeVersion(tag.slice(prefix.length))
}

function ignoreDeleted(error: unknown): void {
  if (!(error instanceof RecordMissingError)) throw error
}
