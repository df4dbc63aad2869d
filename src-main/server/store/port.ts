import type { Readable, Writable } from 'node:stream'
import type { ChangeListener } from './change-feed.js'
import type { WritesRefusedError } from './errors.js'
import type { ArchiveRef, AuditEventRecord, DownloadRecord, GatePolicyRecord, GateRequestRecord, GpgKeyRecord, InstallationRecord, MirroredProviderRecord, ModuleRecord, OrganizationRecord, ProviderDocsRecord, ProviderRecord, ReleaseSightingRecord, UpstreamCacheRecord, UserRecord, VersionRecord } from './records.js'

/** One collection of records of the store port (see Store). */
export interface RecordStore<T> {
  /** Every record, in id order. */
  all(): Promise<T[]>
  get(id: string): Promise<T | undefined>
  /** The records with these ids, in their order (undefined for one there is none of), in one read: a page of hundreds is one query on PostgreSQL. */
  getMany(ids: readonly string[]): Promise<Array<T | undefined>>
  /**
   * `getMany` for a pass over every record (the search index's build): a record the store has not read
   * yet is read without being kept, so that the file store, started on its saved indexes, keeps in
   * memory only what requests ask for.
   */
  scanMany(ids: readonly string[]): Promise<Array<T | undefined>>
  /** The ids of every record (without reading one). */
  ids(): Promise<string[]>
  /** The record a unique index maps `key` to. */
  findBy(index: string, key: string): Promise<T | undefined>
  /** The records in group `key` of a non-unique index. */
  listBy(group: string, key: string): Promise<T[]>
  /** How many records each of `keys` holds in a non-unique index (0 for none), without reading one. */
  groupSizes(group: string, keys: readonly string[]): Promise<Map<string, number>>
  /** The keys of a non-unique index that hold at least one record (without reading one). */
  groupKeys(group: string): Promise<string[]>
  /** Fails with UniqueConstraintError when a unique index already holds one of its keys. */
  create(record: T): Promise<T>
  /** Read-check-write: `change` runs on a private copy, serialized with every other write. */
  update<R = void>(id: string, change: (draft: T) => R): Promise<{ record: T; result: R }>
  /** `update`, or, when there is no such record, `initial()` changed and created, in the same serialized step. */
  upsert(id: string, initial: () => T, change: (draft: T) => void): Promise<T>
  delete(id: string): Promise<void>
  /** Deletes the record only if `check`, run serialized with every other write, says so; says whether it did. */
  deleteWhere(id: string, check: (record: T) => boolean): Promise<boolean>
  /**
   * Tells `listener` of every write once stored (change-feed.ts): the record's id, or none when writes
   * may have gone unheard (a replica's LISTEN connection was lost), when whatever was derived from the
   * records must be derived again. Returns what stops it.
   */
  onChange(listener: ChangeListener): () => void
}

/**
 * Module archives, stored once per content (SHA-256), and the documentation parsed from each.
 * Streams in and out: an archive is never held whole by the caller.
 */
export interface Archives {
  /** Stores `source`, hashing it on the way; past `maxBytes` it stores nothing and fails with TooLargeError. */
  put(source: Readable, maxBytes: number): Promise<ArchiveRef>
  /** The file, or the bytes from `start` to `end` (both included) of it; a file the store lacks fails the stream with isStoredFileMissing's error. */
  read(sha256: string, range?: { start: number; end: number }): Readable
  writeDocs(sha256: string, docs: unknown): Promise<void>
  readDocs<T>(sha256: string): Promise<T | undefined>
  /**
   * The documentation of each of these archives, in their order (undefined for one with none), in one
   * read where the store can (one query on PostgreSQL): the search index's build reads every module's.
   * A file that is not JSON is its SyntaxError, in its place.
   */
  readManyDocs<T>(hashes: readonly string[]): Promise<Array<T | undefined | SyntaxError>>
  /** Removes an archive and its documentation. */
  delete(sha256: string): Promise<void>
  /** Every stored archive's hash, for sweeping out those no version refers to. */
  list(): Promise<string[]>
}

/**
 * Leases on jobs that one process at a time must run (a version's ingest, the git poll, the archive
 * sweep): with several replicas on one database, the one holding a job's lease runs it, and a lease
 * a dead replica held expires, so another takes the job over. In one process they are plain locks.
 */
export interface Leases {
  /** Takes the lease on `job` for `ttlMs`, or renews this process's; false while another holds it unexpired. */
  acquire(job: string, ttlMs: number): Promise<boolean>
  /** Gives up this process's lease on `job`, if it holds it. */
  release(job: string): Promise<void>
}

