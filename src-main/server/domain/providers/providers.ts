import semver from 'semver'
import type { OrganizationRecord, ProviderPlatformRecord, ProviderRecord, ProviderVersionRecord, RegistryName, StoredFile } from '../../store/records.js'
import { RecordMissingError, UniqueConstraintError } from '../../store/errors.js'
import { BY_ORGANIZATION, PROVIDER_KEY, providerFiles, providerKey, type Store } from '../../store/port.js'
import type { ArchiveKeeper } from '../archives/archive-keeper.js'
import { describeCaller, type Caller } from '../core/access.js'
import { authorize, type Action } from '../core/authorize.js'
import { ForbiddenError, InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import { noticeLink, noticeText, type DeprecationChange } from '../core/notice.js'
import type { OrganizationService } from '../organizations/organizations.js'
import type { AuditResource, AuditTrailService } from '../organizations/audit-trail.js'
import { signDownload } from '../archives/download-links.js'
import { uploadObjectId } from '../archives/upload-links.js'
import { privateDocsKey, type ProviderDocs } from '../provider-docs/provider-docs.js'

/** Where a provider sits: the path segments of HCP's provider endpoints. */
export interface ProviderAddress {
  organization: string
  registryName: string
  namespace: string
  name: string
}

export interface ProviderView {
  org: OrganizationRecord
  provider: ProviderRecord
}

export interface ProviderFilter {
  q?: string
  registryName?: string
  organizationName?: string
}

export interface ProviderVersionInput {
  version?: string
  keyId?: string
  protocols?: string[] | null
}

export interface PlatformInput {
  os?: string
  arch?: string
  shasum?: string
  filename?: string
}

/** The files of a provider release a link uploads. */
export type ProviderFile = 'shasums' | 'shasums-sig' | 'binary' | 'docs'

/** A provider file's id in upload and download links: its version's (sums, signature) or platform's (zip) id, and which file. */
export function providerFileId(targetId: string, file: ProviderFile): string {
  return `${targetId}+${file}`
}

const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?$/
/** What Terraform accepts as a provider namespace: letters, digits and single dashes (no `_`). */
const TERRAFORM_NAMESPACE = /^[a-z0-9](?:[a-z0-9]|-(?!-))*[a-z0-9]$|^[a-z0-9]$/i
const PLATFORM_PART = /^[a-z0-9_]{1,32}$/
const PROTOCOLS = ['4.0', '5.0', '6.0']
/** Versions of one provider waiting for their files, at most (as for modules). */
export const MAX_INCOMPLETE_VERSIONS = 100

/**
 * Private providers (HCP Terraform's registry-providers, their versions and platforms): created
 * and deleted by teams that manage modules (and owners), read by every team of the organization.
 * A version is published, to the provider registry protocol, once its SHA256SUMS and signature are
 * uploaded and checked, with each platform whose zip is uploaded and checked (provider-uploads.ts).
 */
export class ProviderService {
  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService,
    private readonly archives: ArchiveKeeper,
    private readonly publicCuration: boolean,
    private readonly audit: AuditTrailService,
    private readonly docs: ProviderDocs
  ) {}

  async list(caller: Caller, orgName: string, filter: ProviderFilter = {}): Promise<ProviderView[]> {
    const org = await this.organizations.read(caller, orgName)
    const search = filter.q?.toLowerCase()
    return (await this.store.providers.listBy(BY_ORGANIZATION, org.id))
      .map((provider) => ({ org, provider }))
      .filter(({ provider }) => {
        const namespace = providerNamespace({ org, provider })
        if (filter.registryName !== undefined && provider.registryName !== filter.registryName) return false
        if (filter.organizationName !== undefined && namespace !== filter.organizationName) return false
        return !search || provider.name.toLowerCase().includes(search) || namespace.toLowerCase().includes(search)
      })
      .sort((a, b) => providerNamespace(a).localeCompare(providerNamespace(b)) || a.provider.name.localeCompare(b.provider.name))
  }

  async create(caller: Caller, orgName: string, input: { name?: string; namespace?: string; registryName?: string }): Promise<ProviderView> {
    const asked = `${input.namespace ?? orgName}/${input.name ?? ''}`
    const org = await this.organizations.forChange(caller, orgName, 'publish provider', 'create', { type: 'registry-provider', id: asked, name: asked })
    // HCP's words, which go-tfe's tests expect: a blank name breaks both rules, and says so twice.
    const notListed = 'Registry name is not included in the list'
    if (input.registryName === undefined || input.registryName === '') throw new InvalidInputError("Registry name can't be blank", 'registryName', [notListed])
    if (input.registryName !== 'private' && input.registryName !== 'public') throw new InvalidInputError(notListed, 'registryName')
    const registryName: RegistryName = input.registryName
    if (registryName === 'public' && !this.publicCuration) throw new ForbiddenError('Public provider curation is disabled on this Homeport installation.')
    const name = checkName(input.name, 'name')
    let namespace: string | null = null
    if (registryName === 'private') {
      if (input.namespace !== undefined && input.namespace.toLowerCase() !== org.name.toLowerCase()) {
        throw new InvalidInputError('A private provider’s namespace is its organization.', 'namespace')
      }
      if (!isTerraformProviderPart(org.name)) {
        throw new InvalidInputError(
          `Terraform cannot install providers from the namespace "${org.name}": a provider namespace may hold only letters, digits and single dashes. Rename the organization (for example to "${org.name.replace(/[^A-Za-z0-9-]+/g, '-').replace(/--+/g, '-').replace(/^-|-$/g, '')}") to publish private providers.`,
          'namespace'
        )
      }
    } else namespace = checkName(input.namespace, 'namespace')
    const timestamp = now()
    const provider: ProviderRecord = { id: newId('prov'), organizationId: org.id, registryName, namespace, name, createdAt: timestamp, updatedAt: timestamp, versions: [] }
    try {
      await this.store.providers.create(provider)
    } catch (error) {
      if (error instanceof UniqueConstraintError && error.index === PROVIDER_KEY) {
        throw new InvalidInputError(`The ${registryName} provider ${namespace ?? org.name}/${name} already exists in this organization.`, 'name', [], 'provider-exists')
      }
      throw error
    }
    await this.changed(caller, 'publish provider', { org, provider }, 'create', providerResource({ org, provider }))
    return { org, provider }
  }

  /** A provider and its organization by the provider's id, unchecked: for finding what a caller is then checked against with `read`. */
  async byId(providerId: string): Promise<ProviderView | undefined> {
    const provider = await this.store.providers.get(providerId)
    const org = provider && (await this.store.organizations.get(provider.organizationId))
    return provider && org ? { org, provider } : undefined
  }

  async read(caller: Caller, address: ProviderAddress): Promise<ProviderView> {
    return this.find(await this.organizations.read(caller, address.organization), address)
  }

  /** The provider at `address`, for a change under `permission` to `resource` of it: 404 when there is none, and when the caller may not (recorded). */
  private async readForChange(caller: Caller, address: ProviderAddress, permission: Action, action: string, resource: (view: ProviderView) => AuditResource = providerResource): Promise<ProviderView> {
    const org = await this.organizations.named(address.organization)
    if (!org) throw providerNotFound(address)
    const view = await this.find(org, address)
    await this.audit.check(caller, { permission, org, action, resource: resource(view) }, () => providerNotFound(address))
    return view
  }

  private changed(caller: Caller, permission: Action, view: ProviderView, action: string, resource: AuditResource): Promise<void> {
    return this.audit.done({ author: caller, permission, org: view.org, action, resource })
  }

  private async find(org: OrganizationRecord, address: ProviderAddress): Promise<ProviderView> {
    if (address.registryName !== 'private' && address.registryName !== 'public') throw providerNotFound(address)
    if (address.registryName === 'private' && address.namespace.toLowerCase() !== org.name.toLowerCase()) throw providerNotFound(address)
    const provider = await this.store.providers.findBy(
      PROVIDER_KEY,
      providerKey({ organizationId: org.id, registryName: address.registryName, namespace: address.namespace, name: address.name })
    )
    if (!provider) throw providerNotFound(address)
    return { org, provider }
  }

  async delete(caller: Caller, address: ProviderAddress): Promise<void> {
    const view = await this.readForChange(caller, address, 'publish provider', 'destroy')
    await this.store.providers.delete(view.provider.id).catch(missingIsGone(address))
    await this.docs.remove(privateDocsKey(view.provider.id))
    await this.archives.release(providerFiles(view.provider))
    await this.changed(caller, 'publish provider', view, 'destroy', providerResource(view))
  }

  async createVersion(caller: Caller, address: ProviderAddress, input: ProviderVersionInput): Promise<{ view: ProviderView; version: ProviderVersionRecord }> {
    const view = await this.readForChange(caller, address, 'publish provider', 'create', (found) => providerVersionResource(found, { id: input.version ?? '', version: input.version ?? '' }))
    if (view.provider.registryName === 'public') throw new ForbiddenError('Versions of a public provider are published by its maintainers, not created here.')
    const version = input.version === undefined ? undefined : semver.valid(input.version.trim().replace(/^v/, ''))
    if (!version) throw new InvalidInputError(`"${input.version ?? ''}" is not a semantic version.`, 'version')
    if (!input.keyId) throw new InvalidInputError('A provider version needs the key-id of the GPG key that signs its SHA256SUMS.', 'keyId')
    const protocols = input.protocols ?? []
    checkProtocols(protocols, 'private')
    const timestamp = now()
    const record: ProviderVersionRecord = {
      id: newId('provver'),
      version,
      keyId: input.keyId,
      protocols: [...protocols],
      createdAt: timestamp,
      updatedAt: timestamp,
      shasums: null,
      shasumsSig: null,
      platforms: []
    }
    const { record: provider } = await this.store.providers.update(view.provider.id, (draft) => {
      if (draft.versions.some((existing) => semver.eq(existing.version, version))) {
        throw new InvalidInputError(`Version ${version} of ${label(address)} already exists.`, 'version', [], 'version-exists')
      }
      if (draft.versions.filter((existing) => !existing.shasums || !existing.shasumsSig).length >= MAX_INCOMPLETE_VERSIONS) {
        throw new InvalidInputError(`${label(address)} has ${MAX_INCOMPLETE_VERSIONS} versions waiting for their files, the most Homeport keeps; upload or delete some first.`, 'version')
      }
      draft.versions.push(record)
      draft.updatedAt = timestamp
    })
    await this.changed(caller, 'publish provider', view, 'create', providerVersionResource(view, record))
    return { view: { org: view.org, provider }, version: record }
  }

  async readVersion(caller: Caller, address: ProviderAddress, version: string): Promise<{ view: ProviderView; version: ProviderVersionRecord }> {
    const view = await this.read(caller, address)
    const target = findProviderVersion(view.provider, version)
    if (!target) throw new NotFoundError(`version ${version} of ${label(address)} not found`)
    return { view, version: target }
  }

  async deleteVersion(caller: Caller, address: ProviderAddress, version: string): Promise<void> {
    const view = await this.readForChange(caller, address, 'publish provider', 'destroy', (found) => providerVersionResource(found, findProviderVersion(found.provider, version) ?? { id: version, version }))
    const target = findProviderVersion(view.provider, version)
    if (!target) throw new NotFoundError(`version ${version} of ${label(address)} not found`)
    await this.store.providers
      .update(view.provider.id, (draft) => {
        if (!draft.versions.some((candidate) => candidate.id === target.id)) throw new NotFoundError(`version ${version} of ${label(address)} not found`)
        draft.versions = draft.versions.filter((candidate) => candidate.id !== target.id)
        draft.updatedAt = now()
      })
      .catch(missingIsGone(address))
    await this.docs.remove(privateDocsKey(view.provider.id), target.version)
    await this.archives.release(providerFiles({ ...view.provider, versions: [target] }))
    await this.changed(caller, 'publish provider', view, 'destroy', providerVersionResource(view, target))
  }

  async createPlatform(caller: Caller, address: ProviderAddress, version: string, input: PlatformInput): Promise<{ view: ProviderView; version: ProviderVersionRecord; platform: ProviderPlatformRecord }> {
    const view = await this.readForChange(caller, address, 'publish provider', 'create', (found) => platformResource(found, version, `${input.os}_${input.arch}`, `${input.os}_${input.arch}`))
    const os = checkPlatformPart(input.os, 'os')
    const arch = checkPlatformPart(input.arch, 'arch')
    const filename = checkProviderFilename(input.filename)
    if (!input.shasum) throw new InvalidInputError('A platform needs the shasum (SHA-256) of its zip.', 'shasum')
    const timestamp = now()
    const platform: ProviderPlatformRecord = { id: newId('provpltfrm'), os, arch, filename, shasum: input.shasum.toLowerCase(), createdAt: timestamp, updatedAt: timestamp, binary: null }
    const { record: provider, result } = await this.store.providers
      .update(view.provider.id, (draft) => {
        const target = findProviderVersion(draft, version)
        if (!target) throw new NotFoundError(`version ${version} of ${label(address)} not found`)
        if (target.platforms.some((existing) => existing.os === os && existing.arch === arch)) {
          throw new InvalidInputError(`Version ${target.version} has a ${os}_${arch} platform already.`, 'os')
        }
        target.platforms.push(platform)
        target.updatedAt = timestamp
        return target
      })
      .catch(missingIsGone(address))
    await this.changed(caller, 'publish provider', view, 'create', platformResource(view, result.version, platform.id, `${os}_${arch}`))
    return { view: { org: view.org, provider }, version: result, platform }
  }

  async readPlatform(caller: Caller, address: ProviderAddress, version: string, os: string, arch: string) {
    const found = await this.readVersion(caller, address, version)
    const platform = found.version.platforms.find((candidate) => candidate.os === os && candidate.arch === arch)
    if (!platform) throw new NotFoundError(`platform ${os}_${arch} of ${label(address)} ${version} not found`)
    return { ...found, platform }
  }

  async deletePlatform(caller: Caller, address: ProviderAddress, version: string, os: string, arch: string): Promise<void> {
    const view = await this.readForChange(caller, address, 'publish provider', 'destroy', (found) => platformResource(found, version, `${os}_${arch}`, `${os}_${arch}`))
    const platform = findProviderVersion(view.provider, version)?.platforms.find((candidate) => candidate.os === os && candidate.arch === arch)
    if (!platform) throw new NotFoundError(`platform ${os}_${arch} of ${label(address)} ${version} not found`)
    await this.store.providers
      .update(view.provider.id, (draft) => {
        const target = findProviderVersion(draft, version)
        if (!target?.platforms.some((candidate) => candidate.id === platform.id)) throw new NotFoundError(`platform ${os}_${arch} not found`)
        target.platforms = target.platforms.filter((candidate) => candidate.id !== platform.id)
        target.updatedAt = now()
      })
      .catch(missingIsGone(address))
    await this.archives.release(platform.binary ? [platform.binary.sha256] : [])
    await this.changed(caller, 'publish provider', view, 'destroy', platformResource(view, version, platform.id, `${os}_${arch}`))
  }

  /**
   * Deprecates a published version, with a reason (and a link) that Terraform and OpenTofu print
   * whenever they look the provider up, or takes the deprecation back. The version is still offered:
   * a provider's users pin it in their lock files, and a deprecation only tells them to move on.
   */
  async changeDeprecation(caller: Caller, address: ProviderAddress, version: string, change: DeprecationChange): Promise<{ view: ProviderView; version: ProviderVersionRecord }> {
    const action = change.deprecation === 'Deprecated' ? 'deprecate' : 'undeprecate'
    const view = await this.readForChange(caller, address, 'deprecate provider version', action, (found) => providerVersionResource(found, findProviderVersion(found.provider, version) ?? { id: version, version }))
    const deprecation =
      change.deprecation === 'Deprecated'
        ? { reason: noticeText(change.reason, 'deprecation.reason'), link: noticeLink(change.link, 'deprecation.link'), by: describeCaller(caller, view.org), at: now() }
        : null
    const { record: provider, result } = await this.store.providers
      .update(view.provider.id, (draft) => {
        const target = findProviderVersion(draft, version)
        if (!target) throw new NotFoundError(`version ${version} of ${label(address)} not found`)
        if (!isPublished(target)) {
          throw new InvalidInputError(`Version ${target.version} is not published yet (it needs its SHA256SUMS, their signature and a platform's zip): only a published version is deprecated.`, 'version')
        }
        target.deprecation = deprecation
        target.updatedAt = now()
        return target
      })
      .catch(missingIsGone(address))
    await this.changed(caller, 'deprecate provider version', view, action, providerVersionResource(view, result))
    return { view: { org: view.org, provider }, version: result }
  }

  /** The upload link's object id of a file not yet uploaded, for a caller who may publish; undefined otherwise. */
  uploadObjectId(caller: Caller, view: ProviderView, targetId: string, file: ProviderFile, uploaded: boolean): string | undefined {
    if (uploaded || !authorize(caller, 'publish provider', view.org)) return undefined
    return uploadObjectId(this.store.installation().signingKey, providerFileId(targetId, file))
  }

  /** The signed download location of a stored file (download-links.ts): the management API's links, as the protocol's. */
  downloadToken(targetId: string, file: ProviderFile, stored: StoredFile): string {
    return signDownload(this.store.installation().signingKey, providerFileId(targetId, file), stored.sha256)
  }

  /** Whether the caller may deprecate the provider's versions (a `permissions` entry of Homeport's own). */
  mayDeprecate(caller: Caller, view: ProviderView): boolean {
    return authorize(caller, 'deprecate provider version', view.org)
  }

  /** Whether the caller may delete the provider and its versions (the `permissions` HCP shows). */
  mayManage(caller: Caller, view: ProviderView): boolean {
    return authorize(caller, 'publish provider', view.org)
  }

  /** Drops an organization's providers (it is being destroyed). */
  async removeOrganization(org: OrganizationRecord): Promise<void> {
    for (const provider of await this.store.providers.listBy(BY_ORGANIZATION, org.id)) {
      await this.store.providers.delete(provider.id).catch(() => undefined)
      await this.docs.remove(privateDocsKey(provider.id))
      await this.archives.release(providerFiles(provider))
    }
  }

}

