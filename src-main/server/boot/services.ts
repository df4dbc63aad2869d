import { Authenticator } from '../domain/core/access.js'
import type { Background } from '../domain/core/background.js'
import { DataRetentionService } from '../domain/organizations/data-retention.js'
import type { ServeOptions } from './options.js'
import { ModuleSharingService } from '../domain/modules/module-sharing.js'
import { DocsCache } from '../domain/archives/docs-cache.js'
import { ModuleCatalog } from '../domain/assistant/module-catalog.js'
import { ModuleIndex } from '../domain/search/module-index.js'
import { OciRegistry } from '../domain/oci/oci-registry.js'
import { ProviderCatalog } from '../domain/assistant/provider-catalog.js'
import { DownloadCounter } from '../domain/modules/downloads.js'
import { IngestQueue } from '../domain/ingest/ingest-queue.js'
import { RegistryService } from '../domain/modules/protocol-reads.js'
import { PackageFetcher } from '../domain/upstream/package-fetcher.js'
import { PublicRegistryService } from '../domain/upstream/public-registry.js'
import { DEFAULT_OPENTOFU_DOCS, DEFAULT_OPENTOFU_UPSTREAM, UpstreamRegistry } from '../domain/upstream/upstream.js'
import { PublicMirrors, type PublicMirror } from '../domain/upstream/public-mirrors.js'
import { OPENTOFU_REGISTRY, TERRAFORM_REGISTRY } from '../../shared/terraform-config.js'
import { VcsConnectionService } from '../domain/vcs/connections.js'
import { VcsPublisher } from '../domain/vcs/publisher.js'
import { VcsBuilds } from '../domain/vcs/builds.js'
import { ArchiveKeeper } from '../domain/archives/archive-keeper.js'
import { DomainEvents } from '../domain/core/events.js'
import { recover } from '../domain/recovery.js'
import { GpgKeyService } from '../domain/providers/gpg-keys.js'
import { ProviderRegistryService } from '../domain/providers/provider-registry.js'
import { ProviderUploadService } from '../domain/providers/provider-uploads.js'
import { ProviderService } from '../domain/providers/providers.js'
import { ProviderMirror } from '../domain/providers/provider-mirror.js'
import { ProviderDocs } from '../domain/provider-docs/provider-docs.js'
import { UpstreamDocs } from '../domain/provider-docs/upstream-docs.js'
import { DocsReader } from '../domain/provider-docs/docs-reader.js'
import { ModuleService } from '../domain/modules/modules.js'
import { BundleService } from '../domain/bundles/bundles.js'
import { SiteService } from '../domain/organizations/site-settings.js'
import { OrganizationService } from '../domain/organizations/organizations.js'
import { OrganizationTokenService } from '../domain/organizations/organization-tokens.js'
import { VersionLifecycle } from '../domain/modules/versions/lifecycle.js'
import { VersionComparer } from '../domain/modules/versions/compare.js'
import { VersionFiles } from '../domain/modules/version-files.js'
import { TerraformLogin } from '../domain/login/terraform-login.js'
import { TeamService } from '../domain/organizations/teams.js'
import { UploadService } from '../domain/modules/uploads.js'
import { FirstDownloads } from '../domain/modules/first-download.js'
import { AuditTrailService } from '../domain/organizations/audit-trail.js'
import { Gate } from '../domain/gate/gate.js'
import { GatePolicyService } from '../domain/gate/gate-policies.js'
import { ReleaseDates } from '../domain/gate/release-dates.js'
import { PeopleService } from '../domain/people/people.js'
import { OpenIdConnect } from '../domain/people/openid-connect.js'
import type { Store } from '../store/port.js'
import type { Services } from '../domain/services.js'


