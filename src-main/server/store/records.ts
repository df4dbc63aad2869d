/**
 * The persisted shapes of Homeport's records. Field names are the domain's (camelCase); the HTTP
 * layer maps them to the wire's kebab-case. Changing a shape means a new schema version and a
 * migration in schema.ts.
 */

import type { ModuleStatus, RegistryName, VersionStatus } from '../../shared/wire/modules.js'

export type ExecutionMode = 'remote' | 'local' | 'agent'
export type CollaboratorAuthPolicy = 'password' | 'two_factor_mandatory'

export interface AuthenticationTokenRecord {
  id: string
  /** SHA-256 of the token, hex; the token itself is shown once and never stored. */
  hash: string
  createdAt: string
  description: string | null
  /** When it stops working (ISO 8601), or null for never. */
  expiredAt: string | null
  /** The account (accountOf) that made it, as HCP's `created-by` names a user; absent in tokens made before it was kept. */
  createdBy?: string
}

export interface TeamRecord {
  id: string
  name: string
  /** The owners team: every permission on its organization; it cannot be deleted. */
  owners: boolean
  manageModules: boolean
  createdAt: string
  token: AuthenticationTokenRecord | null
}

export type DataRetentionPolicy =
  | { id: string; kind: 'delete-older'; deleteOlderThanNDays: number; createdAt: string }
  | { id: string; kind: 'dont-delete'; createdAt: string }

export interface OrganizationRecord {
  /** The external id (`org-…`); stable across renames, so other records refer to it. */
  id: string
  name: string
  email: string
  createdAt: string
  sessionTimeout: number | null
  sessionRemember: number | null
  collaboratorAuthPolicy: CollaboratorAuthPolicy
  costEstimationEnabled: boolean
  sendPassingStatusesForUntriggeredSpeculativePlans: boolean
  aggregatedCommitStatusEnabled: boolean
  speculativePlanManagementEnabled: boolean
  ownersTeamSamlRoleId: string | null
  assessmentsEnforced: boolean
  allowForceDeleteWorkspaces: boolean
  defaultExecutionMode: ExecutionMode
  defaultAgentPoolId: string | null
  teams: TeamRecord[]
  /** Ids of the organizations allowed to use this organization's private modules (self-hosted). */
  moduleConsumerIds: string[]
  /** The explicit data retention policy, or null to inherit the installation default. */
  dataRetentionPolicy: DataRetentionPolicy | null
  /** VCS connections (HCP Terraform's OAuth clients): where this organization's repositories are. */
  vcsConnections: VcsConnectionRecord[]
  /** The organization token (HCP's organization API token), for pipelines that publish; null when none. */
  token: AuthenticationTokenRecord | null
  /** HCP's audit-trails token, which reads the organization's audit trail and nothing else; absent or null when none. */
  auditTrailsToken?: AuthenticationTokenRecord | null
  /** Tokens `terraform login` obtained, each acting as one of the organization's teams. */
  cliTokens: CliTokenRecord[]
  /**
   * `terraform login` approvals waiting for Terraform to exchange their one-time code (minutes at
   * most): kept with the organization so that any replica can take the exchange, exactly once.
   */
  loginCodes: LoginCodeRecord[]
}

/** An approved `terraform login`, until its code is exchanged for a token or expires. */
export interface LoginCodeRecord extends PendingLoginRecord {
  teamId: string
  approvedBy: string
}

/** A `terraform login` approved and waiting for its code's exchange: a team's (LoginCodeRecord), or a person's own. */
export interface PendingLoginRecord {
  /** SHA-256 of the one-time code, hex: the code itself is never stored. */
  codeHash: string
  redirectUri: string
  codeChallenge: string
  /** The expiry the token will have, or null for none. */
  tokenExpiredAt: string | null
  /** When the code stops being accepted. */
  expiresAt: string
}

/** A token issued to the Terraform CLI through `terraform login` (login.v1), with the rights of a team. */
export interface CliTokenRecord extends AuthenticationTokenRecord {
  teamId: string
  /** Who approved it in the GUI, in words (describeCaller). */
  approvedBy: string
}

/**
 * A VCS connection of Homeport's own kind, `git`: a folder that holds repositories, or a base
 * git URL reachable with the user's own git credentials. A repository identifier
 * (`<org>/<repo>`) resolves under it.
 */
export interface VcsConnectionRecord {
  /** `oc-…`, the OAuth client's id. */
  id: string
  name: string
  /** Where repositories are: `file:///…`, `ssh://…`, `https://…`. */
  baseUrl: string
  createdAt: string
  /** `ot-…`, the OAuth token a module's `vcs-repo.oauth-token-id` names. */
  tokenId: string
  /**
   * Who vouched for the location: the site admin (any folder or URL), or the operator's
   * `--git-roots` (a folder inside one of them, checked again at every use).
   */
  grantedBy: 'site-admin' | 'git-roots'
}

