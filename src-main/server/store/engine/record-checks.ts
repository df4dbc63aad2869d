import type { AuditEventRecord, DownloadRecord, GatePolicyRecord, GateRequestRecord, ProviderDocsRecord, ReleaseSightingRecord, GpgKeyRecord, MirroredProviderRecord, ModuleRecord, OrganizationRecord, ProviderRecord, StoredFile, UpstreamCacheRecord, UserRecord } from '../records.js'

/**
 * What a record must look like to be loaded: the ids, hashes and paths that other code builds
 * file paths, indexes and links from. A file that breaks one is refused at load (named, never
 * rewritten), so a damaged or forged data directory or backup cannot reach the code that trusts
 * these fields. Each check returns what is wrong, or undefined.
 */
export type RecordCheck<T> = (record: T) => string | undefined

const SHA256 = /^[0-9a-f]{64}$/
const id = (prefix: string) => new RegExp(`^${prefix}-[A-Za-z0-9]{1,64}$`)
const ORG_ID = id('org')
const TEAM_ID = id('team')
const MODULE_ID = id('mod')
const VERSION_ID = id('modver')

function first(...problems: Array<string | false | undefined>): string | undefined {
  return problems.find((problem): problem is string => typeof problem === 'string')
}

export const checkOrganization: RecordCheck<OrganizationRecord> = (org) =>
  first(
    !ORG_ID.test(org.id) && 'its id is not an organization id',
    typeof org.name !== 'string' && 'it has no name',
    !Array.isArray(org.teams) && 'it has no teams',
    ...(Array.isArray(org.teams) ? org.teams : []).map(
      (team) =>
        (!TEAM_ID.test(team?.id) && `team ${JSON.stringify(team?.id)} has no valid id`) ||
        (team.token !== null && !SHA256.test(team.token?.hash) && `team ${team.id}'s token is not a SHA-256 hash`)
    ),
    !Array.isArray(org.vcsConnections) && 'it has no VCS connections list',
    org.token !== null && !SHA256.test(org.token?.hash) && 'its token is not a SHA-256 hash',
    !Array.isArray(org.cliTokens) && 'it has no CLI tokens list',
    !Array.isArray(org.loginCodes) && 'it has no login codes list'
  )

export const checkModule: RecordCheck<ModuleRecord> = (module) =>
  first(
    !MODULE_ID.test(module.id) && 'its id is not a module id',
    !ORG_ID.test(module.organizationId) && 'its organization id is not one',
    !Array.isArray(module.versions) && 'it has no versions list',
    ...(Array.isArray(module.versions) ? module.versions : []).map(
      (version) =>
        (!VERSION_ID.test(version?.id) && `version ${JSON.stringify(version?.id)} has no valid id`) ||
        (version.archive !== null &&
          (!SHA256.test(version.archive?.sha256) || !Number.isSafeInteger(version.archive?.size)) &&
          `version ${version.id}'s archive is not a SHA-256 with a size`) ||
        (version.zip !== undefined &&
          (!SHA256.test(version.zip?.sha256) || !Number.isSafeInteger(version.zip?.size)) &&
          `version ${version.id}'s zip is not a SHA-256 with a size`) ||
        (version.description !== undefined && typeof version.description !== 'string' && `version ${version.id}'s description is not text`)
    )
  )

export const checkDownloads: RecordCheck<DownloadRecord> = (record) =>
  first(
    !MODULE_ID.test(record.moduleId) && 'its module id is not one',
    !Number.isSafeInteger(record.total) && 'its total is not a count',
    (typeof record.consumers !== 'object' || record.consumers === null) && 'it has no consumers map'
  )

export const checkUpstreamAnswer: RecordCheck<UpstreamCacheRecord> = (record) =>
  first(!/^up-[0-9a-f]{64}$/.test(record.id) && 'its id is not an upstream cache id', typeof record.url !== 'string' && 'it has no URL')

const storedFile = (file: StoredFile | null | undefined, what: string): string | false =>
  file !== null && file !== undefined && (!SHA256.test(file.sha256) || !Number.isSafeInteger(file.size)) && `${what} is not a SHA-256 with a size`

export const checkProvider: RecordCheck<ProviderRecord> = (provider) =>
  first(
    !id('prov').test(provider.id) && 'its id is not a provider id',
    !ORG_ID.test(provider.organizationId) && 'its organization id is not one',
    !Array.isArray(provider.versions) && 'it has no versions list',
    ...(Array.isArray(provider.versions) ? provider.versions : []).flatMap((version) => [
      !id('provver').test(version?.id) && `version ${JSON.stringify(version?.id)} has no valid id`,
      storedFile(version.shasums, `version ${version.id}'s SHA256SUMS`),
      storedFile(version.shasumsSig, `version ${version.id}'s signature`),
      !Array.isArray(version.platforms) && `version ${version.id} has no platforms list`,
      ...(Array.isArray(version.platforms) ? version.platforms : []).map(
        (platform) => (!id('provpltfrm').test(platform?.id) && `platform ${JSON.stringify(platform?.id)} has no valid id`) || storedFile(platform.binary, `platform ${platform.id}'s zip`)
      )
    ])
  )

export const checkGpgKey: RecordCheck<GpgKeyRecord> = (key) =>
  first(
    !id('gpg').test(key.id) && 'its id is not a GPG key id',
    !ORG_ID.test(key.organizationId) && 'its organization id is not one',
    !/^[0-9A-F]{16}$/.test(key.keyId) && 'its key id is not 16 hexadecimal digits',
    typeof key.asciiArmor !== 'string' && 'it has no key'
  )

