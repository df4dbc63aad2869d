import type { Authenticator } from './core/access.js'
import type { DataRetentionService } from './organizations/data-retention.js'
import type { Edition } from './organizations/edition.js'
import type { ModuleSharingService } from './modules/module-sharing.js'
import type { DownloadCounter } from './modules/downloads.js'
import type { IngestQueue } from './ingest/ingest-queue.js'
import type { RegistryService } from './modules/protocol-reads.js'
import type { PublicMirrors } from './upstream/public-mirrors.js'
import type { VcsConnectionService } from './vcs/connections.js'
import type { VcsPublisher } from './vcs/publisher.js'
import type { VcsBuilds } from './vcs/builds.js'
import type { GpgKeyService } from './providers/gpg-keys.js'
import type { ProviderRegistryService } from './providers/provider-registry.js'
import type { ProviderUploadService } from './providers/provider-uploads.js'
import type { ProviderService } from './providers/providers.js'
import type { ModuleService } from './modules/modules.js'
import type { BundleService } from './bundles/bundles.js'
import type { SiteService } from './organizations/site-settings.js'
import type { OrganizationService } from './organizations/organizations.js'
import type { OrganizationTokenService } from './organizations/organization-tokens.js'
import type { VersionLifecycle } from './modules/versions/lifecycle.js'
import type { VersionComparer } from './modules/versions/compare.js'
import type { TerraformLogin } from './login/terraform-login.js'
import type { TeamService } from './organizations/teams.js'
import type { UploadService } from './modules/uploads.js'
import type { AuditTrailService } from './organizations/audit-trail.js'
import type { PeopleService } from './people/people.js'
import type { OpenIdConnect } from './people/openid-connect.js'
import type { ModuleCatalog } from './assistant/module-catalog.js'
import type { ModuleIndex } from './search/module-index.js'
import type { ProviderCatalog } from './assistant/provider-catalog.js'
import type { OciRegistry } from './oci/oci-registry.js'
import type { VersionFiles } from './modules/version-files.js'
import type { Gate } from './gate/gate.js'
import type { GatePolicyService } from './gate/gate-policies.js'
import type { DocsReader } from './provider-docs/docs-reader.js'
import type { Store } from '../store/port.js'

/**
 * The domain services, shared by every face (the management API, the registry protocols, the GUI):
 * what the HTTP layer is given. They are built and wired in boot/services.ts.
 */
export interface Services {
  store: Store
  edition: Edition
  authenticator: Authenticator
  organizations: OrganizationService
  teams: TeamService
  organizationTokens: OrganizationTokenService
  versionLifecycle: VersionLifecycle
  versionComparer: VersionComparer
  terraformLogin: TerraformLogin
  /** People who sign in through the identity provider, their teams, sessions and tokens (domain/people/). */
  people: PeopleService
  /** Single sign-on's relying party; none when no identity provider is configured. */
  openIdConnect: OpenIdConnect | undefined
  moduleSharing: ModuleSharingService
  dataRetention: DataRetentionService
  modules: ModuleService
  uploads: UploadService
  ingest: IngestQueue
  registry: RegistryService
  /** Terraform's and OpenTofu's public registries, mirrored: providers and curated modules, found by hostname. */
  publicMirrors: PublicMirrors
  downloads: DownloadCounter
  vcsConnections: VcsConnectionService
  vcsBuilds: VcsBuilds
  vcsPublisher: VcsPublisher
  site: SiteService
  providers: ProviderService
  gpgKeys: GpgKeyService
  providerUploads: ProviderUploadService
  providerRegistry: ProviderRegistryService
  bundles: BundleService
  auditTrail: AuditTrailService
  /** The gate over what comes in from the public registries: the decision every face asks (domain/gate/). */
  gate: Gate
  /** The gate's policies and approval queue, as people change them. */
  gatePolicies: GatePolicyService
  /** Provider documentation, private and mirrored, as callers read it on every face (domain/provider-docs/). */
  providerDocs: DocsReader
  /** Every module's words, for searches (domain/search/). */
  moduleIndex: ModuleIndex
  /** What the assistant's tools (the MCP face) read: modules and providers a caller may install. */
  moduleCatalog: ModuleCatalog
  providerCatalog: ProviderCatalog
  /** A published version's files, as its archive holds them (the GUI's Files tab). */
  versionFiles: VersionFiles
  /** The OCI Distribution face's reads (api/oci/). */
  oci: OciRegistry
  recover(): Promise<void>
  /** Removes archives nothing refers to (a periodic job, one replica at a time: boot/jobs.ts). */
  sweepArchives(): Promise<void>
}
