import { randomBytes } from 'node:crypto'
import { Collection, type CollectionOptions, type Identified } from './collection.js'
import { LocalLeases } from './local-leases.js'
import type { WritesRefusedError } from '../errors.js'
import type { RecordBackend } from './record-backend.js'
import { checkAuditEvent, checkDownloads, checkGatePolicy, checkGateRequest, checkProviderDocs, checkReleaseSighting, checkUser, checkGpgKey, checkMirroredProvider, checkModule, checkOrganization, checkProvider, checkUpstreamAnswer } from './record-checks.js'
import type { AuditEventRecord, DownloadRecord, GatePolicyRecord, GateRequestRecord, ProviderDocsRecord, ReleaseSightingRecord, GpgKeyRecord, InstallationRecord, MirroredProviderRecord, ModuleRecord, OrganizationRecord, ProviderRecord, UpstreamCacheRecord, UserRecord } from '../records.js'
import { SCHEMAS } from '../schema.js'
import {
  AUDIT_SCOPE,
  INSTALLATION_SCOPE,
  BY_ARCHIVE,
  BY_MODULE_NAME,
  BY_ORGANIZATION,
  GPG_KEY,
  GATE_REQUEST,
  GATE_SCOPE,
  GATE_PACKAGE,
  DOCS_VERSION,
  DOC_NUMBER,
  DOCS_PROVIDER,
  USER_SUBJECT,
  USER_TOKEN_HASH,
  USER_TOKEN_ID,
  USER_LOGIN_CODE,
  MIRRORED_FILE_ID,
  MIRRORED_PROVIDER,
  mirroredFiles,
  PROVIDER_KEY,
  PROVIDER_PLATFORM_ID,
  PROVIDER_VERSION_ID,
  providerFiles,
  providerDocsFiles,
  versionArchives,
  providerKey,
  MODULE_KEY,
  ORGANIZATION_NAME,
  TEAM_ID,
  TOKEN_HASH,
  TOKEN_ID,
  LOGIN_CODE,
  VCS_CONNECTION_ID,
  VCS_MODULES,
  INGESTING,
  NEEDS_BACKFILL,
  lacksBackfill,
  VCS_TOKEN_ID,
  VERSION_ID,
  WEBHOOK_ID,
  moduleKey,
  moduleNameKey,
  organizationNameKey,
  type Archives,
  type Store
} from '../port.js'

export type InstallationFileRecord = InstallationRecord & { id: string }
export const INSTALLATION_ID = 'installation-main'

/** A collection's name (its folder in the data directory and a backup, its table in PostgreSQL) and rules. */
export interface CollectionSpec<T extends Identified> {
  name: string
  options: Omit<CollectionOptions<T>, 'writesRefused'>
}

function spec<T extends Identified>(name: string, options: CollectionSpec<T>['options']): CollectionSpec<T> {
  return { name, options }
}

/**
 * Homeport's collections, each with its name, schema, checks and indexes: the one list every store
 * and the backup are built from, so a new collection cannot be forgotten by one of them.
 */
