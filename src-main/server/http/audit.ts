import { randomUUID } from 'node:crypto'
import type { Context, Next } from 'koa'
import { auditActor, type AuditTrailService } from '../domain/organizations/audit-trail.js'
import type { OrganizationRecord } from '../store/records.js'
import { ORGANIZATION_NAME, organizationNameKey, TEAM_ID, TOKEN_ID, VCS_CONNECTION_ID, VCS_TOKEN_ID, type Store } from '../store/port.js'
import { identifiedCaller } from './auth.js'

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
/** Routes that take a POST (or a DELETE) and write nothing: what they answer is computed, not kept (MCP's tools only read). */
const READS_BY_POST = [/\/compare$/, /^\/mcp$/]
/** Path segments that say where a route lives, not what it writes. */
const PLACES = new Set(['api', 'v1', 'v2', 'private', 'public', 'registry', 'homeport', 'relationships'])
/** Path parameters that name an organization, by the routers' own names. */
const ORGANIZATION_PARAMS = ['org', 'organization']
/** Resources addressed by an id of their own, and the index that finds their organization by it. */
const BY_ID = [
  [/^\/api\/v2\/teams\/([^/]+)/, TEAM_ID],
  [/^\/api\/v2\/authentication-tokens\/([^/]+)/, TOKEN_ID],
  [/^\/api\/v2\/oauth-clients\/([^/]+)/, VCS_CONNECTION_ID],
  [/^\/api\/v2\/oauth-tokens\/([^/]+)/, VCS_TOKEN_ID]
] as const

/** What a route says of its own write where the request alone cannot (an upload link knows its version and organization). */
export interface AuditSubject {
  organizationId: string
  id: string
}

/** Called by such a route once its write is done. */
export function describeWrite(ctx: Context, subject: AuditSubject): void {
  ;(ctx.state as { auditSubject?: AuditSubject }).auditSubject = subject
}

/**
 * In front of every route, so that no write escapes it: every request that writes (POST, PUT,
 * PATCH, DELETE) and succeeds is recorded in the audit trail, whichever face it came through (the
 * HCP API, the registry protocols' uploads, the GUI, terraform login, webhooks), with the caller
 * `identify` established, the route it matched, the organization it belongs to, and the client's
 * address. A failed write wrote nothing, so it is not recorded; a trail that cannot be written is
 * logged, and never turns a write that succeeded into an error.
 */
export function recordWrites(audit: AuditTrailService, store: Store) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!WRITES.has(ctx.method)) {
      await next()
      return
    }
    // Found before the write: a deleted team no longer leads to its organization.
    const addressed = await organizationById(ctx.path, store)
    await next()
    if (ctx.status >= 400) return
    const template = typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : undefined
    if (!template || READS_BY_POST.some((pattern) => pattern.test(template))) return
    try {
      const caller = identifiedCaller(ctx)
      const subject = (ctx.state as { auditSubject?: AuditSubject }).auditSubject
      const org = subject ? await store.organizations.get(subject.organizationId) : (addressed ?? (await organizationOf(ctx, store, caller?.kind === 'site-admin' ? undefined : caller?.organizationId)))
      const { type, action } = describeRoute(template, ctx.method)
      const params = Object.entries(paramsOf(ctx))
        .filter(([name]) => !ORGANIZATION_PARAMS.includes(name))
        .map(([, value]) => String(value))
      const created = createdLabel(ctx.body)
      // Without a token the path itself is the credential (an upload link, a webhook's secret): it is never recorded.
      const secret = !caller
      const id = subject?.id ?? (secret ? type : [...(org ? [] : organizationParams(ctx)), ...params, ...(typeof created === 'string' && !params.includes(created) ? [created] : [])].join('/') || type)
      await audit.record({
        organizationId: org?.id ?? null,
        actor: auditActor(caller, org),
        action,
        resource: { type, id },
        request: { id: randomUUID(), method: ctx.method, path: secret ? template : ctx.path, ip: ctx.ip, status: ctx.status }
      })
    } catch (error) {
      // The route's template, not its path: a link's path is a credential, and none goes to the log.
      console.error(`homeport: the audit trail could not record ${ctx.method} ${template}: ${(error as Error).message}`)
    }
  }
}

/** The resource kind and HCP's action a route template names: `POST …/registry-modules/…/versions` is `registry-modules/versions`, create. */
export function describeRoute(template: string, method: string): { type: string; action: string } {
  let literals = template.split('/').filter((segment) => segment !== '' && !segment.startsWith(':') && !segment.startsWith('{') && !PLACES.has(segment))
  let action = ({ POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'destroy' } as Record<string, string>)[method] ?? method.toLowerCase()
  const at = literals.indexOf('actions')
  if (at !== -1 && literals[at + 1]) {
    action = literals[at + 1]!
    literals = [...literals.slice(0, at), ...literals.slice(at + 2)]
  }
  // Below an organization, the organization is said by the event's scope.
  if (literals[0] === 'organizations' && literals.length > 1) literals = literals.slice(1)
  return { type: literals.join('/') || 'root', action }
}

/** What a write's answer names (`network/aws`, `1.0.0`, a team's name), else its id: how a person finds the resource again. */
function createdLabel(body: unknown): string | undefined {
  const data = (body as { data?: { id?: unknown; attributes?: Record<string, unknown> } } | undefined)?.data
  const named = ['name', 'provider', 'version'].flatMap((key) => (typeof data?.attributes?.[key] === 'string' ? [data.attributes[key]] : []))
  if (named.length > 0) return named.join('/')
  return typeof data?.id === 'string' ? data.id : undefined
}

async function organizationById(path: string, store: Store): Promise<OrganizationRecord | undefined> {
  for (const [pattern, index] of BY_ID) {
    const id = pattern.exec(path)?.[1]
    if (id) return store.organizations.findBy(index, decodeURIComponent(id)).catch(() => undefined)
  }
  return undefined
}

/** The matched route's path parameters, decoded by the router. */
function paramsOf(ctx: Context): Record<string, string> {
  return (ctx.params ?? {}) as Record<string, string>
}

function organizationParams(ctx: Context): string[] {
  const params = paramsOf(ctx)
  return ORGANIZATION_PARAMS.flatMap((name) => (typeof params[name] === 'string' ? [params[name]] : []))
}

/**
 * The organization a write belongs to: a team's or an organization token's own; else the one its
 * path names; else the one its answer says it belongs to (`relationships.organization`), or the
 * organization it made. None: the write is the installation's (a mirror, an import, a setting).
 */
async function organizationOf(ctx: Context, store: Store, callerOrganizationId: string | undefined): Promise<OrganizationRecord | undefined> {
  if (callerOrganizationId) return store.organizations.get(callerOrganizationId)
  const body = ctx.body as { data?: { id?: unknown; type?: unknown; relationships?: { organization?: { data?: { id?: unknown } } } } } | undefined
  const names = [
    ...organizationParams(ctx),
    body?.data?.relationships?.organization?.data?.id,
    body?.data?.type === 'organizations' ? body.data.id : undefined
  ]
  for (const name of names) {
    if (typeof name !== 'string') continue
    const org = await store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(name))
    if (org) return org
  }
  return undefined
}
