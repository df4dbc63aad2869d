import { type Caller } from '../../../domain/core/access.js'
import { authorize } from '../../../domain/core/authorize.js'
import { entitlementsFor, type Edition } from '../../../domain/organizations/edition.js'
import type { DataRetentionPolicy, OrganizationRecord } from '../../../store/records.js'
import type { Resource } from '../../../../shared/wire/jsonapi.js'
import type { EntitlementSetAttributes, OrganizationAttributes, OrganizationPermissions } from '../../../../shared/wire/organizations.js'

/** What a serializer needs to know about the request: who asks, and which edition answers. */
export interface View {
  caller: Caller
  edition: Edition
}

export function organizationPath(name: string): string {
  return `/api/v2/organizations/${encodeURIComponent(name)}`
}

/** The organization's `permissions`, computed for the caller. False where Homeport has no such feature. */
function permissions(org: OrganizationRecord, view: View): OrganizationPermissions {
  const owner = authorize(view.caller, 'manage organization', org)
  const member = authorize(view.caller, 'read organization', org)
  return {
    'can-update': owner,
    'can-destroy': owner,
    'can-access-via-teams': member,
    'can-create-module': authorize(view.caller, 'publish module', org),
    'can-create-team': owner,
    'can-create-workspace': false,
    'can-manage-users': owner,
    'can-manage-subscription': false,
    'can-manage-sso': false,
    'can-update-oauth': owner,
    'can-update-sentinel': false,
    'can-update-ssh-keys': false,
    'can-update-api-token': owner,
    'can-traverse': member,
    'can-start-trial': false,
    'can-update-agent-pools': false,
    'can-manage-tags': false,
    'can-manage-varsets': false,
    'can-read-varsets': false,
    'can-manage-public-providers': false,
    'can-create-provider': false,
    'can-manage-public-modules': owner && view.edition === 'hosted',
    'can-manage-custom-providers': false,
    'can-manage-run-tasks': false,
    'can-read-run-tasks': false,
    'can-create-project': false
  }
}

/** An `organizations` resource; list entries also carry `plan-identifier`, as HCP’s API documentation has it. */
export function organizationResource(org: OrganizationRecord, view: View, options: { listEntry?: boolean; moduleCount?: number } = {}): Resource<OrganizationAttributes, 'organizations'> {
  const path = organizationPath(org.name)
  const hosted = view.edition === 'hosted'
  const attributes: OrganizationAttributes = {
    'external-id': org.id,
    'created-at': org.createdAt,
    name: org.name,
    email: org.email,
    'session-timeout': org.sessionTimeout,
    'session-remember': org.sessionRemember,
    'collaborator-auth-policy': org.collaboratorAuthPolicy,
    'plan-expired': false,
    'plan-expires-at': null,
    'plan-is-trial': false,
    'plan-is-enterprise': !hosted,
    ...(options.listEntry ? { 'plan-identifier': hosted ? 'free' : 'enterprise' } : {}),
    // Homeport's own, on list entries: how many registry modules the organization has (the GUI's list).
    ...(options.moduleCount !== undefined ? { 'module-count': options.moduleCount } : {}),
    'cost-estimation-enabled': org.costEstimationEnabled,
    'send-passing-statuses-for-untriggered-speculative-plans': org.sendPassingStatusesForUntriggeredSpeculativePlans,
    'aggregated-commit-status-enabled': org.aggregatedCommitStatusEnabled,
    'speculative-plan-management-enabled': org.speculativePlanManagementEnabled,
    'allow-force-delete-workspaces': org.allowForceDeleteWorkspaces,
    'fair-run-queuing-enabled': false,
    'saml-enabled': false,
    'owners-team-saml-role-id': org.ownersTeamSamlRoleId,
    // Homeport has no user accounts to enrol in two-factor authentication, so none fails to conform.
    ...(hosted ? { 'two-factor-conformant': true, 'assessments-enforced': org.assessmentsEnforced } : {}),
    'default-execution-mode': org.defaultExecutionMode,
    permissions: permissions(org, view)
  }
  const related = (name: string) => ({ links: { related: `${path}/${name}` } })
  const relationships: Record<string, unknown> = {
    'default-agent-pool': { data: org.defaultAgentPoolId ? { id: org.defaultAgentPoolId, type: 'agent-pools' } : null },
    'oauth-tokens': related('oauth-tokens'),
    'authentication-token': related('authentication-token'),
    'entitlement-set': { data: { id: org.id, type: 'entitlement-sets' }, ...related('entitlement-set') },
    subscription: related('subscription')
  }
  if (!hosted) {
    relationships['module-producers'] = related('module-producers')
    const policy = org.dataRetentionPolicy
    relationships['data-retention-policy'] = {
      data: policy ? { id: policy.id, type: dataRetentionType(policy) } : null,
      ...related('data-retention-policy')
    }
  }
  return { id: org.name, type: 'organizations', attributes, relationships, links: { self: path } }
}

/**
 * The `subscriptions` resource an organization's `subscription` relationship points at. Homeport
 * bills nothing: every organization's subscription is active, free and without an end.
 */
export function subscriptionResource(org: OrganizationRecord) {
  return {
    id: `sub-${org.id.replace(/^org-/, '')}`,
    type: 'subscriptions',
    attributes: { 'is-active': true, 'is-public-free-tier': false, 'is-self-serve-trial': false, 'end-at': null },
    relationships: { organization: { data: { id: org.name, type: 'organizations' } } }
  }
}

/**
 * The `entitlement-sets` resource. Embedded in an organization's creation response (`included`)
 * it lacks private-policy-agents and private-vcs, as HCP’s API documentation says.
 */
export function entitlementSetResource(org: OrganizationRecord, edition: Edition, options: { embedded?: boolean } = {}): Resource<EntitlementSetAttributes, 'entitlement-sets'> {
  const { features, limits } = entitlementsFor(edition)
  const attributes: EntitlementSetAttributes = { ...features, ...limits }
  if (options.embedded) {
    delete attributes['private-policy-agents']
    delete attributes['private-vcs']
  }
  return { id: org.id, type: 'entitlement-sets', attributes, links: { self: `/api/v2/entitlement-sets/${org.id}` } }
}

/** The short form of an organization used in module-producer (and module-consumer) lists. */
export function organizationReference(org: OrganizationRecord) {
  return {
    id: org.name,
    type: 'organizations',
    attributes: { name: org.name, 'external-id': org.id },
    links: { self: organizationPath(org.name) }
  }
}

function dataRetentionType(policy: DataRetentionPolicy): string {
  return policy.kind === 'delete-older' ? 'data-retention-policy-delete-olders' : 'data-retention-policy-dont-deletes'
}

/** Terraform Enterprise's polymorphic data retention resource. */
export function dataRetentionResource(policy: DataRetentionPolicy) {
  return {
    id: policy.id,
    type: dataRetentionType(policy),
    attributes: policy.kind === 'delete-older' ? { 'delete-older-than-n-days': policy.deleteOlderThanNDays } : {}
  }
}