/** Installation-wide state, kept in `homeport.json`. */
export interface InstallationRecord {
  installationId: string
  createdAt: string
  /** Key for signing short-lived URLs (archive downloads). Never leaves the data directory. */
  signingKey: string
  /** Site-level switch that self-hosted organizations need before enabling cost estimation. */
  costEstimationEnabled: boolean
  /** The data retention policy of organizations that set none. */
  defaultDataRetentionPolicy: DataRetentionPolicy
  /**
   * Bundle imports under way, by import id: what each has written so far, to take back if it
   * fails, or at start if the process stopped before it finished (domain/bundles/import-journal.ts).
   */
  importsUnderway?: Record<string, ImportUndoStep[]>
  /** How many days the audit trail keeps an event; absent or null: forever. */
  auditRetentionDays?: number | null
}

/** One write of a bundle import, named so that it can be taken back. */
export type ImportUndoStep =
  | { kind: 'organization'; name: string }
  | { kind: 'module'; organization: string; registryName: 'private' | 'public'; namespace: string; name: string; provider: string }
  | { kind: 'module-version'; organization: string; registryName: 'private' | 'public'; namespace: string; name: string; provider: string; version: string }
  | { kind: 'provider'; organization: string; name: string }
  | { kind: 'provider-version'; organization: string; name: string; version: string }
  | { kind: 'provider-platform'; organization: string; name: string; version: string; os: string; arch: string }
  | { kind: 'gpg-key'; namespace: string; keyId: string }
  // `hostname`: the public registry's name (journals from before OpenTofu's mirror have none: registry.terraform.io's).
  | { kind: 'mirrored-version'; hostname?: string; namespace: string; type: string; version: string }
  | { kind: 'mirrored-platform'; hostname?: string; namespace: string; type: string; version: string; platform: string }

// Registry names and module and version statuses are HCP Terraform's words, stored as they are
// sent; they are defined once, in the wire types, so a new status there is a new stored one here.
export type { RegistryName } from '../../shared/wire/modules.js'
import type { DocCategory } from '../../shared/provider-docs.js'

/** The archive a version was ingested from, stored once per content (content-addressed). */
export interface ArchiveRef {
  sha256: string
  size: number
}

export interface VersionRecord {
  id: string
  /** The semantic version without a leading `v`, build metadata kept. */
  version: string
  commitSha: string | null
  /** How the version was made: `tfe-api` (created and uploaded through the API). */
  source: string
  status: VersionStatus
  /** Why ingest failed, in words; empty otherwise. */
  error: string
  /** Files that did not parse, and other things a reader of the documentation should know. */
  warnings: string[]
  createdAt: string
  updatedAt: string
  /** When the version became `ok`, with microseconds (the protocol's `published_at`). */
  publishedAt: string | null
  archive: ArchiveRef | null
  /**
   * When anything first downloaded the version (a download location, an OCI pull, a bundle, the
   * GUI's archive): from then on its archive never changes, so no two people get different archives
   * under one version. Absent while nobody has.
   */
  firstDownloadedAt?: string
  /**
   * The same module as a zip, made from `archive` at ingest, for OCI clients (OpenTofu's `oci://`
   * sources take a zip); absent until made (versions ingested before Homeport made them get one at start).
   */
  zip?: ArchiveRef
  /**
   * The module's description at this version (its README's first paragraph, as the protocol lists it), kept
   * at ingest so that a search of the module list reads no documentation; absent for versions published
   * before it was kept, until the start-up backfill gives it them.
   */
  description?: string
  /** The git tag the version was published from, for tag-based VCS modules. */
  tag: string | null
  /** Set while its publisher marks the version deprecated (HCP's module version lifecycle). */
  deprecation: VersionDeprecation | null
  /** Set while the version is revoked; a revoked version is deprecated too. */
  revocation: VersionRevocation | null
}

export interface VersionDeprecation {
  reason: string
  link: string | null
  /** Who deprecated it: the site admin, a team or the organization token, in words. */
  by: string
  at: string
}

export interface VersionRevocation {
  message: string
  link: string | null
  by: string
  at: string
  /**
   * Who had downloaded the version when it was revoked (tokens, as callerKey names them): they may
   * go on using it, as HCP lets existing users go on; nobody else is offered it.
   */
  consumers: string[]
}

/**
 * One registry module for one provider: HCP Terraform's `registry-modules` resource. A "module"
 * (namespace + name) with several providers is several records.
 */