/** A provider as the audit trail names it (`prov-…`, `acme/tool`). */
export function providerResource(view: ProviderView): AuditResource {
  return { type: 'registry-provider', id: view.provider.id, name: `${providerNamespace(view)}/${view.provider.name}` }
}

export function providerVersionResource(view: ProviderView, version: Pick<ProviderVersionRecord, 'id' | 'version'>): AuditResource {
  return { type: 'registry-provider-version', id: version.id, name: `${providerResource(view).name} ${version.version}` }
}

function platformResource(view: ProviderView, version: string, id: string, platform: string): AuditResource {
  return { type: 'registry-provider-platform', id, name: `${providerResource(view).name} ${version} ${platform}` }
}

/** The namespace a provider is addressed by: its organization's name for a private one. */
export function providerNamespace({ org, provider }: ProviderView): string {
  return provider.registryName === 'private' ? org.name : (provider.namespace ?? '')
}

/** Whether the protocol offers a version: its SHA256SUMS and signature are in, and one platform's zip at least. */
export function isPublished(version: ProviderVersionRecord): boolean {
  return version.shasums !== null && version.shasumsSig !== null && version.platforms.some((platform) => platform.binary)
}

/** A version by its semantic version, a leading `v` accepted. */
export function findProviderVersion(provider: ProviderRecord, version: string): ProviderVersionRecord | undefined {
  const wanted = semver.valid(version.trim().replace(/^v/, ''))
  return wanted ? provider.versions.find((candidate) => semver.eq(candidate.version, wanted)) : undefined
}

