import { randomUUID } from 'node:crypto'
import type { Context, Next } from 'koa'
import type { AuditTrailService } from '../domain/organizations/audit-trail.js'
import { runFrom } from '../domain/core/origin.js'
import { HttpError } from './errors.js'

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
/** Routes that take a POST and write nothing: what they answer is computed, not kept (MCP's tools only read). */
const READS_BY_POST = [/\/compare\/?$/, /^\/mcp$/]

/**
 * In front of every route. Each request runs as the origin of whatever the domain records in the
 * audit trail (its id and the client's address): the services record their own changes, and the
 * refusals they decide, where they are made (domain/organizations/audit-trail.ts), so this reads
 * no URL to work out what a write was. It records the one refusal the domain never sees: a write
 * (POST, PUT, PATCH, DELETE) refused for want of a valid token (401), in the installation's trail,
 * named by the route's template, never its path (an upload link's path is a credential).
 */
export function recordOrigins(audit: AuditTrailService) {
  return (ctx: Context, next: Next): Promise<void> =>
    runFrom({ requestId: randomUUID(), ip: ctx.ip }, async () => {
      try {
        await next()
      } catch (error) {
        if (error instanceof HttpError && error.status === 401) await refusedForToken(ctx, audit)
        throw error
      }
      if (ctx.status === 401) await refusedForToken(ctx, audit)
    })
}

async function refusedForToken(ctx: Context, audit: AuditTrailService): Promise<void> {
  // The route the router matched for this method (the first, before any catch-all); a layer refusing before it ran names itself in _matchedRoute.
  const matched = (ctx as { matched?: Array<{ methods: string[]; path: unknown }> }).matched ?? []
  const route = matched.find((layer) => layer.methods.includes(ctx.method))?.path
  const template = typeof route === 'string' ? route : undefined
  if (!WRITES.has(ctx.method) || !template || READS_BY_POST.some((pattern) => pattern.test(template))) return
  const name = `${ctx.method} ${template}`
  await audit.refusal({ author: { kind: 'anonymous' }, permission: 'authenticate', org: undefined, action: 'write', resource: { type: 'request', id: name, name } })
}