/** What the services are configured with: the serve options that concern them (options.ts), and what the server adds. */
export type ServiceOptions = Pick<ServeOptions, 'edition' | 'publicCuration' | 'maxArchiveBytes' | 'upstream' | 'upstreamToken' | 'vcsPollIntervalMs' | 'gitRoots' | 'registryHostname'> &
  Partial<Pick<ServeOptions, 'cooldownSeconds'>> &
  Partial<Pick<ServeOptions, 'oidcIssuer' | 'oidcClientId' | 'oidcClientSecret' | 'oidcName' | 'oidcScopes' | 'oidcGroupsClaim' | 'oidcAdminGroup'>> &
  Partial<Pick<ServeOptions, 'openTofuUpstream' | 'openTofuUpstreamToken' | 'openTofuDocs'>> & {
  adminToken: string
  /** A local folder for git mirrors of VCS modules (a cache). */
  mirrorsDir: string
  /** A local folder for bundles being written and read (emptied at start). */
  bundlesDir: string
  /** How long an upstream answer is served without asking again (default five minutes). */
  upstreamMaxAgeMs?: number
  /** The time, for time-based rules (the audit trail's retention, the gate's cooldown). */
  clock?: () => number
}

/** Single sign-on's relying party, when the site admin named an identity provider (options.ts checks the three go together). */
function openIdConnect(options: ServiceOptions): OpenIdConnect | undefined {
  const { oidcIssuer: issuer, oidcClientId: clientId, oidcClientSecret: clientSecret } = options
  if (!issuer || !clientId || !clientSecret) return undefined
  return new OpenIdConnect({ issuer, clientId, clientSecret, scopes: options.oidcScopes ?? ['openid', 'profile', 'email', 'groups'], groupsClaim: options.oidcGroupsClaim ?? 'groups', name: options.oidcName }, options.clock)
}

/**
 * The composition root: builds the services over `store`, each given what it needs in its
 * constructor, and subscribes them to each other's domain events. Every task they run off the
 * request path goes through `background`.
 */
