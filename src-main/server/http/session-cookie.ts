import type { Context } from 'koa'

/** The GUI's session after a sign-in through the identity provider: its secret, HTTP-only, same-site. */
export const SESSION_COOKIE = 'homeport-session'

/** The secret the session cookie holds, if the request carries one. */
export function sessionSecret(ctx: Context): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined
}

/**
 * Sets a cookie as every cookie of Homeport's is set: HTTP-only (no script reads it), `SameSite=Lax` (not
 * sent with another site's requests, but with the identity provider's redirect back here), and `Secure`
 * where the browser reaches Homeport over HTTPS (`secure`: the base URL's scheme or the connection's).
 */
export function setCookie(ctx: Context, name: string, value: string, options: { path: string; expires: Date; secure: boolean }): void {
  // Koa refuses a Secure cookie on a connection it sees as plain: behind a TLS proxy, the base URL says what the browser sees.
  if (options.secure) ctx.cookies.secure = true
  ctx.cookies.set(name, value, { httpOnly: true, sameSite: 'lax', overwrite: true, ...options })
}

/** Removes a cookie set with `setCookie` at `path`. */
export function clearCookie(ctx: Context, name: string, path: string): void {
  ctx.cookies.set(name, '', { httpOnly: true, sameSite: 'lax', overwrite: true, path, expires: new Date(0) })
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Whether a request may act with the session cookie it carries: any read, and a change that the page
 * itself sent (its `Sec-Fetch-Site` is `same-origin`, or, from a browser that does not send it, its
 * `Origin` is this host). `SameSite=Lax` keeps other sites' forms from carrying the cookie at all;
 * this keeps out a sibling site's too.
 */
export function sessionMayAct(ctx: Context): boolean {
  if (SAFE_METHODS.has(ctx.method)) return true
  const site = ctx.get('sec-fetch-site')
  if (site) return site === 'same-origin'
  const origin = ctx.get('origin')
  if (!origin) return false
  try {
    return new URL(origin).host === ctx.host
  } catch {
    return false
  }
}
