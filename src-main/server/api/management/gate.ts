import type Router from '@koa/router'
import type { Context } from 'koa'
import type { Services } from '../../domain/services.js'
import type { PolicyView, RequestView } from '../../domain/gate/gate-policies.js'
import { formatDuration } from '../../domain/gate/duration.js'
import { packageName, publicPackage } from '../../domain/gate/packages.js'
import { callerOf } from '../../http/auth.js'
import { HttpError } from '../../http/errors.js'
import { readResource, sendDocument } from '../../http/jsonapi.js'
import { pathParams, queryString } from '../../http/query.js'
import type { Resource } from '../../../shared/wire/jsonapi.js'
import type { GatePolicyAttributes, GateRequestAttributes, GateVersionAttributes } from '../../../shared/wire/gate.js'

function policyResource({ scope, policy, installationCooldownSeconds, cooldownFloorSeconds }: PolicyView): Resource<GatePolicyAttributes, 'gate-policies'> {
  return {
    type: 'gate-policies',
    id: policy.id,
    attributes: {
      scope,
      cooldown: formatDuration(policy.cooldownSeconds),
      'cooldown-seconds': policy.cooldownSeconds,
      'installation-cooldown-seconds': installationCooldownSeconds,
      'cooldown-floor-seconds': cooldownFloorSeconds,
      'allow-only': policy.allowOnly,
      approvals: policy.approvals,
      'report-only': policy.reportOnly,
      rules: policy.rules.map((rule) => ({ id: rule.id, effect: rule.effect, pattern: rule.pattern, versions: rule.versions, reason: rule.reason, 'created-by': rule.createdBy, 'created-at': rule.createdAt })),
      'updated-at': policy.updatedAt
    }
  }
}

function requestResource({ request, package: target }: RequestView): Resource<GateRequestAttributes, 'gate-requests'> {
  return {
    type: 'gate-requests',
    id: request.id,
    attributes: {
      kind: target.kind,
      package: packageName(target),
      version: request.version,
      status: request.status,
      requesters: request.requesters,
      'requested-at': request.requestedAt,
      'published-at': request.publishedAt,
      'decided-by': request.decidedBy,
      'decided-at': request.decidedAt,
      reason: request.reason
    }
  }
}

/** `provider` or `module`, and `host/namespace/…`: the package a request (or a query's parameters) names. */
function packageOf(kind: string | undefined, name: string | undefined, from: 'attribute' | 'parameter' = 'attribute') {
  const refuse = (field: string, detail: string) =>
    from === 'attribute' ? new HttpError(422, 'invalid attribute', detail, { pointer: `/data/attributes/${field}` }) : new HttpError(400, 'bad request', detail, { parameter: field })
  if (kind !== 'provider' && kind !== 'module') throw refuse('kind', 'kind is provider or module.')
  const parts = (name ?? '').toLowerCase().split('/')
  if (parts.length !== (kind === 'provider' ? 3 : 4) || !parts[0]!.includes('.') || !parts.slice(1).every((part) => /^[a-z0-9][a-z0-9_-]{0,63}$/.test(part))) {
    throw refuse('package', `package is the ${kind}'s full address: ${kind === 'provider' ? 'registry.terraform.io/hashicorp/aws' : 'registry.terraform.io/terraform-aws-modules/vpc/aws'}.`)
  }
  const [hostname, ...rest] = parts
  return publicPackage(kind, hostname!, ...rest)
}

/**
 * The gate (domain/gate/), Homeport's own: the installation's policy at /admin/gate (the site admin's),
 * an organization's at /organizations/<name>/gate (its owners'); each with its rules and its queue.
 */