/**
 * The storage port the domain services use: records with indexes, read-check-write updates,
 * archives as streams by content hash, and a backup. It says nothing about where or how things
 * are kept: the file store (store/file/file-store.ts) keeps them in a data directory, the memory store
 * (store/memory/memory-store.ts) in memory for fast domain tests, and the PostgreSQL store (store/postgres/) keeps them
 * in tables. Reads return records frozen against change: a caller that wants to change one
 * does so through `update`.
 */
export interface Store {
  /** Set when the store opened read-only (a full disk, a read-only mount): every write fails with it. */
  readonly writesRefused?: WritesRefusedError
  readonly organizations: RecordStore<OrganizationRecord>
  readonly modules: RecordStore<ModuleRecord>
  readonly downloads: RecordStore<DownloadRecord>
  /** Answers of the upstream public registry, for offline use. */
  readonly upstreamCache: RecordStore<UpstreamCacheRecord>
  /** Providers of organizations, with their versions and platforms. */
  readonly providers: RecordStore<ProviderRecord>
  /** The GPG keys that sign providers, per namespace (organization). */
  readonly gpgKeys: RecordStore<GpgKeyRecord>
  /** Public providers mirrored from the upstream registry, installation-wide. */
  readonly providerMirror: RecordStore<MirroredProviderRecord>
  /** Every write, append-only (domain/organizations/audit-trail.ts). */
  readonly auditTrail: RecordStore<AuditEventRecord>
  /** The gate's policies: the installation's and each organization's (domain/gate/). */
  readonly gatePolicies: RecordStore<GatePolicyRecord>
  /** When each upstream version was first seen and published, and the digest first fetched. */
  readonly releaseSightings: RecordStore<ReleaseSightingRecord>
  /** Versions waiting for a person's approval, and the decisions made. */
  readonly gateRequests: RecordStore<GateRequestRecord>
  /** The documentation of provider versions, private and mirrored (domain/provider-docs/). */
  readonly providerDocs: RecordStore<ProviderDocsRecord>
  /** The people who sign in through the identity provider, with their teams, API tokens and GUI sessions (domain/people/). */
  readonly users: RecordStore<UserRecord>
  /** Module archives and their parsed documentation. */
  readonly archives: Archives
  readonly leases: Leases
  installation(): InstallationRecord
  /**
   * Grows with every write to organizations, modules, people or the installation: answers computed at
   * an older revision may be stale (download counts and upstream answers do not count). People count
   * because a caller remembered for a token (the protocol cache) goes with a sign-in's or a token's change.
   */
  revision(): number
  /**
   * Resolves once this replica has heard (onChange) every write another replica answered before the
   * call: what follows the change feed (the module list) is then as current as a read of the records.
   * At once where no other process writes (the file and memory stores), and while a replica cannot hear
   * the others (once it hears them again, its feed says that anything may have changed: onChange(undefined)).
   */
  caughtUp(): Promise<void>
  updateInstallation(change: (draft: InstallationRecord) => void): Promise<InstallationRecord>
  /** Writes a consistent backup of everything to `destination` (writes wait a moment while it is taken). */
  backup(destination: Writable): Promise<void>
  /** Why this store takes no Homeport backup (PostgreSQL's is pg_dump), when it takes none. */
  readonly backupRefusal?: string
  /** Finishes every write in flight, then releases what the store holds (the data directory's lock). */
  close(): Promise<void>
}

/** Unique index names of the organizations store. */
export const ORGANIZATION_NAME = 'name'
export const TOKEN_HASH = 'token-hash'
/** The tokens terraform login obtained, by id. */
export const TOKEN_ID = 'token-id'
/** terraform login approvals, by the hash of their one-time code. */
export const LOGIN_CODE = 'login-code'
export const TEAM_ID = 'team-id'
export const VCS_CONNECTION_ID = 'vcs-connection-id'
export const VCS_TOKEN_ID = 'vcs-token-id'

/** Indexes of the modules store. */
export const MODULE_KEY = 'module-key'
export const VERSION_ID = 'version-id'
export const BY_ORGANIZATION = 'organization'
export const BY_ARCHIVE = 'archive'
export const WEBHOOK_ID = 'webhook-id'
/** A module's every provider: its key without the provider (moduleNameKey). */
export const BY_MODULE_NAME = 'module-name'

/** Indexes of the providers store (BY_ORGANIZATION and BY_ARCHIVE too). */
export const PROVIDER_KEY = 'provider-key'
export const PROVIDER_VERSION_ID = 'provider-version-id'
export const PROVIDER_PLATFORM_ID = 'provider-platform-id'

/** The unique index of the GPG keys store: one key id per organization (BY_ORGANIZATION too). */
export const GPG_KEY = 'gpg-key'

