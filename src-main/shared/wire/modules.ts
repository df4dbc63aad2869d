/**
 * Registry modules on the wire: the management API's `registry-modules` and
 * `registry-module-versions` (HCP Terraform's shapes, with Homeport's additions marked), the
 * module registry protocol's answers, and Homeport's interface diffs and download counts.
 */

export type RegistryName = 'private' | 'public'

/** Module statuses, as HCP Terraform names them. */
export type ModuleStatus = 'pending' | 'no_version_tags' | 'setup_failed' | 'setup_complete'

/** Version statuses, as HCP Terraform names them. */
export type VersionStatus =
  | 'pending'
  | 'cloning'
  | 'clone_failed'
  | 'reg_ingress_req_failed'
  | 'reg_ingressing'
  | 'reg_ingress_failed'
  | 'ok'

/** A module's `vcs-repo`; the webhook URL (a secret) and the repository's location are null for callers who may not publish. */
export interface VcsRepoAttributes {
  branch: string
  'ingress-submodules': boolean
  identifier: string
  'display-identifier': string
  'oauth-token-id': string
  'webhook-url': string | null
  'repository-http-url': string | null
  'service-provider': 'git'
  /** True when versions come from tags, false for branch-based publishing. */
  tags: boolean
  'source-directory': string
  'tag-prefix': string
  'synced-at': string | null
  'sync-error': string
}

/** Homeport's own: a published version's date, and the tag or commit it came from. */
export interface PublishedVersion {
  version: string
  'published-at': string | null
  tag: string | null
  'commit-sha': string | null
}

/** A `registry-modules` resource's attributes. */
export interface ModuleAttributes {
  name: string
  namespace: string
  provider: string
  'registry-name': RegistryName
  status: ModuleStatus
  'version-statuses': Array<{ version: string; status: VersionStatus; error?: string }>
  'revoked-versions': string[]
  /** Homeport's own. */
  'deprecated-versions': string[]
  /** Homeport's own, for the version menu. */
  'published-versions': PublishedVersion[]
  'created-at': string
  'updated-at': string
  'no-code': boolean
  /** Homeport's own, on list entries: the latest version's README's first paragraph. */
  description?: string
  /** Homeport's own, in a list: how many times the module was installed. */
  downloads?: number
  permissions: { 'can-delete': boolean; 'can-resync': boolean; 'can-retry': boolean }
  'publishing-mechanism'?: 'git_tag' | 'branch'
  /** Modules published from git, in single documents (list entries omit it, as HCP’s API documentation says). */
  'vcs-repo'?: VcsRepoAttributes
  'test-config'?: { id: string; 'tests-enabled': boolean }
}

/** Homeport's own `meta` of the module list: how many modules of each provider match all but the provider filter. */
export interface ModuleListMeta {
  'provider-counts'?: Record<string, number>
}

/** A `registry-module-versions` resource's attributes. */
export interface ModuleVersionAttributes {
  source: string
  status: VersionStatus
  version: string
  'commit-sha': string | null
  /** Why ingest failed, in words; "" otherwise. */
  error: string
  warnings: string[]
  'created-at': string
  'updated-at': string
  deprecation: DeprecationAttributes | null
  revocation: {
    status: 'Revoked'
    message: string
    link: string | null
    'revoked-by': string
    'revoked-at': string
    /** How many tokens may go on using it (who they are stays with the owners). */
    'existing-consumers': number
  } | null
}

/** A deprecated version's `deprecation`, in HCP's module version lifecycle's shape (provider versions reuse it). */
export interface DeprecationAttributes {
  'deprecated-status': 'Deprecated'
  reason: string
  link: string | null
  'deprecated-by': string
  'deprecated-at': string
}

/** What a change does to a module's callers. */
export type Impact = 'breaking' | 'additive' | 'none'

/** The semantic-version step from one version to another. */
export type Step = 'major' | 'minor' | 'patch' | 'prerelease' | 'none' | 'downgrade'

