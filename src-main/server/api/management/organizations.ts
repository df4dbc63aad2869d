import Router from '@koa/router'
import type { Context } from 'koa'
import type { OrganizationInput } from '../../domain/organizations/organizations.js'
import type { OrganizationRecord } from '../../store/records.js'
import type { Services } from '../../domain/services.js'
import { callerOf } from '../../http/auth.js'
import { HttpError } from '../../http/errors.js'
import { readResource, relationshipId, sendDocument, type Attributes } from '../../http/jsonapi.js'
import { pageRequest, paginate } from '../../http/pagination.js'
import { includes, queryString } from '../../http/query.js'
import { entitlementSetResource, organizationResource, subscriptionResource, type View } from './serializers/organization-resources.js'
import type { BaseUrl } from '../../http/base-url.js'

const INCLUDABLE = ['entitlement_set']

/** HCP’s organizations API: list, show, create, update, destroy, entitlement set. */
export function organizationRoutes(router: Router, services: Services, baseUrl: BaseUrl): void {
  const view = (ctx: Context): View => ({ caller: callerOf(ctx), edition: services.edition })
  const included = (ctx: Context, orgs: OrganizationRecord[]) =>
    includes(ctx, INCLUDABLE, 'organizations').includes('entitlement_set')
      ? { included: orgs.map((org) => entitlementSetResource(org, services.edition)) }
      : {}

  router.get('/organizations', async (ctx) => {
    const orgs = await services.organizations.list(callerOf(ctx), {
      q: queryString(ctx, 'q'),
      email: queryString(ctx, 'q[email]'),
      name: queryString(ctx, 'q[name]')
    })
    const page = pageRequest(ctx, { optional: true })
    const entries = async (list: OrganizationRecord[]) => {
      const counts = await services.modules.countsOf(list)
      return list.map((org) => organizationResource(org, view(ctx), { listEntry: true, moduleCount: counts.get(org.id) ?? 0 }))
    }
    if (!page) {
      sendDocument(ctx, 200, { data: await entries(orgs), ...included(ctx, orgs) })
      return
    }
    const { items, meta, links } = paginate(ctx, baseUrl(ctx), orgs, page)
    sendDocument(ctx, 200, { data: await entries(items), ...included(ctx, items), links, meta })
  })

  router.post('/organizations', async (ctx) => {
    const org = await services.organizations.create(callerOf(ctx), organizationInput(ctx))
    sendDocument(ctx, 201, {
      data: organizationResource(org, view(ctx)),
      included: [entitlementSetResource(org, services.edition, { embedded: true })]
    })
  })

  router.get('/organizations/:org', async (ctx) => {
    const org = await services.organizations.read(callerOf(ctx), ctx.params.org!)
    sendDocument(ctx, 200, { data: organizationResource(org, view(ctx)), ...included(ctx, [org]) })
  })

  router.patch('/organizations/:org', async (ctx) => {
    const org = await services.organizations.update(callerOf(ctx), ctx.params.org!, organizationInput(ctx))
    sendDocument(ctx, 200, { data: organizationResource(org, view(ctx)) })
  })

  router.delete('/organizations/:org', async (ctx) => {
    await services.organizations.destroy(callerOf(ctx), ctx.params.org!)
    ctx.status = 204
  })

  router.get('/organizations/:org/entitlement-set', async (ctx) => {
    const org = await services.organizations.read(callerOf(ctx), ctx.params.org!)
    sendDocument(ctx, 200, { data: entitlementSetResource(org, services.edition) })
  })

  router.get('/organizations/:org/subscription', async (ctx) => {
    const org = await services.organizations.read(callerOf(ctx), ctx.params.org!)
    sendDocument(ctx, 200, { data: subscriptionResource(org) })
  })

  router.get('/entitlement-sets/:id', async (ctx) => {
    const caller = callerOf(ctx)
    const org = (await services.organizations.list(caller)).find((candidate) => candidate.id === ctx.params.id)
    if (!org) throw new HttpError(404, 'not found', `entitlement set "${ctx.params.id}" not found, or you are not authorized to see it`)
    sendDocument(ctx, 200, { data: entitlementSetResource(org, services.edition) })
  })
}

/** The attributes HCP’s create and update an organization take, type-checked; the service applies the rules. */
function organizationInput(ctx: Context): OrganizationInput {
  const document = readResource(ctx, 'organizations')
  const a: Attributes = document.attributes
  const pool = a.has('default-agent-pool-id')
    ? a.nullableString('default-agent-pool-id')
    : relationshipId(document, 'default-agent-pool', 'agent-pools')
  return {
    name: a.string('name'),
    email: a.string('email'),
    sessionTimeout: a.nullableInteger('session-timeout'),
    sessionRemember: a.nullableInteger('session-remember'),
    collaboratorAuthPolicy: a.string('collaborator-auth-policy'),
    costEstimationEnabled: a.boolean('cost-estimation-enabled'),
    sendPassingStatusesForUntriggeredSpeculativePlans: a.boolean('send-passing-statuses-for-untriggered-speculative-plans'),
    aggregatedCommitStatusEnabled: a.boolean('aggregated-commit-status-enabled'),
    speculativePlanManagementEnabled: a.boolean('speculative-plan-management-enabled'),
    ownersTeamSamlRoleId: a.nullableString('owners-team-saml-role-id'),
    assessmentsEnforced: a.boolean('assessments-enforced'),
    allowForceDeleteWorkspaces: a.boolean('allow-force-delete-workspaces'),
    defaultExecutionMode: a.string('default-execution-mode'),
    defaultAgentPoolId: pool
  }
}
