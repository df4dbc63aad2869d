import type { Context, Next } from 'koa'
import type { AuditTrailService } from '../domain/organizations/audit-trail.js'
import { originOf } from './auth.js'
import { HttpError } from './errors.js'
import { Lru } from '../../shared/lru.js'

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
/**
 * A write with no valid token is recorded once a minute for each address and route: anyone may send
 * them, as fast as the rate limit lets an address, and the trail is kept for the owners to read, not
 * to be filled. The count of those passed over is not kept; the first of each minute stands for them.
 */
const ANONYMOUS_EVERY_MS = 60_000
const ANONYMOUS_KEPT = 4096
/** Routes that take a POST and write nothing: what they answer is computed, not kept (MCP's tools only read). */
const READS_BY_POST = [/\/compare\/?$/, /^\/mcp$/]

/**
 * In front of every route, after identify: the one refusal the domain never sees. The services
 * record their own changes, and the refusals they decide, where they are made (with the request as
 * the caller's origin: auth.ts, domain/organizations/audit-trail.ts), so nothing here reads a URL to
 * work out what a write was. What is left is a write (POST, PUT, PATCH, DELETE) refused for want of
 * a valid token (401), recorded in the installation's trail, named by the route's template, never
 * its path (an upload link's path is a credential).
 */
export function recordRefusedWrites(audit: AuditTrailService, clock: () => number = Date.now) {
  /** When each address's refused writes to each route were last recorded. */
  const recorded = new Lru<string, number>(ANONYMOUS_KEPT)
  const refused = (ctx: Context) => refusedForToken(ctx, audit, recorded, clock())
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next()
    } catch (error) {
      if (error instanceof HttpError && error.status === 401) await refused(ctx)
      throw error
    }
    if (ctx.status === 401) await refused(ctx)
  }
}

async function refusedForToken(ctx: Context, audit: AuditTrailService, recorded: Lru<string, number>, now: number): Promise<void> {
  // The route the router matched for this method (the first, before any catch-all); a layer refusing before it ran names itself in _matchedRoute.
  const matched = (ctx as { matched?: Array<{ methods: string[]; path: unknown }> }).matched ?? []
  const route = matched.find((layer) => layer.methods.includes(ctx.method))?.path
  const template = typeof route === 'string' ? route : undefined
  if (!WRITES.has(ctx.method) || !template || READS_BY_POST.some((pattern) => pattern.test(template))) return
  const name = `${ctx.method} ${template}`
  const key = `${ctx.ip} ${name}`
  const last = recorded.get(key)
  if (last !== undefined && now - last < ANONYMOUS_EVERY_MS) return
  recorded.set(key, now)
  await audit.refusal({ author: { kind: 'anonymous', origin: originOf(ctx) }, permission: 'authenticate', org: undefined, action: 'write', resource: { type: 'request', id: name, name } })
}