export interface ModuleRecord {
  id: string
  organizationId: string
  registryName: RegistryName
  /** Public modules only; a private module's namespace is its organization's current name. */
  namespace: string | null
  name: string
  provider: string
  noCode: boolean
  status: ModuleStatus
  testConfig: { id: string; testsEnabled: boolean } | null
  createdAt: string
  updatedAt: string
  versions: VersionRecord[]
  /** The repository a VCS module is published from; null for modules uploaded through the API. */
  vcsRepo: VcsRepoRecord | null
}

export interface VcsRepoRecord {
  identifier: string
  displayIdentifier: string
  oauthTokenId: string
  /** The branch of branch-based publishing; "" when tag-based. */
  branch: string
  /** The module's folder in a monorepo ("" for the repository root). */
  sourceDirectory: string
  /** Only tags starting with this count, the prefix stripped (`network/` → `network/v1.2.0`). */
  tagPrefix: string
  /** The secret part of the module's webhook URL. */
  webhookId: string
  /** When the tags were last read, and what went wrong then, if anything. */
  syncedAt: string | null
  syncError: string
}

/** How often a module (one provider) was downloaded, per UTC day, and in all. */
export interface DownloadRecord {
  /** `dl-` and the module id's suffix: one record per module. */
  id: string
  moduleId: string
  total: number
  /** Downloads per day (`YYYY-MM-DD`). */
  days: Record<string, number>
  /** Per version id, the tokens (callerKey) that downloaded it: who uses it, should it be revoked. */
  consumers: Record<string, string[]>
}

/** An answer of the upstream public registry, kept so that Homeport can answer offline. */
export interface UpstreamCacheRecord {
  /** `up-` and the SHA-256 of the URL, hex. */
  id: string
  url: string
  fetchedAt: string
  status: number
  body: unknown
}

/** A file of a provider release (SHA256SUMS, its signature, a platform's zip), stored by content. */
export type StoredFile = ArchiveRef

/**
 * A provider of an organization: HCP Terraform's `registry-providers` resource, with its versions
 * and their platforms. A private provider's namespace is its organization's name.
 */
export interface ProviderRecord {
  /** `prov-…` */
  id: string
  organizationId: string
  registryName: RegistryName
  /** Public providers only: the upstream namespace. A private provider's is its organization's current name. */
  namespace: string | null
  name: string
  createdAt: string
  updatedAt: string
  versions: ProviderVersionRecord[]
}

export interface ProviderVersionRecord {
  /** `provver-…` */
  id: string
  version: string
  /** The GPG key (in the provider's namespace) that signs SHA256SUMS. */
  keyId: string
  protocols: string[]
  createdAt: string
  updatedAt: string
  shasums: StoredFile | null
  /** The binary detached signature of SHA256SUMS (armored uploads are stored de-armored). */
  shasumsSig: StoredFile | null
  platforms: ProviderPlatformRecord[]
  /**
   * Set while its publisher marks the version deprecated: Terraform and OpenTofu print the reason
   * (the versions list's `warnings`). Absent in records written before Homeport kept it.
   */
  deprecation?: VersionDeprecation | null
}

export interface ProviderPlatformRecord {
  /** `provpltfrm-…` */
  id: string
  os: string
  arch: string
  filename: string
  /** SHA-256 of the zip, hex, as SHA256SUMS lists it. */
  shasum: string
  createdAt: string
  updatedAt: string
  binary: StoredFile | null
  /** The unpacked package's `h1:`, computed when the zip arrived (absent in records written before Homeport kept it). */
  hash1?: string
}

/** An ASCII-armored OpenPGP public key, scoped to a namespace (an organization's name): HCP's `gpg-keys`. */
export interface GpgKeyRecord {
  /** `gpg-…`; the API shows the key by namespace and key id. */
  id: string
  organizationId: string
  /** The primary key's long id, 16 upper-case hex digits. */
  keyId: string
  asciiArmor: string
  createdAt: string
  updatedAt: string
}

/**
 * A public provider mirrored from the upstream registry (`registry.terraform.io/hashicorp/null`),
 * with exactly the files and keys upstream serves, so that Terraform verifies upstream's own
 * signature offline.
 */
export interface MirroredProviderRecord {
  /** `mirp-…` */
  id: string
  /** The provider's registry host, as Terraform names it (`registry.terraform.io`). */
  hostname: string
  namespace: string
  type: string
  createdAt: string
  updatedAt: string
  versions: MirroredProviderVersion[]
}

