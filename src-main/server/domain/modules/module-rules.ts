import semver from 'semver'
import type { ModuleRecord, OrganizationRecord, VersionRecord } from '../../store/records.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import type { AuditResource } from '../organizations/audit-trail.js'
import { latestOf, newestFirst } from '../core/newest-first.js'

/**
 * The rules of registry modules and versions that need no service: names, semantic versions,
 * what a version accepts, how one is found. The services (modules.ts, the VCS publisher, ingest)
 * share them.
 */

/** Where a registry module sits: the path segments of HCP’s module endpoints (`/organizations/:org/registry-modules/:registry/:namespace/:name/:provider`). */
export interface ModuleAddress {
  organization: string
  registryName: string
  namespace: string
  name: string
  provider: string
}

/** A module with the organization it belongs to, which gives a private module its namespace. */
export interface ModuleView {
  org: OrganizationRecord
  module: ModuleRecord
}

const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?$/
const PROVIDER = /^[a-z0-9]+$/
const MAX_LENGTH = 64
/** The namespace a module is addressed by: its organization's name for a private module. */
export function namespaceOf({ org, module }: ModuleView): string {
  return module.registryName === 'private' ? org.name : (module.namespace ?? '')
}

/**
 * A valid semantic version without its leading `v`, build metadata kept; undefined when the
 * string is not one.
 */
export function normalizeVersion(version: string): string | undefined {
  const stripped = version.trim().replace(/^v/, '')
  return semver.valid(stripped) !== null ? stripped : undefined
}

/** A new version record; `fields` says how it was made and where it starts. */
export function newVersion(version: string, fields: Pick<VersionRecord, 'source' | 'status'> & Partial<VersionRecord>): VersionRecord {
  const timestamp = now()
  return {
    id: newId('modver'),
    version,
    commitSha: null,
    error: '',
    warnings: [],
    createdAt: timestamp,
    updatedAt: timestamp,
    publishedAt: null,
    archive: null,
    tag: null,
    deprecation: null,
    revocation: null,
    ...fields
  }
}

/**
 * A version created through the API takes archives through any link it was given, until that link
 * expires: the last archive wins, as on HCP, where go-tfe PUTs twice to one link and the second
 * must not depend on whether the first was ingested yet. A version published from git takes none.
 */
export function acceptsUpload(version: VersionRecord): boolean {
  return version.source === 'tfe-api'
}

/**
 * Reads hand out a link only until the version is published, so that a published version's
 * archive can change only within the life of a link given before (an hour or so), and never once
 * anyone has downloaded it (`firstDownloadedAt`: the upload answers 409 then).
 */
export function offersUploadLink(version: VersionRecord): boolean {
  return acceptsUpload(version) && version.status !== 'ok' && version.firstDownloadedAt === undefined
}

/** The version `version` of a module, accepting a leading `v` and Terraform's canonical form. */
export function findVersion(module: ModuleRecord, version: string): VersionRecord | undefined {
  const wanted = normalizeVersion(version)
  if (!wanted) return undefined
  return module.versions.find((candidate) => candidate.version === wanted) ?? module.versions.find((candidate) => semver.eq(candidate.version, wanted))
}

export function checkName(value: string | undefined, attribute: 'name' | 'namespace'): string {
  if (value === undefined) throw new InvalidInputError(`A module needs a ${attribute}.`, attribute)
  if (value.length > MAX_LENGTH) throw new InvalidInputError(`A module ${attribute} has at most ${MAX_LENGTH} characters.`, attribute)
  if (!NAME.test(value)) {
    throw new InvalidInputError(
      `"${value}" is not a valid module ${attribute}: letters and digits, with "-" and "_" allowed except at either end.`,
      attribute
    )
  }
  return value
}

export function checkProvider(value: string | undefined): string {
  if (value === undefined) throw new InvalidInputError('A module needs a provider.', 'provider')
  if (value.length > MAX_LENGTH) throw new InvalidInputError(`A provider has at most ${MAX_LENGTH} characters.`, 'provider')
  if (!PROVIDER.test(value)) throw new InvalidInputError(`"${value}" is not a valid provider: lowercase letters and digits only.`, 'provider')
  return value
}

export function label(address: Pick<ModuleAddress, 'namespace' | 'name'> & { provider?: string }): string {
  return [address.namespace, address.name, address.provider].filter(Boolean).join('/')
}

export function moduleNotFound(address: Pick<ModuleAddress, 'namespace' | 'name'> & { provider?: string }): NotFoundError {
  return new NotFoundError(`registry module ${label(address)} not found`)
}

/** A module as the audit trail names it: its API id, and its address for people (`acme/network/aws`, `private` left out). */
export function moduleResource(view: ModuleView): AuditResource {
  return { type: 'registry-module', id: view.module.id, name: label({ namespace: namespaceOf(view), name: view.module.name, provider: view.module.provider }) }
}

/** A version as the audit trail names it (`modver-…`, `acme/network/aws 1.0.0`). */
export function versionResource(view: ModuleView, version: Pick<VersionRecord, 'id' | 'version'>): AuditResource {
  return { type: 'registry-module-version', id: version.id, name: `${moduleResource(view).name} ${version.version}` }
}

/** The `ok` versions, newest first (semantic version order; build metadata ignored). */
export function published(module: ModuleRecord): VersionRecord[] {
  return newestFirst(module.versions.filter((version) => version.status === 'ok'), (version) => version.version)
}

/** The newest stable version, or the newest prerelease when there is no stable one. */
export function latest(module: ModuleRecord): VersionRecord | undefined {
  return latestOf(published(module))
}

