/**
 * The persisted shapes of Homeport's records. Field names are the domain's (camelCase); the HTTP
 * layer maps them to the wire's kebab-case. Changing a shape means a new schema version and a
 * migration in schema.ts.
 */

export type ExecutionMode = 'remote' | 'local' | 'agent'
export type CollaboratorAuthPolicy = 'password' | 'two_factor_mandatory'

export interface AuthenticationTokenRecord {
  id: string
  /** SHA-256 of the token, hex; the token itself is shown once and never stored. */
  hash: string
  createdAt: string
  description: string | null
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
}