export function collectionSpecs() {
  return {
    installation: spec<InstallationFileRecord>('installation', { schema: SCHEMAS.installation }),
    organizations: spec<OrganizationRecord>('organizations', {
      schema: SCHEMAS.organizations,
      check: checkOrganization,
      unique: {
        [ORGANIZATION_NAME]: (org) => organizationNameKey(org.name),
        [TOKEN_HASH]: (org) => [
          ...org.teams.flatMap((team) => (team.token ? [team.token.hash] : [])),
          ...(org.token ? [org.token.hash] : []),
          ...(org.auditTrailsToken ? [org.auditTrailsToken.hash] : []),
          ...org.cliTokens.map((token) => token.hash)
        ],
        [TEAM_ID]: (org) => org.teams.map((team) => team.id),
        [TOKEN_ID]: (org) => org.cliTokens.map((token) => token.id),
        [LOGIN_CODE]: (org) => org.loginCodes.map((code) => code.codeHash),
        [VCS_CONNECTION_ID]: (org) => org.vcsConnections.map((connection) => connection.id),
        [VCS_TOKEN_ID]: (org) => org.vcsConnections.map((connection) => connection.tokenId)
      }
    }),
    modules: spec<ModuleRecord>('modules', {
      schema: SCHEMAS.modules,
      check: checkModule,
      unique: {
        [MODULE_KEY]: moduleKey,
        [VERSION_ID]: (module) => module.versions.map((version) => version.id),
        [WEBHOOK_ID]: (module) => (module.vcsRepo ? [module.vcsRepo.webhookId] : [])
      },
      groups: {
        [BY_ORGANIZATION]: (module) => module.organizationId,
        [BY_MODULE_NAME]: moduleNameKey,
        [BY_ARCHIVE]: (module) => versionArchives(...module.versions),
        // Every module published from VCS, for the watcher.
        [VCS_MODULES]: (module) => (module.vcsRepo ? ['all'] : []),
        [INGESTING]: (module) => (module.versions.some((version) => version.status === 'reg_ingressing') ? ['all'] : []),
        // A start then reads only these, not every module (after a clean close, the rest are read when first asked for).
        [NEEDS_BACKFILL]: (module) => (module.versions.some(lacksBackfill) ? ['all'] : [])
      }
    }),
    downloads: spec<DownloadRecord>('downloads', { schema: SCHEMAS.downloads, check: checkDownloads }),
    upstreamCache: spec<UpstreamCacheRecord>('upstream-cache', { schema: SCHEMAS.upstreamCache, check: checkUpstreamAnswer }),
    providers: spec<ProviderRecord>('providers', {
      schema: SCHEMAS.providers,
      check: checkProvider,
      unique: {
        [PROVIDER_KEY]: providerKey,
        [PROVIDER_VERSION_ID]: (provider) => provider.versions.map((version) => version.id),
        [PROVIDER_PLATFORM_ID]: (provider) => provider.versions.flatMap((version) => version.platforms.map((platform) => platform.id))
      },
      groups: {
        [BY_ORGANIZATION]: (provider) => provider.organizationId,
        [BY_ARCHIVE]: providerFiles
      }
    }),
    gpgKeys: spec<GpgKeyRecord>('gpg-keys', {
      schema: SCHEMAS.gpgKeys,
      check: checkGpgKey,
      unique: { [GPG_KEY]: (key) => `${key.organizationId}/${key.keyId}` },
      groups: { [BY_ORGANIZATION]: (key) => key.organizationId }
    }),
    providerMirror: spec<MirroredProviderRecord>('provider-mirror', {
      schema: SCHEMAS.providerMirror,
      check: checkMirroredProvider,
      unique: {
        [MIRRORED_PROVIDER]: (provider) => `${provider.hostname}/${provider.namespace}/${provider.type}`,
        [MIRRORED_FILE_ID]: (provider) => provider.versions.flatMap((version) => [version.id, ...version.platforms.map((platform) => platform.id)])
      },
      groups: { [BY_ARCHIVE]: mirroredFiles }
    }),
    auditTrail: spec<AuditEventRecord>('audit-trail', {
      schema: SCHEMAS.auditTrail,
      check: checkAuditEvent,
      groups: { [AUDIT_SCOPE]: (event) => event.organizationId ?? INSTALLATION_SCOPE }
    }),
    gatePolicies: spec<GatePolicyRecord>('gate-policies', { schema: SCHEMAS.gatePolicies, check: checkGatePolicy }),
    releaseSightings: spec<ReleaseSightingRecord>('release-sightings', { schema: SCHEMAS.releaseSightings, check: checkReleaseSighting }),
    gateRequests: spec<GateRequestRecord>('gate-requests', {
      schema: SCHEMAS.gateRequests,
      check: checkGateRequest,
      unique: { [GATE_REQUEST]: (request) => `${request.organizationId ?? INSTALLATION_SCOPE}|${request.key}|${request.version}` },
      groups: { [GATE_SCOPE]: (request) => request.organizationId ?? INSTALLATION_SCOPE, [GATE_PACKAGE]: (request) => request.key }
    }),
    providerDocs: spec<ProviderDocsRecord>('provider-docs', {
      schema: SCHEMAS.providerDocs,
      check: checkProviderDocs,
      unique: {
        [DOCS_VERSION]: (docs) => docs.key,
        // A version's number and its docs' share one index: the v2 API's ids are one space of numbers.
        [DOC_NUMBER]: (docs) => [`v${docs.versionNumber}`, ...docs.docs.map((doc) => doc.id)]
      },
      groups: {
        [DOCS_PROVIDER]: (docs) => docs.provider,
        [BY_ARCHIVE]: providerDocsFiles
      }
    }),
    users: spec<UserRecord>('users', {
      schema: SCHEMAS.users,
      check: checkUser,
      unique: {
        [USER_SUBJECT]: (user) => user.subject,
        // A person's API tokens and GUI sessions: one space of secrets, so a request is resolved by one lookup.
        [USER_TOKEN_HASH]: (user) => [...user.tokens.map((token) => token.hash), ...user.sessions.map((session) => session.hash)],
        [USER_TOKEN_ID]: (user) => user.tokens.map((token) => token.id),
        [USER_LOGIN_CODE]: (user) => user.loginCodes.map((code) => code.codeHash)
      }
    })
  }
}

