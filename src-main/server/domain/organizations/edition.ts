/**
 * Homeport mimics one of two editions of the API: `hosted` (HCP Terraform: public module
 * curation, two-factor-conformant and assessments-enforced) or `self-hosted` (Terraform
 * Enterprise: private modules only, module producers, data retention policies).
 */
export type Edition = 'hosted' | 'self-hosted'

export const EDITIONS: readonly Edition[] = ['hosted', 'self-hosted']

/**
 * What an organization is entitled to. Homeport has no plans or billing: the set says what this
 * installation actually provides (true) and what it does not do at all (false); limits are null,
 * meaning none.
 */
export interface Entitlements {
  features: Record<string, boolean>
  limits: Record<string, number | null>
}

export function entitlementsFor(edition: Edition): Entitlements {
  return {
    features: {
      agents: false,
      // The audit trail: every change, read at /api/v2/organization/audit-trail and in the organization's Audit trail tab.
      'audit-logging': true,
      'configuration-designer': false,
      'cost-estimation': false,
      'global-run-tasks': false,
      'module-tests-generation': false,
      operations: false,
      'policy-enforcement': false,
      'private-module-registry': true,
      'private-policy-agents': false,
      'private-vcs': true,
      'run-tasks': false,
      'self-serve-billing': false,
      sentinel: false,
      sso: false,
      'state-storage': false,
      teams: true,
      'usage-reporting': edition === 'self-hosted',
      'vcs-integrations': true
    },
    limits: {
      'policy-limit': null,
      'policy-mandatory-enforcement-limit': null,
      'policy-set-limit': null,
      'run-task-limit': null,
      'run-task-mandatory-enforcement-limit': null,
      'run-task-workspace-limit': null,
      'user-limit': null,
      'versioned-policy-set-limit': null
    }
  }
}