function checkName(value: string | undefined, attribute: 'name' | 'namespace'): string {
  if (!value) throw new InvalidInputError(`A provider needs a ${attribute}.`, attribute)
  if (value.length > 64 || !NAME.test(value)) {
    throw new InvalidInputError(`"${value}" is not a valid provider ${attribute}: letters and digits, with "-" and "_" allowed except at either end.`, attribute)
  }
  return value
}

export function checkPlatformPart(value: string | undefined, attribute: 'os' | 'arch'): string {
  if (!value || !PLATFORM_PART.test(value)) throw new InvalidInputError(`A platform needs its ${attribute}: lower-case letters, digits and "_", like linux and amd64.`, attribute)
  return value
}

/**
 * A provider file's name (a zip, SHA256SUMS and its signature): one plain file name, never a path.
 * HCP names zips `terraform-provider-<type>_<version>_<os>_<arch>.zip`, but its own client's tests
 * (go-tfe) create platforms named `filename` or a random string, so any name of these characters
 * is taken: what matters is that a bundle or a mirror folder can never write it outside its folder.
 */
const FILENAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,199}$/

export function checkProviderFilename(value: string | undefined, attribute = 'filename'): string {
  if (!value) throw new InvalidInputError('A platform needs the filename of its zip, as SHA256SUMS lists it.', attribute)
  if (!FILENAME.test(value) || value.includes('..')) {
    throw new InvalidInputError(
      `"${value}" is not a file name Homeport takes: letters, digits, ".", "_", "+" and "-", starting with a letter or digit, at most 200 characters (terraform-provider-<type>_<version>_<os>_<arch>.zip).`,
      attribute
    )
  }
  return value
}

