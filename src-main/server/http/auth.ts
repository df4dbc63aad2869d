import { randomUUID } from 'node:crypto'
import type { Context, Next } from 'koa'
import type { Authenticator, Caller } from '../domain/core/access.js'
import type { Origin } from '../domain/core/origin.js'
import { HttpError } from './errors.js'
import { sessionMayAct, sessionSecret } from './session-cookie.js'

const BEARER = /^Bearer\s+(\S+)\s*$/i

/** The token of an `Authorization: Bearer <token>` header (spaces around it do not matter). */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header)?.[1] : undefined
}

interface Identity {
  /** Whether the request presented a bearer token (or a GUI session cookie) at all. */
  presented: boolean
  /** Who that token belongs to, with the request as its origin; undefined when it is unknown (or there was none). */
  caller?: Caller
  /** The request, as the audit trail records where a change came from. */
  origin: Origin
}

/**
 * Establishes who is asking, once, before anything is decided per client (the rate limit keys on
 * it): the caller a bearer token names, if any, else the person whose GUI session the cookie holds
 * (for a change, only when the page itself sent it: session-cookie.ts), carrying this request as its
 * origin (whatever it changes, the domain records as coming from here). A bad or missing token is
 * not refused here; requireBearer does that where a token is needed.
 */
export function identify(authenticator: Authenticator) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const token = bearerToken(ctx.get('authorization') || undefined)
    const session = token === undefined && sessionMayAct(ctx) ? sessionSecret(ctx) : undefined
    const origin: Origin = { requestId: randomUUID(), ip: ctx.ip }
    const caller = token !== undefined ? await authenticator.authenticate(token) : session !== undefined ? await authenticator.authenticateSession(session) : undefined
    const identity: Identity = { presented: token !== undefined || session !== undefined, caller: caller && { ...caller, origin }, origin }
    ;(ctx.state as { identity?: Identity }).identity = identity
    await next()
  }
}

/** The request as the audit trail records it: for the services a capability link reaches (an upload, a webhook, a login code), which have no caller. */
export function originOf(ctx: Context): Origin | undefined {
  return (ctx.state as { identity?: Identity }).identity?.origin
}

/** The caller identify established, or undefined for an anonymous or unknown one. */
export function identifiedCaller(ctx: Context): Caller | undefined {
  return (ctx.state as { identity?: Identity }).identity?.caller
}

/** Whether the request presented a bearer token at all (a known one or not). */
export function presentedToken(ctx: Context): boolean {
  return (ctx.state as { identity?: Identity }).identity?.presented ?? false
}

/** Requires a valid `Authorization: Bearer <token>` (see identify). */
export async function requireBearer(ctx: Context, next: Next): Promise<void> {
  const identity = (ctx.state as { identity?: Identity }).identity
  if (!identity) throw new Error('the app is missing identify')
  if (!identity.presented) {
    throw new HttpError(401, 'unauthorized', 'This endpoint needs an API token: send "Authorization: Bearer <token>".', undefined, {
      'WWW-Authenticate': 'Bearer'
    })
  }
  if (!identity.caller) {
    throw new HttpError(401, 'unauthorized', 'The API token is not valid: it is unknown, expired, or was replaced or deleted.', undefined, {
      'WWW-Authenticate': 'Bearer error="invalid_token"'
    })
  }
  await next()
}

/** The caller that requireBearer admitted. */
export function callerOf(ctx: Context): Caller {
  const caller = identifiedCaller(ctx)
  if (!caller) throw new Error('route is missing requireBearer')
  return caller
}