/** The audit trail's group of events by organization (`installation` for installation-wide ones). */
export const AUDIT_SCOPE = 'audit-scope'
export const INSTALLATION_SCOPE = 'installation'

/** Indexes of the provider mirror: `hostname/namespace/type`, and the ids of versions and platforms (BY_ARCHIVE too). */
export const MIRRORED_PROVIDER = 'mirrored-provider'
export const MIRRORED_FILE_ID = 'mirrored-file-id'
export const VCS_MODULES = 'vcs'
/** The gate's requests: one per scope, package and version (unique); each scope's, and each package's (groups). */
export const GATE_REQUEST = 'gate-request'
export const GATE_SCOPE = 'gate-scope'
export const GATE_PACKAGE = 'gate-package'
/** Indexes of provider docs: one record per provider version (unique), each doc's and version's number (unique), each provider's versions (group; BY_ARCHIVE too). */
export const DOCS_VERSION = 'docs-version'
export const DOC_NUMBER = 'doc-number'
export const DOCS_PROVIDER = 'docs-provider'
/** Indexes of people: by the identity provider's subject (unique), by the hash of a token or session (unique), by token id (unique), by terraform login code (unique). */
export const USER_SUBJECT = 'user-subject'
export const USER_TOKEN_HASH = 'user-token-hash'
export const USER_TOKEN_ID = 'user-token-id'
export const USER_LOGIN_CODE = 'user-login-code'
/** Every module with a version whose ingest has not finished, for taking over a dead replica's. */
export const INGESTING = 'ingesting'
/** Every module with a version that lacks what ingest now keeps (see lacksBackfill), for the start-up backfill. */
export const NEEDS_BACKFILL = 'needs-backfill'

/** A published version without its OCI zip or its description: published before Homeport kept them, or its zip could not be made then. */
export function lacksBackfill(version: VersionRecord): boolean {
  return version.status === 'ok' && version.archive !== null && (!version.zip || version.description === undefined)
}

/**
 * What makes a registry module unique in its organization. A private module's namespace is the
 * organization itself, so it is left out (the organization may be renamed).
 */
export function moduleKey(module: Pick<ModuleRecord, 'organizationId' | 'registryName' | 'namespace' | 'name' | 'provider'>): string {
  return `${moduleNameKey(module)}/${module.provider}`
}

/** What the providers of one module share: its key without the provider. */
export function moduleNameKey(module: Pick<ModuleRecord, 'organizationId' | 'registryName' | 'namespace' | 'name'>): string {
  const namespace = module.registryName === 'private' ? '' : (module.namespace ?? '').toLowerCase()
  return [module.organizationId, module.registryName, namespace, module.name.toLowerCase()].join('/')
}

/** Organization names are unique without regard to case, so `Acme` and `acme` cannot both exist. */
export function organizationNameKey(name: string): string {
  return name.toLowerCase()
}

/** What makes a provider unique in its organization (a private provider's namespace is the organization). */
export function providerKey(provider: Pick<ProviderRecord, 'organizationId' | 'registryName' | 'namespace' | 'name'>): string {
  const namespace = provider.registryName === 'private' ? '' : (provider.namespace ?? '').toLowerCase()
  return [provider.organizationId, provider.registryName, namespace, provider.name.toLowerCase()].join('/')
}

/**
 * The stored files of module versions: the archive each was published with, and the zip made of it
 * for OCI clients. A loop, not a flatMap: the store indexes this for every module it loads.
 */
export function versionArchives(...versions: ReadonlyArray<Pick<VersionRecord, 'archive' | 'zip'>>): string[] {
  const hashes: string[] = []
  for (const version of versions) {
    if (version.archive) hashes.push(version.archive.sha256)
    if (version.zip) hashes.push(version.zip.sha256)
  }
  return hashes
}

/** Every stored file of a provider: the sums, their signatures and the zips. */
export function providerFiles(provider: ProviderRecord): string[] {
  return provider.versions.flatMap((version) => [
    ...(version.shasums ? [version.shasums.sha256] : []),
    ...(version.shasumsSig ? [version.shasumsSig.sha256] : []),
    ...version.platforms.flatMap((platform) => (platform.binary ? [platform.binary.sha256] : []))
  ])
}

/** The markdown of a provider version's docs, each stored once. */
export function providerDocsFiles(docs: ProviderDocsRecord): string[] {
  return [...new Set(docs.docs.map((doc) => doc.content.sha256))]
}

/** Every stored file of a mirrored provider. */
export function mirroredFiles(provider: MirroredProviderRecord): string[] {
  return provider.versions.flatMap((version) => [
    ...[version.shasums, version.shasumsSig].flatMap((file) => (file ? [file.sha256] : [])),
    ...version.platforms.map((platform) => platform.binary.sha256)
  ])
}
