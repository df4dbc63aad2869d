import { posix } from 'node:path'
import type { VcsRepoRecord } from '../../store/records.js'
import type { Store } from '../../store/port.js'
import { type Caller } from '../core/access.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import { newSecret, now } from '../core/ids.js'
import { moduleResource, normalizeVersion, versionResource, type ModuleAddress, type ModuleView } from '../modules/module-rules.js'
import type { ModuleService } from '../modules/modules.js'
import type { OrganizationService } from '../organizations/organizations.js'
import type { VcsBuilds } from './builds.js'
import type { VcsConnectionService } from './connections.js'
import { listRemote } from './git.js'

/** Endpoint 2's `vcs-repo` and the attributes beside it. */
export interface VcsPublishInput {
  name?: string
  provider?: string
  noCode?: boolean
  identifier?: string
  displayIdentifier?: string
  oauthTokenId?: string
  appInstallationId?: string
  branch?: string
  sourceDirectory?: string
  tagPrefix?: string
  initialVersion?: string
  testsEnabled?: boolean
}

/** The `terraform-<provider>-<name>` repository naming convention registries use. */
const CONVENTIONAL_NAME = /^terraform-([a-z0-9]+)-([A-Za-z0-9][A-Za-z0-9_-]*)$/

/**
 * Publishing modules from git (publish a module from a VCS repository, resync and retry): the requests. What they start,
 * syncs and builds, the VCS builds (builds.ts) carry out in the background.
 */
export class VcsPublisher {
  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService,
    private readonly modules: ModuleService,
    private readonly connections: VcsConnectionService,
    private readonly builds: VcsBuilds
  ) {}

  async publish(caller: Caller, orgName: string, input: VcsPublishInput): Promise<ModuleView> {
    const org = await this.organizations.forChange(caller, orgName, 'publish module', 'create', { type: 'registry-module', id: input.identifier ?? '', name: `${orgName}/${input.name ?? input.identifier ?? ''}` })
    if (input.appInstallationId !== undefined) {
      if (input.oauthTokenId !== undefined) {
        throw new InvalidInputError('vcs-repo.oauth-token-id and the app installation id cannot be given together.', 'vcsRepo.githubAppInstallationId')
      }
      throw new InvalidInputError(
        `There is no app installation "${input.appInstallationId}": Homeport has no VCS app installations. Create a VCS connection and give its oauth-token-id.`,
        'vcsRepo.githubAppInstallationId'
      )
    }
    if (!input.identifier) throw new InvalidInputError('vcs-repo.identifier names the repository (<organization>/<repository>).', 'vcsRepo.identifier')
    if (!input.oauthTokenId) throw new InvalidInputError('vcs-repo.oauth-token-id names the VCS connection to publish through.', 'vcsRepo.oauthTokenId')
    const connection = this.connections.connectionFor(org, input.oauthTokenId)
    if (!connection) throw new InvalidInputError(`This organization has no VCS connection with token "${input.oauthTokenId}".`, 'vcsRepo.oauthTokenId')
    const url = await this.connections.repositoryUrl(connection, input.identifier)
    const remote = await listRemote(url).catch((error: unknown) => {
      throw new InvalidInputError(`The repository ${input.identifier} cannot be read: ${(error as Error).message}`, 'vcsRepo.identifier')
    })

    const repository = input.identifier.split('/').pop()!.replace(/\.git$/, '')
    const conventional = CONVENTIONAL_NAME.exec(repository)
    const name = input.name ?? conventional?.[2]
    const provider = input.provider ?? conventional?.[1]
    if (!name || !provider) {
      throw new InvalidInputError(
        `The repository is not named terraform-<provider>-<name>, so give the module's name and provider.`,
        name ? 'provider' : 'name'
      )
    }
    const branch = input.branch ?? ''
    if (branch && !remote.heads.has(branch)) throw new InvalidInputError(`The repository has no branch "${branch}".`, 'vcsRepo.branch')
    const vcsRepo: VcsRepoRecord = {
      identifier: input.identifier,
      displayIdentifier: input.displayIdentifier ?? input.identifier,
      oauthTokenId: input.oauthTokenId,
      branch,
      sourceDirectory: normalizeFolder(input.sourceDirectory),
      tagPrefix: input.tagPrefix ?? '',
      webhookId: newSecret(),
      syncedAt: null,
      syncError: ''
    }
    const view = await this.modules.create(caller, orgName, { name, provider, noCode: input.noCode, vcsRepo, testsEnabled: input.testsEnabled })
    if (!branch) this.builds.resync(view.module.id)
    else if (input.initialVersion) {
      await this.modules.createVersion(
        caller,
        { organization: org.name, registryName: 'private', namespace: org.name, name, provider },
        { version: input.initialVersion }
      )
    }
    return this.modules.readById(caller, view.module.id)
  }


  /** Reads the tags again (the module's `can-resync`). */
  async requestResync(caller: Caller, address: ModuleAddress): Promise<ModuleView> {
    const view = await this.vcsModule(caller, address, 'resync')
    this.builds.resync(view.module.id)
    await this.modules.changed(caller, 'manage module', view, 'resync', moduleResource(view))
    return view
  }


  /** Builds a failed version again (the module's `can-retry`). */
  async retry(caller: Caller, address: ModuleAddress, version: string): Promise<ModuleView> {
    const view = await this.vcsModule(caller, address, 'retry', version)
    const wanted = normalizeVersion(version)
    // Checked inside the write: two retries at once build the version once.
    const { record, result: targetId } = await this.store.modules.update(view.module.id, (draft) => {
      const target = draft.versions.find((candidate) => candidate.version === wanted)
      if (!target) throw new NotFoundError(`version ${version} not found`)
      if (target.status !== 'clone_failed' && target.status !== 'reg_ingress_failed') {
        throw new InvalidInputError(`Version ${target.version} has not failed; there is nothing to retry.`)
      }
      Object.assign(target, { status: 'cloning', error: '', archive: null, updatedAt: now() })
      return target.id
    })
    this.builds.build(record.id, targetId)
    await this.modules.changed(caller, 'manage module', view, 'retry', versionResource(view, { id: targetId, version: wanted ?? version }))
    return { org: view.org, module: record }
  }


  private async vcsModule(caller: Caller, address: ModuleAddress, action: string, version?: string): Promise<ModuleView> {
    const view = await this.modules.readForChange(caller, address, 'manage module', action, version)
    if (!view.module.vcsRepo) throw new InvalidInputError(`${address.name} is not published from a VCS repository.`)
    return view
  }

}


function normalizeFolder(folder: string | undefined): string {
  if (!folder) return ''
  const normalized = posix.normalize(folder.replace(/\\/g, '/')).replace(/^\/+|\/+$/g, '')
  if (normalized === '.') return ''
  if (normalized.startsWith('..')) throw new InvalidInputError('vcs-repo.source-directory must stay inside the repository.', 'vcsRepo.sourceDirectory')
  return normalized
}
