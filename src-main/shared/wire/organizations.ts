/**
 * Organizations, teams, tokens and the account on the wire: HCP Terraform's shapes, each false or
 * null where Homeport has no such feature.
 */

/** An organization's `permissions`, computed for the caller. */
export interface OrganizationPermissions {
  'can-update': boolean
  'can-destroy': boolean
  'can-access-via-teams': boolean
  'can-create-module': boolean
  'can-create-team': boolean
  'can-create-workspace': boolean
  'can-manage-users': boolean
  'can-manage-subscription': boolean
  'can-manage-sso': boolean
  'can-update-oauth': boolean
  'can-update-sentinel': boolean
  'can-update-ssh-keys': boolean
  'can-update-api-token': boolean
  'can-traverse': boolean
  'can-start-trial': boolean
  'can-update-agent-pools': boolean
  'can-manage-tags': boolean
  'can-manage-varsets': boolean
  'can-read-varsets': boolean
  'can-manage-public-providers': boolean
  'can-create-provider': boolean
  'can-manage-public-modules': boolean
  'can-manage-custom-providers': boolean
  'can-manage-run-tasks': boolean
  'can-read-run-tasks': boolean
  'can-create-project': boolean
}

/** An `organizations` resource's attributes. */
export interface OrganizationAttributes {
  'external-id': string
  'created-at': string
  name: string
  email: string
  /** Minutes; null for HCP's default. */
  'session-timeout': number | null
  'session-remember': number | null
  'collaborator-auth-policy': 'password' | 'two_factor_mandatory'
  'plan-expired': boolean
  'plan-expires-at': string | null
  'plan-is-trial': boolean
  'plan-is-enterprise': boolean
  /** List entries only, as HCP’s API documentation has it. */
  'plan-identifier'?: string
  /** Homeport's own, on list entries: how many registry modules the organization has. */
  'module-count'?: number
  'cost-estimation-enabled': boolean
  'send-passing-statuses-for-untriggered-speculative-plans': boolean
  'aggregated-commit-status-enabled': boolean
  'speculative-plan-management-enabled': boolean
  'allow-force-delete-workspaces': boolean
  'fair-run-queuing-enabled': boolean
  'saml-enabled': boolean
  'owners-team-saml-role-id': string | null
  /** The hosted edition's only. */
  'two-factor-conformant'?: boolean
  /** The hosted edition's only. */
  'assessments-enforced'?: boolean
  'default-execution-mode': 'remote' | 'local' | 'agent'
  permissions: OrganizationPermissions
}

/** An `entitlement-sets` resource's attributes: features (true where Homeport provides them) and limits (null: none). */
export type EntitlementSetAttributes = Record<string, boolean | number | null>

/** A `teams` resource's attributes. */
export interface TeamAttributes {
  name: string
  'created-at': string
  visibility: 'organization'
  'organization-access': { 'manage-modules': boolean }
  permissions: {
    'can-destroy': boolean
    'can-update-organization-access': boolean
    'can-update-api-token': boolean
    'can-update-membership': boolean
    'can-update-visibility': boolean
    /** Homeport's own: whether the caller may hand this team's rights to `terraform login` (owners any team's, a team its own). */
    'can-approve-terraform-login': boolean
  }
}

/** An organization's or a team's `authentication-tokens` resource's attributes. */
export interface TokenAttributes {
  'created-at': string
  description: string | null
  /** Only in the answer that made it: the token is shown that once and never kept. */
  token?: string
  'expired-at': string | null
}

/** A token `terraform login` obtained (Homeport's own listing of them). */
export interface CliTokenAttributes {
  'created-at': string
  description: string | null
  'expired-at': string | null
  /** Who approved it, in words. */
  'approved-by': string
  /** null once the team is gone. */
  'team-name': string | null
}

/** `GET /account/details`: who the token is. */
export interface AccountAttributes {
  username: string
  email: string
  'is-service-account': boolean
  'is-site-admin': boolean
  'two-factor': { enabled: boolean; verified: boolean }
}

/** `GET /account/teams` (Homeport's own): a team a person's groups made them a member of. */
export interface PersonTeamAttributes {
  name: string
  'organization-name': string
}

/** The answer to an approved `terraform login`: where the browser goes next. */
export interface OAuthAuthorizationAttributes {
  'redirect-url': string
}