export interface InterfaceChange {
  impact: Impact
  /** `input-removed`, `output-added`, `terraform-version`… */
  kind: string
  /** "" for the root module, else the submodule's path (`modules/subnet`). */
  part: string
  /** What it says, as a sentence's end: "removes output `vpc_arn`". */
  detail: string
}

/** Homeport's `module-files` resource: a file of a published version's archive (`text` when one file is read). */
export interface ModuleFileAttributes {
  /** Relative to the module root. */
  path: string
  size: number
  text?: string
}

/** Homeport's `interface-diffs` resource: the interface change between two versions (see docs/guide/publishing.md and the GUI's Compare versions). */
export interface InterfaceDiffAttributes {
  /** null when `to` is the first version. */
  from: string | null
  to: string
  /** The largest impact among the changes. */
  impact: Impact
  step: Step
  changes: InterfaceChange[]
  /** When the step taken is smaller than the change needs: what to tell the publisher; else null. */
  verdict: string | null
  /** For a preview: what ingest would warn about. */
  warnings?: string[]
  /** Homeport's own, for a preview of a first version (nothing to compare with): the root's interface as it would be published. */
  interface?: { inputs: Array<{ name: string; type: string; required: boolean }>; outputs: string[] }
}

/** A module at a version, as the registry protocol lists it. */
export interface ProtocolModule {
  id: string
  owner: string
  namespace: string
  name: string
  version: string
  provider: string
  description: string
  /** The repository the module comes from; "" for a module uploaded through the API. */
  source: string
  published_at: string
  downloads: number
  verified: boolean
}

export interface ProtocolInput {
  name: string
  type: string
  description: string
  /** JSON-encoded, or "" for a required input. */
  default: string
  required: boolean
}

export interface ProtocolProviderDependency {
  name: string
  namespace: string
  source: string
  version: string
}

export interface ProtocolModuleDependency {
  name: string
  source: string
  version: string
}

/** The root module, a submodule or an example, documented. */
export interface ProtocolPart {
  /** "" for the root, else `modules/<name>` or `examples/<name>`. */
  path: string
  name: string
  readme: string
  empty: boolean
  inputs: ProtocolInput[]
  outputs: Array<{ name: string; description: string }>
  dependencies: ProtocolModuleDependency[]
  provider_dependencies: ProtocolProviderDependency[]
  resources: Array<{ name: string; type: string }>
  /** Homeport's own (terraform-config-inspect's name): the part's `required_version` constraints. */
  required_core: string[]
}

/** HCP's `deprecation` of a version in protocol answers. */
export interface ProtocolDeprecation {
  reason: string
  link: string | null
}

/** The protocol's detail of a version: the module with its documentation, providers and versions. */
export interface ProtocolModuleDetail extends ProtocolModule {
  root: ProtocolPart
  submodules: ProtocolPart[]
  examples: ProtocolPart[]
  providers: string[]
  versions: string[]
  deprecation: ProtocolDeprecation | null
  /** Homeport's own: the root's change log, as Markdown ("" when none). */
  changelog: string
}

/** One part's requirements in the protocol's versions list. */
export interface ProtocolRequirements {
  providers: ProtocolProviderDependency[]
  dependencies: ProtocolModuleDependency[]
}

/** One entry of the protocol's versions list: what Terraform needs to pick a version. */
export interface ProtocolVersion {
  version: string
  root: ProtocolRequirements
  submodules: Array<ProtocolRequirements & { path: string }>
  deprecation: ProtocolDeprecation | null
}

/** `…/downloads/summary`. */
export interface DownloadsSummaryAttributes {
  week: number
  month: number
  year: number
  total: number
}

/** Homeport's `…/downloads/daily`: downloads per day over the last 30 days, oldest first. */
export interface DailyDownloadsAttributes {
  days: Array<{ date: string; count: number }>
}