export interface MirroredProviderVersion {
  /** `mirpv-…` */
  id: string
  version: string
  /** When it was first mirrored here (absent from versions mirrored before Homeport kept it: their provider's `createdAt`). */
  createdAt?: string
  protocols: string[]
  /**
   * Upstream's SHA256SUMS and its signature, as upstream served them; absent for a version only
   * imported (from a `terraform providers mirror` folder), which the network mirror alone serves.
   */
  shasumsName?: string
  shasums?: StoredFile
  shasumsSig?: StoredFile
  /** The keys upstream listed, as it listed them. */
  keys: Array<{ keyId: string; asciiArmor: string; trustSignature: string; source: string; sourceUrl: string | null }>
  platforms: MirroredProviderPlatform[]
}

export interface MirroredProviderPlatform {
  /** `mirpp-…` */
  id: string
  os: string
  arch: string
  filename: string
  /** The zip's SHA-256 (its `zh:`). */
  shasum: string
  binary: StoredFile
  /** The unpacked package's `h1:`, computed when the zip arrived (absent in records written before Homeport kept it). */
  hash1?: string
  /** Set when upstream's signed SHA256SUMS does not vouch for this zip (imported, not pulled): the network mirror alone serves it. */
  unsigned?: true
}

/** Who made a write the audit trail records. */
export interface AuditActor {
  /** The kind of credential: the site admin's token, a team's (or a token terraform login obtained for it), a person's (a token or a GUI session), an organization's or its audit-trails token, a capability link (an upload link, a webhook, a terraform login code, a sign-in), or nobody (a refused request with no valid token); `system`, Homeport itself, is kept for events recorded before the domain recorded them. */
  kind: 'site-admin' | 'team' | 'user' | 'organization-token' | 'link' | 'anonymous' | 'system'
  /** HCP's `auth.accessor_id`: the id `GET /api/v2/account/details` answers for the same token (`user-team…`), or the kind where there is no token. */
  id: string
  /** HCP's `auth.description`: the username `account/details` answers (`api-team_publishers`), or what the credential was. */
  description: string
}

/**
 * One change made (or refused) in the domain, as the audit trail keeps it: append-only, never
 * changed, removed only when older than the retention the site admin set (none by default).
 */
export interface AuditEventRecord {
  id: string
  /** The organization it belongs to; null for installation-wide changes (mirrors, imports, settings, organizations removed). */
  organizationId: string | null
  timestamp: string
  actor: AuditActor
  /** HCP's words: create, update, destroy, or what else was done (deprecate, revoke, upload, approve…). */
  action: string
  /** The authorization table's action the change was made, or refused, under (`publish module`). */
  permission: string
  /** Whether it was done, or refused for want of permission (or of a valid token). */
  outcome: 'done' | 'refused'
  /** What was changed: its kind as HCP names it (`registry-module-version`), its API id (`modver-…`), and its name for people (`acme/network/aws 1.0.0`). */
  resource: { type: string; id: string; name: string }
  /** The request that made it (its id and where it came from), or null for the command line. Never a path: some paths are credentials. */
  request: { id: string; ip: string } | null
}

/**
 * One scope's gate over what comes in from the public registries (domain/gate/): the installation's
 * (the site admin's) or an organization's (its owners'). An organization's applies on top of the
 * installation's, so it can only hold back more.
 */
export interface GatePolicyRecord {
  /** `gate-installation`, or `gate-org…` (the organization's id without its dash). */
  id: string
  /** null for the installation's policy. */
  organizationId: string | null
  /** Versions younger than this (seconds, from the upstream's publish time) are held; 0 for none. */
  cooldownSeconds: number
  /** Only what an `allow` rule names comes in. */
  allowOnly: boolean
  /** A new version waits for an owner's approval. */
  approvals: boolean
  /** Report only: what the policy would hold is recorded, and everything is offered. */
  reportOnly: boolean
  rules: GateRuleRecord[]
  /** Whether a person has approved or denied a version in this scope: those decisions hold even with nothing else set. */
  hasDecisions?: boolean
  updatedAt: string
}

/** One rule of a gate policy: which addresses and versions it names, and what it does to them. */
export interface GateRuleRecord {
  /** `gaterule-…` */
  id: string
  /** block: never offered; allow: may come in (allow-only mode); exempt: past the cooldown and approvals. */
  effect: 'block' | 'allow' | 'exempt'
  /** An address pattern: `hashicorp/*`, `registry.opentofu.org/*\/*`, `terraform-aws-modules/vpc/aws`. */
  pattern: string
  /** A version constraint (`>= 6.0.0, < 6.2.0`, or `= 6.1.2` for one version); empty for every version. */
  versions: string
  reason: string
  createdBy: string
  createdAt: string
}

