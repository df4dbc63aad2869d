import semver from 'semver'
import type { ArchiveRef, ModuleRecord, OrganizationRecord, RegistryName, VcsRepoRecord, VersionRecord } from '../../store/records.js'
import { BY_ORGANIZATION, MODULE_KEY, moduleKey, versionArchives, type Store } from '../../store/port.js'
import { RecordMissingError, UniqueConstraintError } from '../../store/errors.js'
import { type Caller } from '../core/access.js'
import { authorize, type Action } from '../core/authorize.js'
import type { Edition } from '../organizations/edition.js'
import { ForbiddenError, InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import type { DownloadCounter } from './downloads.js'
import type { OrganizationService } from '../organizations/organizations.js'
import type { ArchiveKeeper } from '../archives/archive-keeper.js'
import type { DomainEvents } from '../core/events.js'
import { checkName, checkProvider, findVersion, label, type ModuleAddress, moduleNotFound, moduleResource, type ModuleView, newVersion, normalizeVersion, offersUploadLink, versionResource } from './module-rules.js'
import type { AuditResource, AuditTrailService } from '../organizations/audit-trail.js'
import { uploadObjectId } from '../archives/upload-links.js'
import { Lru } from '../../../shared/lru.js'
import { descending, type DirectoryListing, type ModuleDirectory } from './module-directory.js'

export interface ModuleCreateInput {
  name?: string
  provider?: string
  namespace?: string
  registryName?: string
  noCode?: boolean
  /** For modules published from a repository (HCP’s publish a module from a VCS repository); the VCS publisher fills it in. */
  vcsRepo?: VcsRepoRecord
  testsEnabled?: boolean
}

export interface ModuleFilter {
  q?: string
  registryName?: string
  provider?: string
  organizationName?: string
  /** Homeport's own order: by address (the default), the most downloaded first, or the most recently published first. */
  sort?: ModuleSort
}

export const MODULE_SORTS = ['name', '-downloads', '-published'] as const
export type ModuleSort = (typeof MODULE_SORTS)[number]

/** An organization's modules as listed: the ids of those that match, in order (a page of them is read: pageOf), and how many match each provider (the GUI's facets). */
export interface ModuleListing extends DirectoryListing {
  org: OrganizationRecord
}

export interface VersionCreateInput {
  version?: string
  commitSha?: string | null
}

export interface ModuleUpdateInput {
  noCode?: boolean
  testsEnabled?: boolean
  /** The VCS half of HCP’s update a module: only for modules published from a repository. */
  vcsRepo?: { branch?: string; tags?: boolean; sourceDirectory?: string; tagPrefix?: string }
}

/** What publishing from git adds to modules (implemented by the VCS builds, vcs/builds.ts). */
export interface VcsBuilder {
  /** The full commit a branch-based version is built from: `commitSha` when given (it must be in the repository), else the branch head. */
  resolveCommit(module: ModuleRecord, commitSha: string | null): Promise<string>
  /** Refuses a branch the repository does not have. */
  checkBranch(module: ModuleRecord, branch: string): Promise<void>
  /** Builds a version (status `cloning`) from its commit, off the request path. */
  build(moduleId: string, versionId: string): void
  /** Reads the repository's tags again, off the request path. */
  resync(moduleId: string): void
}

/** Where the module list is answered from: every module's summary, with every write heard before the call read (the search index keeps it: ModuleIndex). */
export interface ModuleDirectorySource {
  directory(): Promise<ModuleDirectory>
}

export interface ModuleOptions {
  edition: Edition
  /** Whether organizations may keep records of public modules (hosted edition only). */
  publicCuration: boolean
}

/** A commit or an abbreviation of one, as git accepts them: 4 to 64 hexadecimal digits (SHA-1 or SHA-256). */
const COMMIT_SHA = /^[0-9a-fA-F]{4,64}$/

/**
 * How many versions of one module may wait for their archive (or their git build) at once. Far
 * above what a publisher needs (one, briefly), and low enough that nobody can pile up thousands
 * that every later write to the module must carry.
 */
export const MAX_WAITING_VERSIONS = 100
const REGISTRY_NAMES: readonly RegistryName[] = ['private', 'public']
/** How many module listings (an organization, a filter, an order) are kept until the next write to the organization's modules. */
const LISTINGS_KEPT = 32

/** Registry modules and their versions: HCP’s registry modules API (list, create, read, update, delete, versions). */
export class ModuleService {
  /** The listings computed since the last write to their organization's modules (list), with the directory they were computed from. */
  private readonly listings = new Lru<string, { directory: ModuleDirectory; stamp: string; listing: ModuleListing }>(LISTINGS_KEPT)

  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService,
    private readonly downloads: DownloadCounter,
    private readonly archives: ArchiveKeeper,
    private readonly events: DomainEvents,
    private readonly vcs: VcsBuilder,
    private readonly options: ModuleOptions,
    private readonly audit: AuditTrailService,
    private readonly summaries: ModuleDirectorySource
  ) {}

  /**
   * The organization's modules that match the filter, in its order, from the modules' summaries
   * (ModuleDirectory), after every write answered before the call, by any replica, has been heard:
   * reading the records of an organization of 100,000 modules cost a quarter of a second from the file
   * store's memory and 5 s from PostgreSQL. Kept until the organization's modules change (by downloads:
   * also until the counts change, counted here or written by another replica); a page of it is read by
   * pageOf.
   */
  async list(caller: Caller, orgName: string, filter: ModuleFilter = {}): Promise<ModuleListing> {
    const org = await this.organizations.read(caller, orgName)
    await this.store.caughtUp()
    const directory = await this.summaries.directory()
    const key = `${org.id}\n${filter.q ?? ''}\n${filter.registryName ?? ''}\n${filter.organizationName ?? ''}\n${filter.provider ?? ''}\n${filter.sort ?? ''}`
    const generation = directory.generation(org.id)
    const stamp = filter.sort === '-downloads' ? `${generation}/${this.downloads.changes}` : `${generation}`
    const kept = this.listings.get(key)
    if (kept?.directory === directory && kept.stamp === stamp) return { ...kept.listing, org }
    const listed = directory.list(
      org.id,
      { q: filter.q?.toLowerCase(), registryName: filter.registryName, provider: filter.provider, organizationName: filter.organizationName },
      filter.sort === '-published' ? 'published' : 'name'
    )
    if (filter.sort === '-downloads') {
      // Every listed module's count, in one read of the store.
      listed.ids = descending(listed.ids, await this.downloads.totalsOf(listed.ids))
    }
    const listing = { ...listed, org }
    this.listings.set(key, { directory, stamp, listing })
    return listing
  }

  /** The modules of a page of a listing (list), in its order; one deleted since it was listed is left out. */
  async pageOf(listing: ModuleListing, ids: string[]): Promise<ModuleView[]> {
    return (await this.store.modules.getMany(ids)).flatMap((module) => (module ? [{ org: listing.org, module }] : []))
  }

  /** How many registry modules each organization has (the organization list's counts; the caller read the organizations already). */
  countsOf(orgs: OrganizationRecord[]): Promise<Map<string, number>> {
    return this.store.modules.groupSizes(BY_ORGANIZATION, orgs.map((org) => org.id))
  }

  async create(caller: Caller, orgName: string, input: ModuleCreateInput): Promise<ModuleView> {
    const asked = label({ namespace: input.namespace ?? orgName, name: input.name ?? '', provider: input.provider })
    const org = await this.organizations.forChange(caller, orgName, 'publish module', 'create', { type: 'registry-module', id: asked, name: asked })
    const registryName = this.registryNameForCreate(input.registryName)
    const name = checkName(input.name, 'name')
    const provider = checkProvider(input.provider)
    let namespace: string | null = null
    if (registryName === 'private') {
      if (input.namespace !== undefined && input.namespace !== org.name) {
        throw new InvalidInputError(
          'A private module’s namespace is its organization; leave namespace out for private modules.',
          'namespace'
        )
      }
    } else {
      if (input.namespace === undefined) throw new InvalidInputError('A public module needs the namespace it is published under.', 'namespace')
      namespace = checkName(input.namespace, 'namespace')
    }
    const timestamp = now()
    const module: ModuleRecord = {
      id: newId('mod'),
      organizationId: org.id,
      registryName,
      namespace,
      name,
      provider,
      noCode: input.noCode ?? false,
      status: 'pending',
      testConfig: input.testsEnabled === undefined ? null : { id: newId('tc'), testsEnabled: input.testsEnabled },
      createdAt: timestamp,
      updatedAt: timestamp,
      versions: [],
      vcsRepo: input.vcsRepo ?? null
    }
    try {
      await this.store.modules.create(module)
    } catch (error) {
      if (error instanceof UniqueConstraintError && error.index === MODULE_KEY) {
        const label = `${registryName === 'private' ? org.name : namespace}/${name}/${provider}`
        throw new InvalidInputError(`The ${registryName} module ${label} already exists in this organization.`, 'name', [], 'module-exists')
      }
      throw error
    }
    await this.changed(caller, 'publish module', { org, module }, 'create', moduleResource({ org, module }))
    return { org, module }
  }

  /** The module at `address`, when the caller may see it. */
  async read(caller: Caller, address: ModuleAddress): Promise<ModuleView> {
    return this.find(await this.organizations.read(caller, address.organization), address)
  }

  /**
   * The module at `address` if there is one, and its organization: what a publish is checked against
   * before its module exists (its first version compares with nothing). 404 for an organization the
   * caller may not read, as `read`.
   */
  async readIfAny(caller: Caller, address: ModuleAddress): Promise<{ org: OrganizationRecord; module: ModuleRecord | undefined }> {
    const org = await this.organizations.read(caller, address.organization)
    try {
      return await this.find(org, address)
    } catch (error) {
      if (error instanceof NotFoundError && this.registryNameForRead(address.registryName) === 'private' && address.namespace === org.name) return { org, module: undefined }
      throw error
    }
  }

  /**
   * The module at `address`, for a change under `permission` (its `action`, on the module or on
   * `version` of it): 404 when there is none, and when the caller may not (recorded in its trail).
   */
  async readForChange(caller: Caller, address: ModuleAddress, permission: Action, action: string, version?: string): Promise<ModuleView> {
    const org = await this.organizations.named(address.organization)
    if (!org) throw moduleNotFound(address)
    const view = await this.find(org, address)
    const target = version === undefined ? undefined : findVersion(view.module, version)
    const resource = version === undefined ? moduleResource(view) : versionResource(view, target ?? { id: version, version })
    await this.audit.check(caller, { permission, org, action, resource }, () => moduleNotFound(address))
    return view
  }

  /** Records a change made to a module of `view`'s organization. */
  changed(caller: Caller, permission: Action, view: ModuleView, action: string, resource: AuditResource): Promise<void> {
    return this.audit.done({ author: caller, permission, org: view.org, action, resource })
  }

  private async find(org: OrganizationRecord, address: ModuleAddress): Promise<ModuleView> {
    const registryName = this.registryNameForRead(address.registryName)
    if (registryName === 'private' && address.namespace !== org.name) throw moduleNotFound(address)
    const module = await this.store.modules.findBy(
      MODULE_KEY,
      moduleKey({ organizationId: org.id, registryName, namespace: address.namespace, name: address.name, provider: address.provider })
    )
    if (!module || module.name !== address.name) throw moduleNotFound(address)
    return { org, module }
  }

  async readById(caller: Caller, moduleId: string): Promise<ModuleView> {
    const module = await this.store.modules.get(moduleId)
    const org = module && (await this.store.organizations.get(module.organizationId))
    if (!module || !org || !authorize(caller, 'read module', org)) throw new NotFoundError(`registry module "${moduleId}" not found`)
    if (module.registryName === 'public') this.requireCuration()
    return { org, module }
  }

  async update(caller: Caller, address: ModuleAddress, input: ModuleUpdateInput): Promise<ModuleView> {
    const view = await this.readForChange(caller, address, 'manage module', 'update')
    const vcsRepo = input.vcsRepo
    if (vcsRepo) {
      if (vcsRepo.branch !== undefined && vcsRepo.tags !== undefined) {
        throw new InvalidInputError('vcs-repo.branch and vcs-repo.tags cannot be given together.', 'vcsRepo')
      }
      if (!view.module.vcsRepo) {
        throw new InvalidInputError(`${label(address)} is not published from a VCS repository; it has no vcs-repo to change.`, 'vcsRepo')
      }
      if (vcsRepo.tags === false) throw new InvalidInputError('To publish from a branch, give vcs-repo.branch.', 'vcsRepo.tags')
      if (vcsRepo.branch) await this.vcs.checkBranch(view.module, vcsRepo.branch)
    }
    const { record } = await this.store.modules.update(view.module.id, (draft) => {
      if (input.noCode !== undefined) draft.noCode = input.noCode
      if (input.testsEnabled !== undefined) {
        draft.testConfig = { id: draft.testConfig?.id ?? newId('tc'), testsEnabled: input.testsEnabled }
      }
      if (vcsRepo && draft.vcsRepo) {
        if (vcsRepo.tags === true) draft.vcsRepo.branch = ''
        if (vcsRepo.branch !== undefined) draft.vcsRepo.branch = vcsRepo.branch
        if (vcsRepo.sourceDirectory !== undefined) draft.vcsRepo.sourceDirectory = vcsRepo.sourceDirectory
        if (vcsRepo.tagPrefix !== undefined) draft.vcsRepo.tagPrefix = vcsRepo.tagPrefix
      }
      draft.updatedAt = now()
    })
    if (record.vcsRepo && record.vcsRepo.branch === '' && vcsRepo) this.vcs.resync(record.id)
    await this.changed(caller, 'manage module', view, 'update', moduleResource(view))
    return { org: view.org, module: record }
  }

  /** Deletes every provider of the module `namespace/name` (HCP’s delete a module, its shortest form). */
  async deleteModule(caller: Caller, address: Omit<ModuleAddress, 'provider'>): Promise<void> {
    const org = await this.organizations.named(address.organization)
    if (!org) throw moduleNotFound(address)
    const registryName = this.registryNameForRead(address.registryName)
    if (registryName === 'private' && address.namespace !== org.name) throw moduleNotFound(address)
    const matches = (await this.store.modules.listBy(BY_ORGANIZATION, org.id)).filter(
      (module) =>
        module.registryName === registryName &&
        module.name === address.name &&
        (registryName === 'private' || module.namespace?.toLowerCase() === address.namespace.toLowerCase())
    )
    await this.removeAll(caller, org, matches, () => moduleNotFound(address))
  }

  /**
   * The deprecated `POST /registry-modules/actions/delete/:org/:name`: every module of the
   * organization with that name, its private ones and its curated public ones alike (go-tfe's
   * cleanup deletes public records with it).
   */
  async deleteNamed(caller: Caller, orgName: string, name: string): Promise<void> {
    const org = await this.organizations.named(orgName)
    if (!org) throw moduleNotFound({ namespace: orgName, name })
    const publicToo = this.options.edition === 'hosted' && this.options.publicCuration
    const matches = (await this.store.modules.listBy(BY_ORGANIZATION, org.id)).filter(
      (module) => module.name === name && (module.registryName === 'private' || publicToo)
    )
    await this.removeAll(caller, org, matches, () => moduleNotFound({ namespace: org.name, name }))
  }

  /** Deletes one provider of a module with all its versions. Public modules have only the short form. */
  async deleteProvider(caller: Caller, address: ModuleAddress): Promise<void> {
    const view = await this.readForDelete(caller, address)
    await this.remove(view.module)
    await this.changed(caller, 'manage module', view, 'destroy', moduleResource(view))
  }

  /** Deletes `matches` (the modules a short-form delete names) when the caller manages the organization's modules. */
  private async removeAll(caller: Caller, org: OrganizationRecord, matches: ModuleRecord[], notFound: () => Error): Promise<void> {
    if (matches.length === 0) throw notFound()
    for (const module of matches) await this.audit.check(caller, { permission: 'manage module', org, action: 'destroy', resource: moduleResource({ org, module }) }, notFound)
    for (const module of matches) {
      await this.remove(module)
      await this.changed(caller, 'manage module', { org, module }, 'destroy', moduleResource({ org, module }))
    }
  }

  /** Deletes one version; the last version takes its provider with it (decided in the write, so two deletes cannot leave none). */
  async deleteVersion(caller: Caller, address: ModuleAddress, version: string): Promise<void> {
    const view = await this.readForDelete(caller, address, version)
    const target = findVersion(view.module, version)
    if (!target) throw new NotFoundError(`version ${version} of ${label(address)} not found`)
    const isLast = (module: ModuleRecord) => module.versions.length === 1 && module.versions[0]!.id === target.id
    for (;;) {
      const { result } = await this.store.modules
        .update(view.module.id, (draft) => {
          if (!draft.versions.some((candidate) => candidate.id === target.id)) throw new NotFoundError(`version ${version} of ${label(address)} not found`)
          // The last version goes with its module record, below: never a module with no version.
          if (isLast(draft)) return 'last' as const
          draft.versions = draft.versions.filter((candidate) => candidate.id !== target.id)
          draft.updatedAt = now()
          return 'deleted' as const
        })
        .catch((error: unknown) => {
          if (error instanceof RecordMissingError) throw new NotFoundError(`version ${version} of ${label(address)} not found`)
          throw error
        })
      if (result === 'deleted') break
      // Still the last version when the delete is done (a version added meanwhile makes it not): then the module goes.
      if (await this.store.modules.deleteWhere(view.module.id, isLast)) {
        await this.afterRemoval(view.module)
        await this.changed(caller, 'manage module', view, 'destroy', versionResource(view, target))
        return
      }
    }
    await this.archives.release(versionArchives(target))
    await this.changed(caller, 'manage module', view, 'destroy', versionResource(view, target))
  }

  async createVersion(caller: Caller, address: ModuleAddress, input: VersionCreateInput): Promise<{ view: ModuleView; version: VersionRecord }> {
    const view = await this.readForChange(caller, address, 'publish module', 'create', input.version ?? '')
    if (view.module.registryName === 'public') {
      throw new ForbiddenError('Versions of a public module are published by its maintainers, not created here.')
    }
    if (input.version === undefined) throw new InvalidInputError('A version needs its semantic version.', 'version')
    const version = normalizeVersion(input.version)
    if (!version) {
      throw new InvalidInputError(`"${input.version}" is not a semantic version (MAJOR.MINOR.PATCH, optionally v-prefixed).`, 'version')
    }
    if (input.commitSha !== undefined && input.commitSha !== null && !COMMIT_SHA.test(input.commitSha)) {
      throw new InvalidInputError(`"${input.commitSha}" is not a commit SHA (4 to 64 hexadecimal digits, as git abbreviates them).`, 'commitSha')
    }
    let record: VersionRecord
    const vcsRepo = view.module.vcsRepo
    if (vcsRepo) {
      if (vcsRepo.branch === '') {
        throw new InvalidInputError('This module publishes a version for every tag of its repository; push a tag instead.', 'version')
      }
      const commit = await this.vcs.resolveCommit(view.module, input.commitSha ?? null)
      record = newVersion(version, { source: 'git', status: 'cloning', commitSha: commit })
    } else {
      record = newVersion(version, { source: 'tfe-api', status: 'pending', commitSha: input.commitSha ?? null })
    }
    const { record: module } = await this.store.modules.update(view.module.id, (draft) => {
      if (draft.versions.some((existing) => semver.eq(existing.version, version))) {
        throw new InvalidInputError(`Version ${version} of ${label(address)} already exists.`, 'version', [], 'version-exists')
      }
      const waiting = draft.versions.filter((existing) => existing.status === 'pending' || existing.status === 'cloning').length
      if (waiting >= MAX_WAITING_VERSIONS) {
        throw new InvalidInputError(
          `${label(address)} has ${waiting} versions still waiting for their archive, the most Homeport keeps; upload their archives or delete some before creating more.`,
          'version'
        )
      }
      draft.versions.push(record)
      draft.updatedAt = record.createdAt
    })
    if (record.status === 'cloning') this.vcs.build(module.id, record.id)
    await this.changed(caller, 'publish module', view, 'create', versionResource(view, record))
    return { view: { org: view.org, module }, version: record }
  }

  /**
   * Adds a version from an archive stored already: one mirrored from the upstream registry into a
   * public module record (`mirror`), or one a bundle carried (`bundle`). It goes to ingest like an
   * upload. The archive must be pinned by the caller.
   */
  async addStoredVersion(view: ModuleView, requested: string, archive: ArchiveRef, source: 'mirror' | 'bundle' = 'mirror'): Promise<{ view: ModuleView; version: VersionRecord }> {
    const version = normalizeVersion(requested)
    if (!version) throw new InvalidInputError(`"${requested}" is not a semantic version.`, 'version')
    const record = newVersion(version, { source, status: 'reg_ingressing', archive })
    const { record: module } = await this.store.modules.update(view.module.id, (draft) => {
      if (draft.versions.some((existing) => semver.eq(existing.version, version))) {
        throw new InvalidInputError(`Version ${version} is mirrored already.`, 'version', [], 'version-exists')
      }
      draft.versions.push(record)
      draft.updatedAt = record.createdAt
    })
    await this.events.emit('archiveStored', { organizationId: module.organizationId, moduleId: module.id, versionId: record.id })
    return { view: { org: view.org, module }, version: record }
  }

  async readVersion(caller: Caller, address: ModuleAddress, version: string): Promise<{ view: ModuleView; version: VersionRecord }> {
    const view = await this.read(caller, address)
    const target = findVersion(view.module, version)
    if (!target) throw new NotFoundError(`version ${version} of ${label(address)} not found`)
    return { view, version: target }
  }

  /**
   * The upload link's object id of a version that accepts an archive, for a caller who may
   * publish to the module; undefined for anyone else, and for a published version (a link given
   * before still takes archives until it expires). Links are derived (upload-links.ts), so showing one writes nothing.
   */
  uploadObjectId(caller: Caller, view: ModuleView, version: VersionRecord): string | undefined {
    if (!authorize(caller, 'publish module', view.org) || !offersUploadLink(version)) return undefined
    return uploadObjectId(this.store.installation().signingKey, version.id)
  }

  /** Drops an organization's modules and the archives only they used (it is being destroyed). */
  async removeOrganization(org: OrganizationRecord): Promise<void> {
    for (const module of await this.store.modules.listBy(BY_ORGANIZATION, org.id)) await this.remove(module)
  }

  private async readForDelete(caller: Caller, address: ModuleAddress, version?: string): Promise<ModuleView> {
    // A public module is deleted only whole: the provider and version forms answer 404.
    if (address.registryName === 'public') {
      this.requireCuration()
      await this.organizations.read(caller, address.organization)
      throw moduleNotFound(address)
    }
    return this.readForChange(caller, address, 'manage module', 'destroy', version)
  }

  private async remove(module: ModuleRecord): Promise<void> {
    try {
      await this.store.modules.delete(module.id)
    } catch (error) {
      if (!(error instanceof RecordMissingError)) throw error
    }
    await this.afterRemoval(module)
  }

  /** What goes with a deleted module record: its counts, what other services keep for it, its archives. */
  private async afterRemoval(module: ModuleRecord): Promise<void> {
    await this.downloads.forget(module.id)
    await this.events.emit('moduleRemoved', module)
    await this.archives.release(versionArchives(...module.versions))
  }

  private registryNameForCreate(value: string | undefined): RegistryName {
    const registryName = value ?? 'private'
    if (!(REGISTRY_NAMES as readonly string[]).includes(registryName)) {
      throw new InvalidInputError('registry-name must be "private" or "public".', 'registryName')
    }
    if (registryName === 'public') {
      if (this.options.edition === 'self-hosted') {
        throw new InvalidInputError('The self-hosted edition keeps private modules only: registry-name must be "private".', 'registryName')
      }
      this.requireCuration()
    }
    return registryName as RegistryName
  }

  private registryNameForRead(value: string): RegistryName {
    if (value === 'private') return 'private'
    if (value === 'public' && this.options.edition === 'hosted') {
      this.requireCuration()
      return 'public'
    }
    throw new NotFoundError(`there is no "${value}" registry${this.options.edition === 'self-hosted' ? ' in the self-hosted edition' : ''}`)
  }

  private requireCuration(): void {
    if (!this.options.publicCuration) {
      throw new ForbiddenError('Public module curation is disabled on this Homeport installation.')
    }
  }
}