/**
 * A release's plugin protocols: for a private provider, the ones Terraform speaks (HCP's rule);
 * for a mirrored one, any `<major>.<minor>`, as the upstream said it.
 */
export function checkProtocols(protocols: readonly string[], registry: 'private' | 'mirror'): void {
  const bad = protocols.find((protocol) => (registry === 'private' ? !PROTOCOLS.includes(protocol) : !/^\d+\.\d+$/.test(protocol)))
  if (bad === undefined) return
  throw new InvalidInputError(registry === 'private' ? `"${bad}" is not a provider protocol (${PROTOCOLS.join(', ')}).` : `"${bad}" is not a plugin protocol version (like 5.0).`, 'protocols')
}

/** Whether Terraform accepts `value` as a provider namespace or type (letters, digits, single dashes). */
export function isTerraformProviderPart(value: string): boolean {
  return TERRAFORM_NAMESPACE.test(value)
}

function label(address: ProviderAddress): string {
  return `${address.namespace}/${address.name}`
}

function providerNotFound(address: ProviderAddress): NotFoundError {
  return new NotFoundError(`registry provider ${label(address)} not found`)
}

function missingIsGone(address: ProviderAddress) {
  return (error: unknown): never => {
    if (error instanceof RecordMissingError) throw providerNotFound(address)
    throw error
  }
}