/**
 * When Homeport first saw each version of one upstream package, when the upstream says it was
 * published, and the digest of the content it first fetched (which stays canonical).
 */
export interface ReleaseSightingRecord {
  /** `sight-<hash of the key>` */
  id: string
  /** `provider:registry.terraform.io/hashicorp/aws`, `module:registry.terraform.io/terraform-aws-modules/vpc/aws` */
  key: string
  versions: Record<string, ReleaseSighting>
}

export interface ReleaseSighting {
  firstSeenAt: string
  /** The upstream's publish time, when it gave a believable one. */
  publishedAt: string | null
  /** The SHA-256 of the content first fetched (a module's archive, a provider's SHA256SUMS). */
  digest?: string
  /** The digest of different content the upstream later served for the same version (refused). */
  refusedDigest?: string
}

/** A version waiting for (or given) a person's decision under a gate policy with approvals. */
export interface GateRequestRecord {
  /** `gatereq-…` */
  id: string
  /** The scope whose policy asks for the approval (null: the installation's). */
  organizationId: string | null
  /** The package's key, as ReleaseSightingRecord's. */
  key: string
  version: string
  status: 'pending' | 'approved' | 'denied'
  /** Who tried to install it, most recent last (a few at most). */
  requesters: Array<{ who: string; at: string }>
  requestedAt: string
  publishedAt: string | null
  decidedBy: string | null
  decidedAt: string | null
  reason: string
}

/** The kinds of provider documentation, as the public registry's docs API names its categories. */
export type ProviderDocCategory = DocCategory

/**
 * The documentation of one provider version (a private provider's, or a mirrored public one's):
 * each doc's outline here, its markdown in the archive store by content (shared by the versions
 * whose doc did not change).
 */
export interface ProviderDocsRecord {
  /** `pdocs-<hash of the key>` */
  id: string
  /** The provider's key (see providerDocsKey) and `@<version>`. */
  key: string
  /** The provider's key: `private:<provider id>`, `mirror:registry.terraform.io/hashicorp/null`. */
  provider: string
  version: string
  /** The version's id in the registry's v2 docs API: digits, as the public registry's. */
  versionNumber: string
  /** Where the docs came from: the upstream registry's docs API, or an archive of the repository's docs tree. */
  source: 'upstream' | 'archive'
  createdAt: string
  docs: ProviderDocRecord[]
}

export interface ProviderDocRecord {
  /** Digits, unique in the installation (the v2 API's `provider-docs` id). */
  id: string
  title: string
  /** Where it lies in the provider's repository (`docs/resources/pet.md`). */
  path: string
  /** The file's name without the provider's prefix or extension (`pet`). */
  slug: string
  category: ProviderDocCategory
  subcategory: string | null
  /** `hcl`, or a CDKTF language. */
  language: string
  /** Cut at the registry's 500 KB by the upstream. */
  truncated: boolean
  /** The frontmatter's description, shortened: what a search result shows. */
  description: string
  /** The markdown, frontmatter included, as the registry's v2 API serves it. */
  content: StoredFile
}

/** A team a person belongs to, through a group of the identity provider's (domain/people/team-mapping.ts). */
export interface MembershipRecord {
  organizationId: string
  teamId: string
}

/** A person's API token: HCP's user `authentication-tokens`, made in the GUI, the API, or by `terraform login`. */
export type UserTokenRecord = AuthenticationTokenRecord

/** A signed-in browser: the GUI's session cookie holds the secret, of which only the hash is kept. */
export interface SessionRecord {
  id: string
  hash: string
  createdAt: string
  expiresAt: string
}

/**
 * A person, as the identity provider knows them (OpenID Connect): made at their first sign-in, their
 * name and teams brought up to date at each one. Their rights are their teams' (domain/core/authorize.ts).
 */
export interface UserRecord {
  /** `user-…`, HCP's user id form. */
  id: string
  /** The issuer and the ID token's `sub`, joined by a space: who they are, whatever their name becomes. */
  subject: string
  /** `preferred_username`, else the email address, else `sub` (HCP's `username`). */
  username: string
  /** `name`, else the username. */
  displayName: string
  email: string | null
  /** Through the group the site admin named (`--oidc-admin-group`). */
  siteAdmin: boolean
  /** The identity provider's groups at the last sign-in, as it sent them. */
  groups: string[]
  memberships: MembershipRecord[]
  tokens: UserTokenRecord[]
  sessions: SessionRecord[]
  /** `terraform login`s the person approved, waiting for Terraform to exchange their code for a token of theirs. */
  loginCodes: PendingLoginRecord[]
  createdAt: string
  signedInAt: string
}