export function createServices(store: Store, background: Background, options: ServiceOptions): Services {
  const events = new DomainEvents()
  // Every service that changes something records it here, where the change is made.
  const audit = new AuditTrailService(store, options.clock)
  const archives = new ArchiveKeeper(store)
  const organizations = new OrganizationService(store, events, options.edition, audit)
  const downloads = new DownloadCounter(store)
  const { maxArchiveBytes } = options
  const vcsConnections = new VcsConnectionService(store, organizations, audit, options.gitRoots)
  const vcsBuilds = new VcsBuilds(store, vcsConnections, archives, events, background, audit, {
    pollIntervalMs: options.vcsPollIntervalMs,
    maxArchiveBytes,
    mirrorsDir: options.mirrorsDir
  })
  const moduleIndex = new ModuleIndex(store)
  const modules = new ModuleService(store, organizations, downloads, archives, events, vcsBuilds, {
    edition: options.edition,
    publicCuration: options.publicCuration
  }, audit, moduleIndex)
  const ingest = new IngestQueue(store, archives, background)
  const moduleSharing = new ModuleSharingService(store, organizations, options.edition, audit)
  const docs = new DocsCache(store.archives)
  const publicCurationOn = options.edition === 'hosted' && options.publicCuration
  // The gate over what comes in from the public registries: every mirror asks it.
  const clock = options.clock ?? Date.now
  const releaseDates = new ReleaseDates(store, clock)
  const providerDocs = new ProviderDocs(store, archives)
  const gate = new Gate(store, releaseDates, audit, { cooldownSeconds: options.cooldownSeconds ?? 0, clock })
  // One mirror per public registry; the same address for both (another Homeport, say) is one mirror answering for both names.
  const mirrorOf = (url: string, token: string | undefined, names: string[], docsUrl?: string): PublicMirror => {
    const upstream = new UpstreamRegistry(store, { url, token, docsUrl, maxAgeMs: options.upstreamMaxAgeMs, clock: options.clock, stopping: background.stopping })
    const fetcher = new PackageFetcher(store.archives, maxArchiveBytes, (location) => upstream.fetchArchive(location), { stopping: background.stopping })
    return {
      providers: new ProviderMirror(store, upstream, archives, names, audit, gate, releaseDates, new UpstreamDocs(upstream, providerDocs, background, () => ({ hostname: new URL(upstream.address).host, publicName: names[0]! }))),
      modules: new PublicRegistryService(store, modules, archives, upstream, fetcher, docs, downloads, publicCurationOn, gate, releaseDates, audit, names)
    }
  }
  const openTofuUpstream = options.openTofuUpstream ?? DEFAULT_OPENTOFU_UPSTREAM
  const sameUpstream = new URL(openTofuUpstream).origin === new URL(options.upstream).origin
  const publicMirrors = new PublicMirrors(
    sameUpstream
      ? [mirrorOf(options.upstream, options.upstreamToken, [TERRAFORM_REGISTRY, OPENTOFU_REGISTRY])]
      : [mirrorOf(options.upstream, options.upstreamToken, [TERRAFORM_REGISTRY]), mirrorOf(openTofuUpstream, options.openTofuUpstreamToken, [OPENTOFU_REGISTRY], options.openTofuDocs ?? DEFAULT_OPENTOFU_DOCS)]
  )

  const gpgKeys = new GpgKeyService(store, audit)
  const providers = new ProviderService(store, organizations, archives, publicCurationOn, audit, providerDocs)
  const firstDownloads = new FirstDownloads(store)
  const registry = new RegistryService(store, moduleSharing, docs, downloads, firstDownloads)
  const providerUploads = new ProviderUploadService(store, gpgKeys, archives, audit, providerDocs)
  const providerRegistry = new ProviderRegistryService(store, gpgKeys)
  const docsReader = new DocsReader(providerDocs, providers, publicMirrors, options.registryHostname)
  const bundles = new BundleService(
    store,
    organizations,
    background,
    { registry, publicMirrors, providerRegistry, ingest, archives, providerDocs: docsReader },
    { store, organizations, modules, publicMirrors, providers, gpgKeys, providerUploads, archives, maxArchiveBytes, providerDocs },
    { dir: options.bundlesDir, registryHostname: options.registryHostname },
    audit
  )

  // Who reacts to what.
  events.on('archiveStored', (job) => ingest.schedule(job))
  events.on('moduleRemoved', (module) => vcsBuilds.forget(module))
  events.on('organizationDestroyed', (org) => modules.removeOrganization(org))
  events.on('organizationDestroyed', (org) => providers.removeOrganization(org))
  events.on('organizationDestroyed', (org) => gpgKeys.removeOrganization(org))

  return {
    store,
    edition: options.edition,
    authenticator: new Authenticator(store, options.adminToken, options.clock),
    organizations,
    teams: new TeamService(store, organizations, audit),
    organizationTokens: new OrganizationTokenService(store, organizations, audit),
    versionLifecycle: new VersionLifecycle(store, modules, downloads),
    versionComparer: new VersionComparer(store, modules, docs, ingest, archives, maxArchiveBytes),
    terraformLogin: new TerraformLogin(store, organizations, audit),
    people: new PeopleService(store, audit, { adminGroup: options.oidcAdminGroup, clock: options.clock }),
    openIdConnect: openIdConnect(options),
    moduleSharing,
    dataRetention: new DataRetentionService(store, organizations, options.edition, audit),
    modules,
    uploads: new UploadService(store, archives, events, audit, firstDownloads, maxArchiveBytes),
    ingest,
    registry,
    publicMirrors,
    downloads,
    vcsConnections,
    vcsBuilds,
    vcsPublisher: new VcsPublisher(store, organizations, modules, vcsConnections, vcsBuilds),
    site: new SiteService(store, audit),
    providers,
    gpgKeys,
    providerUploads,
    providerRegistry,
    bundles,
    moduleIndex,
    moduleCatalog: new ModuleCatalog(store, registry, docs, options.registryHostname, gate, moduleIndex),
    providerCatalog: new ProviderCatalog(store, publicMirrors, options.registryHostname),
    versionFiles: new VersionFiles(store, modules, firstDownloads),
    oci: new OciRegistry(store, providerRegistry, publicMirrors, registry, downloads, options.registryHostname),
    auditTrail: audit,
    gate,
    gatePolicies: new GatePolicyService(store, organizations, gate, releaseDates, audit, clock),
    providerDocs: docsReader,
    /** Brings the store back to a consistent state after a crash (run once, at start). */
    recover: () => recover(store, events),
    async sweepArchives() {
      await archives.release(await store.archives.list())
    }
  }
}
