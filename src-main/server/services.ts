import { Authenticator } from './domain/access.js'
import { DataRetentionService } from './domain/data-retention.js'
import type { Edition } from './domain/edition.js'
import { ModuleSharingService } from './domain/module-sharing.js'
import { OrganizationService } from './domain/organizations.js'
import { TeamService } from './domain/teams.js'
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
}

export function createServices(store: Store, options: { edition: Edition; adminToken: string }): Services {
  const organizations = new OrganizationService(store, options.edition)
  return {
    store,
    edition: options.edition,
    authenticator: new Authenticator(store, options.adminToken),
    organizations,
    teams: new TeamService(store, organizations),
    moduleSharing: new ModuleSharingService(store, organizations, options.edition),
    dataRetention: new DataRetentionService(store, organizations, options.edition)
  }
}
