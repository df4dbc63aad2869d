import { Authenticator } from './domain/access.js'
import { DataRetentionService } from './domain/data-retention.js'
import type { Edition } from './domain/edition.js'
import { ModuleSharingService } from './domain/module-sharing.js'
import { DocsCache } from './domain/docs-cache.js'
import { DownloadCounter } from './domain/downloads.js'
import { IngestQueue } from './domain/ingest/ingest-queue.js'
import { RegistryService } from './domain/registry.js'
import { ModuleService } from './domain/modules.js'
import { OrganizationService } from './domain/organizations.js'
import { TeamService } from './domain/teams.js'
import { DEFAULT_MAX_ARCHIVE_BYTES, UploadService } from './domain/uploads.js'
import type { Store } from './store/store.js'

/** The domain services, shared by the management API, the registry protocol and the GUI. */
export interface Services {
  store: Store
  edition: Edition
  authenticator: Authenticator
  organizations: OrganizationService
  teams: TeamService
  moduleSharing: ModuleSharingService
  dataRetention: DataRetentionService
  modules: ModuleService
  uploads: UploadService
  ingest: IngestQueue
  registry: RegistryService
  downloads: DownloadCounter
}

export interface ServiceOptions {
  edition: Edition
  adminToken: string
  /** Whether organizations may curate public modules (hosted edition); default true. */
  publicCuration?: boolean
  maxArchiveBytes?: number
}

export function createServices(store: Store, options: ServiceOptions): Services {
  const organizations = new OrganizationService(store, options.edition)
  const downloads = new DownloadCounter(store)
  const modules = new ModuleService(store, organizations, downloads, {
    edition: options.edition,
    publicCuration: options.publicCuration ?? true
  })
  organizations.addDependent(modules)
  const ingest = new IngestQueue(store, modules)
  modules.setScheduler(ingest)
  const moduleSharing = new ModuleSharingService(store, organizations, options.edition)
  return {
    store,
    edition: options.edition,
    authenticator: new Authenticator(store, options.adminToken),
    organizations,
    teams: new TeamService(store, organizations),
    moduleSharing,
    dataRetention: new DataRetentionService(store, organizations, options.edition),
    modules,
    uploads: new UploadService(store, modules, options.maxArchiveBytes ?? DEFAULT_MAX_ARCHIVE_BYTES),
    ingest,
    registry: new RegistryService(store, moduleSharing, new DocsCache(store.archives), downloads),
    downloads
  }
}