export const checkMirroredProvider: RecordCheck<MirroredProviderRecord> = (provider) =>
  first(
    !id('mirp').test(provider.id) && 'its id is not a mirrored provider id',
    !Array.isArray(provider.versions) && 'it has no versions list',
    ...(Array.isArray(provider.versions) ? provider.versions : []).flatMap((version): Array<string | false> => [
      !id('mirpv').test(version?.id) && `version ${JSON.stringify(version?.id)} has no valid id`,
      storedFile(version.shasums, `version ${version.id}'s SHA256SUMS`),
      storedFile(version.shasumsSig, `version ${version.id}'s signature`),
      (version.shasums === undefined) !== (version.shasumsSig === undefined) && `version ${version.id} has SHA256SUMS or its signature, not both`,
      !Array.isArray(version.keys) && `version ${version.id} has no keys list`,
      ...(Array.isArray(version.platforms) ? version.platforms : []).flatMap((platform): Array<string | false> => [
        !id('mirpp').test(platform?.id) && `platform ${JSON.stringify(platform?.id)} has no valid id`,
        storedFile(platform.binary, `platform ${platform.id}'s zip`),
        !(platform.binary as StoredFile | undefined) && `platform ${platform.id} has no zip`
      ])
    ])
  )

const AUDIT_ID = id('audit')

export const checkAuditEvent: RecordCheck<AuditEventRecord> = (event) =>
  first(
    !AUDIT_ID.test(event.id) && 'its id is not an audit event id',
    event.organizationId !== null && !ORG_ID.test(event.organizationId) && 'its organization id is not one',
    Number.isNaN(Date.parse(event.timestamp)) && 'it has no time',
    (typeof event.action !== 'string' || typeof event.resource?.type !== 'string') && 'it says no action or resource'
  )

export const checkGatePolicy: RecordCheck<GatePolicyRecord> = (policy) =>
  first(
    policy.id !== `gate-${(policy.organizationId ?? 'installation').replace('-', '')}` && 'its id is not its scope\'s',
    policy.organizationId !== null && !ORG_ID.test(policy.organizationId) && 'its organization id is not one',
    (!Number.isInteger(policy.cooldownSeconds) || policy.cooldownSeconds < 0) && 'its cooldown is not a number of seconds',
    !Array.isArray(policy.rules) && 'it has no rules list',
    ...(Array.isArray(policy.rules) ? policy.rules : []).map((rule) => !['block', 'allow', 'exempt'].includes(rule?.effect) && `rule ${JSON.stringify(rule?.id)} has no effect`)
  )

export const checkReleaseSighting: RecordCheck<ReleaseSightingRecord> = (sighting) =>
  first(
    !/^sight-[0-9a-f]{64}$/.test(sighting.id) && 'its id is not a sighting id',
    typeof sighting.key !== 'string' && 'it names no package',
    (typeof sighting.versions !== 'object' || sighting.versions === null) && 'it has no versions'
  )

export const checkGateRequest: RecordCheck<GateRequestRecord> = (request) =>
  first(
    !id('gatereq').test(request.id) && 'its id is not a gate request id',
    request.organizationId !== null && !ORG_ID.test(request.organizationId) && 'its organization id is not one',
    !['pending', 'approved', 'denied'].includes(request.status) && 'its status is not one',
    !Array.isArray(request.requesters) && 'it has no requesters'
  )

const DIGITS = /^[1-9][0-9]{0,15}$/

export const checkProviderDocs: RecordCheck<ProviderDocsRecord> = (docs) =>
  first(
    !id('pdocs').test(docs.id) && 'its id is not a provider docs id',
    !DIGITS.test(docs.versionNumber) && 'its version number is not one',
    !Array.isArray(docs.docs) && 'it has no docs list',
    ...(Array.isArray(docs.docs) ? docs.docs : []).flatMap((doc): Array<string | false> => [
      !DIGITS.test(doc?.id) && `doc ${JSON.stringify(doc?.id)} has no valid id`,
      storedFile(doc.content, `doc ${doc.id}'s content`),
      !(doc.content as StoredFile | undefined) && `doc ${doc.id} has no content`
    ])
  )

const USER_ID = id('user')

export const checkUser: RecordCheck<UserRecord> = (user) =>
  first(
    !USER_ID.test(user.id) && 'its id is not a user id',
    typeof user.subject !== 'string' && 'it has no subject',
    !Array.isArray(user.memberships) && 'it has no memberships list',
    ...(Array.isArray(user.memberships) ? user.memberships : []).map(
      (membership) => (!ORG_ID.test(membership?.organizationId) || !TEAM_ID.test(membership?.teamId)) && `membership ${JSON.stringify(membership)} is not one`
    ),
    !Array.isArray(user.tokens) && 'it has no tokens list',
    !Array.isArray(user.sessions) && 'it has no sessions list',
    !Array.isArray(user.loginCodes) && 'it has no login codes list',
    ...[...(Array.isArray(user.tokens) ? user.tokens : []), ...(Array.isArray(user.sessions) ? user.sessions : [])].map(
      (secret) => !SHA256.test(secret?.hash) && `token ${JSON.stringify(secret?.id)} is not a SHA-256 hash`
    )
  )
