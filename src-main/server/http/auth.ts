import type { Context, Next } from 'koa'
import type { Authenticator, Caller } from '../domain/access.js'
import { HttpError } from './errors.js'

const BEARER = /^Bearer\s+(\S+)\s*$/i

/** Requires `Authorization: Bearer <token>` and puts the caller it names on `ctx.state.caller`. */
export function requireBearer(authenticator: Authenticator) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const header = ctx.get('authorization')
    const token = BEARER.exec(header)?.[1]
    if (!token) {
      throw new HttpError(401, 'unauthorized', 'This endpoint needs an API token: send "Authorization: Bearer <token>".', undefined, {
        'WWW-Authenticate': 'Bearer'
      })
    }
    const caller = await authenticator.authenticate(token)
    if (!caller) {
      throw new HttpError(401, 'unauthorized', 'The API token is not valid: it is unknown, or was replaced or deleted.', undefined, {
        'WWW-Authenticate': 'Bearer error="invalid_token"'
      })
    }
    ctx.state.caller = caller
    await next()
  }
}

/** The caller that requireBearer established. */
export function callerOf(ctx: Context): Caller {
  const caller = (ctx.state as { caller?: Caller }).caller
  if (!caller) throw new Error('route is missing requireBearer')
  return caller
}