export type CollectionSpecs = ReturnType<typeof collectionSpecs>

/** The collections over documents kept by `backendFor` (files in a folder, or memory). */
export function makeCollections(backendFor: (folder: string) => RecordBackend, writesRefused?: WritesRefusedError) {
  const specs = collectionSpecs()
  const make = <T extends Identified>({ name, options }: CollectionSpec<T>) => new Collection<T>(name, backendFor(name), { ...options, writesRefused })
  return {
    installation: make(specs.installation),
    organizations: make(specs.organizations),
    modules: make(specs.modules),
    downloads: make(specs.downloads),
    upstreamCache: make(specs.upstreamCache),
    providers: make(specs.providers),
    gpgKeys: make(specs.gpgKeys),
    providerMirror: make(specs.providerMirror),
    auditTrail: make(specs.auditTrail),
    gatePolicies: make(specs.gatePolicies),
    releaseSightings: make(specs.releaseSightings),
    gateRequests: make(specs.gateRequests),
    providerDocs: make(specs.providerDocs),
    users: make(specs.users)
  }
}

export type Collections = ReturnType<typeof makeCollections>

/** What is done to every collection alike: loading, holding writes, draining, saving its indexes. */
interface AnyCollection {
  readonly name: string
  load(): Promise<void>
  hold<R>(task: () => Promise<R>): Promise<R>
  drain(): Promise<void>
  saveIndexes(): Promise<void>
}

export function everyCollection(collections: Collections): AnyCollection[] {
  return Object.values(collections)
}

/**
 * Loads the collections and builds the Store over them and `archives`: what the file store and
 * the memory store have in common. `backup` and `release` are each store's own.
 */
export async function storeOver(
  collections: Collections,
  archives: Archives,
  own: { writesRefused?: WritesRefusedError; backup: Store['backup']; release: () => Promise<void> }
): Promise<Store> {
  for (const collection of everyCollection(collections)) await collection.load()
  const { installation } = collections
  let current = (await installation.get(INSTALLATION_ID)) ?? (await installation.create(newInstallation()))
  return {
    writesRefused: own.writesRefused,
    ...recordStores(collections),
    archives,
    leases: new LocalLeases(),
    installation: () => current,
    revision: () => installation.revision + collections.organizations.revision + collections.modules.revision + collections.users.revision,
    // One process writes these stores, and tells its listeners before a write is answered.
    caughtUp: () => Promise.resolve(),
    async updateInstallation(change) {
      const { record } = await installation.update(INSTALLATION_ID, change)
      current = record
      return record
    },
    backup: own.backup,
    async close() {
      await Promise.all(everyCollection(collections).map((collection) => collection.drain()))
      // For a quicker next start; without them (a full disk, say) it reads every record, as after a crash.
      await Promise.all(everyCollection(collections).map((collection) => collection.saveIndexes().catch(() => undefined)))
      await own.release()
    }
  }
}

/** The collections of records the Store port names (every one but the installation record, which it wraps). */
export type RecordStores = Pick<Store, 'organizations' | 'modules' | 'downloads' | 'upstreamCache' | 'providers' | 'gpgKeys' | 'providerMirror' | 'auditTrail' | 'gatePolicies' | 'releaseSightings' | 'gateRequests' | 'providerDocs' | 'users'>

/** A store's collections of records, as the port names them. */
export function recordStores({ organizations, modules, downloads, upstreamCache, providers, gpgKeys, providerMirror, auditTrail, gatePolicies, releaseSightings, gateRequests, providerDocs, users }: RecordStores): RecordStores {
  return { organizations, modules, downloads, upstreamCache, providers, gpgKeys, providerMirror, auditTrail, gatePolicies, releaseSightings, gateRequests, providerDocs, users }
}

/** Runs `task` while no collection is being written (writes wait): one consistent state to read. */
export function holdingWrites<R>(collections: Collections, task: () => Promise<R>): Promise<R> {
  const all = everyCollection(collections)
  const holdFrom = (index: number): Promise<R> => (index === all.length ? task() : all[index]!.hold(() => holdFrom(index + 1)))
  return holdFrom(0)
}

export function newInstallation(): InstallationFileRecord {
  const now = new Date().toISOString()
  return {
    id: INSTALLATION_ID,
    installationId: randomBytes(8).toString('hex'),
    createdAt: now,
    signingKey: randomBytes(32).toString('base64url'),
    costEstimationEnabled: false,
    defaultDataRetentionPolicy: { id: 'drp-default', kind: 'dont-delete', createdAt: now }
  }
}