export function gateRoutes(router: Router, services: Services): void {
  const scopes: Array<[string, (ctx: Context) => string | undefined]> = [
    ['/admin/gate', () => undefined],
    ['/organizations/:org/gate', (ctx) => pathParams(ctx, 'org').org]
  ]
  for (const [base, scopeOf] of scopes) {
    router.get(`${base}/policy`, async (ctx) => {
      sendDocument(ctx, 200, { data: policyResource(await services.gatePolicies.read(callerOf(ctx), scopeOf(ctx))) })
    })
    router.patch(`${base}/policy`, async (ctx) => {
      const { attributes } = readResource(ctx, 'gate-policies')
      const view = await services.gatePolicies.update(callerOf(ctx), scopeOf(ctx), {
        cooldown: attributes.string('cooldown'),
        allowOnly: attributes.boolean('allow-only'),
        approvals: attributes.boolean('approvals'),
        reportOnly: attributes.boolean('report-only')
      })
      sendDocument(ctx, 200, { data: policyResource(view) })
    })
    router.post(`${base}/policy/rules`, async (ctx) => {
      const { attributes } = readResource(ctx, 'gate-rules')
      await services.gatePolicies.addRule(callerOf(ctx), scopeOf(ctx), {
        effect: attributes.string('effect'),
        pattern: attributes.string('pattern'),
        versions: attributes.string('versions'),
        reason: attributes.string('reason')
      })
      sendDocument(ctx, 201, { data: policyResource(await services.gatePolicies.read(callerOf(ctx), scopeOf(ctx))) })
    })
    router.delete(`${base}/policy/rules/:rule`, async (ctx) => {
      await services.gatePolicies.removeRule(callerOf(ctx), scopeOf(ctx), pathParams(ctx, 'rule').rule)
      ctx.status = 204
    })
    // How the gate treats a package's versions, every one seen and those named (`?kind=provider&package=registry.terraform.io/hashicorp/aws[&versions=6.0.0,6.1.0]`): the GUI's held versions.
    router.get(`${base}/versions`, async (ctx) => {
      const target = packageOf(queryString(ctx, 'kind'), queryString(ctx, 'package'), 'parameter')
      const named = queryString(ctx, 'versions')
      const explained = await services.gatePolicies.explain(callerOf(ctx), scopeOf(ctx), target, named === undefined ? undefined : named.split(',').filter(Boolean))
      sendDocument(ctx, 200, {
        data: explained.map(({ decision, sighting }): Resource<GateVersionAttributes, 'gate-versions'> => ({
          type: 'gate-versions',
          id: `${packageName(target)}@${decision.version}`,
          attributes: {
            version: decision.version,
            offered: decision.offered,
            verdict: decision.verdict,
            reason: decision.reason,
            until: decision.until ?? null,
            reported: decision.reported === true,
            waived: decision.waived ?? null,
            'published-at': sighting?.publishedAt ?? null,
            'first-seen-at': sighting?.firstSeenAt ?? null
          }
        }))
      })
    })
    router.get(`${base}/requests`, async (ctx) => {
      const status = queryString(ctx, 'filter[status]')
      if (status !== undefined && status !== 'pending') throw new HttpError(400, 'bad request', 'filter[status] may only be pending.', { parameter: 'filter[status]' })
      const requests = await services.gatePolicies.requests(callerOf(ctx), scopeOf(ctx), { pending: status === 'pending' })
      sendDocument(ctx, 200, { data: requests.map(requestResource) })
    })
    // A decision on any version by name: from the queue, or ahead of any request (the fast path for a security fix).
    router.post(`${base}/requests`, async (ctx) => {
      const { attributes } = readResource(ctx, 'gate-requests')
      const status = attributes.string('status')
      if (status !== 'approved' && status !== 'denied') throw new HttpError(422, 'invalid attribute', 'status is approved or denied.', { pointer: '/data/attributes/status' })
      const target = packageOf(attributes.string('kind'), attributes.string('package'))
      const view = await services.gatePolicies.decide(callerOf(ctx), scopeOf(ctx), target, attributes.string('version') ?? '', status, attributes.string('reason') ?? '')
      sendDocument(ctx, 201, { data: requestResource(view) })
    })
    router.patch(`${base}/requests/:request`, async (ctx) => {
      const { attributes } = readResource(ctx, 'gate-requests')
      const status = attributes.string('status')
      if (status !== 'approved' && status !== 'denied') throw new HttpError(422, 'invalid attribute', 'status is approved or denied.', { pointer: '/data/attributes/status' })
      const found = await services.gatePolicies.request(callerOf(ctx), scopeOf(ctx), pathParams(ctx, 'request').request)
      const view = await services.gatePolicies.decide(callerOf(ctx), scopeOf(ctx), found.package, found.request.version, status, attributes.string('reason') ?? '')
      sendDocument(ctx, 200, { data: requestResource(view) })
    })
  }
}
