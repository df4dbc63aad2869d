import Router from '@koa/router'
import type { Context, Middleware } from 'koa'
import type { Services } from '../../domain/services.js'
import { SignInError, type PendingSignIn } from '../../domain/people/openid-connect.js'
import { identifiedCaller, originOf } from '../../http/auth.js'
import type { BaseUrl } from '../../http/base-url.js'
import { seal, unseal } from '../../http/sealed.js'
import { clearCookie, SESSION_COOKIE, sessionMayAct, sessionSecret, setCookie } from '../../http/session-cookie.js'
import type { SignInOptions } from '../../../shared/sign-in.js'

/** Where the identity provider sends the browser back: the redirect URI to register there. */
export const CALLBACK_PATH = '/auth/oidc/callback'
/** Where a sign-in starts (`?return_to=<a path of Homeport's>`). */
export const SIGN_IN_PATH = '/auth/oidc/login'
/** The cookie that carries a sign-in's state, nonce and PKCE verifier from its start to its callback, sealed. */
const SIGN_IN_COOKIE = 'homeport-sign-in'
const SIGN_IN_PURPOSE = 'oidc sign-in'
/** How long a person has at the identity provider's page before the sign-in must start again. */
const SIGN_IN_TTL_MS = 10 * 60 * 1000

interface SealedSignIn extends PendingSignIn {
  /** The GUI's page to come back to (a path of this server's). */
  returnTo: string
  /** The redirect URI the start sent, which the code's exchange must repeat (whichever replica takes the callback). */
  redirectUri: string
}

/**
 * Single sign-on's browser side (OpenID Connect, domain/people/openid-connect.ts): the sign-in options
 * the GUI offers, the start (to the identity provider, with the sign-in's checks sealed in a cookie of
 * its own), the callback (the person made or brought up to date, a session cookie set), and sign-out.
 * A sign-in that fails is a page that says why, with no session: never a 500.
 */
export function signInRouter(services: Services, baseUrl: BaseUrl, rateLimit: Middleware, clock: () => number = Date.now): Router {
  const router = new Router()
  const provider = services.openIdConnect
  const secure = (ctx: Context) => ctx.secure || baseUrl(ctx).startsWith('https:')
  const signingKey = () => services.store.installation().signingKey

  router.get('/auth/sign-in-options', (ctx) => {
    const options: SignInOptions = { singleSignOn: provider ? { name: provider.name, url: SIGN_IN_PATH } : null }
    ctx.set('Cache-Control', 'no-store')
    ctx.body = options
  })

  router.get(SIGN_IN_PATH, rateLimit, async (ctx) => {
    if (!provider) return problem(ctx, 404, 'Single sign-on is not set up here', 'This Homeport has no identity provider: sign in with an API token.')
    try {
      const redirectUri = `${baseUrl(ctx)}${CALLBACK_PATH}`
      const { url, pending } = await provider.begin(redirectUri)
      const sealed: SealedSignIn = { ...pending, returnTo: ownPath(ctx.query.return_to), redirectUri }
      const expires = clock() + SIGN_IN_TTL_MS
      setCookie(ctx, SIGN_IN_COOKIE, seal(signingKey(), SIGN_IN_PURPOSE, sealed, expires), { path: '/auth/oidc', expires: new Date(expires), secure: secure(ctx) })
      ctx.set('Cache-Control', 'no-store')
      ctx.status = 303
      ctx.redirect(url)
    } catch (error) {
      if (!(error instanceof SignInError)) throw error
      problem(ctx, 502, 'The identity provider did not answer', error.message)
    }
  })

  router.get(CALLBACK_PATH, rateLimit, async (ctx) => {
    if (!provider) return problem(ctx, 404, 'Single sign-on is not set up here', 'This Homeport has no identity provider: sign in with an API token.')
    const cookie = ctx.cookies.get(SIGN_IN_COOKIE)
    // One callback per start: whatever happens next, its checks are gone.
    clearCookie(ctx, SIGN_IN_COOKIE, '/auth/oidc')
    const pending = cookie ? sealedSignIn(unseal(signingKey(), SIGN_IN_PURPOSE, cookie, clock())) : undefined
    if (!pending) return problem(ctx, 400, 'This sign-in cannot be finished', 'It was not started in this browser, was finished already, or took longer than 10 minutes. Start again from the sign-in page.')
    const refused = typeof ctx.query.error === 'string' ? ctx.query.error : undefined
    if (refused) {
      const description = typeof ctx.query.error_description === 'string' ? `: ${ctx.query.error_description}` : ''
      return problem(ctx, 400, 'The identity provider did not sign you in', `It answered "${refused}"${description}.`)
    }
    try {
      // The provider's answer (its query), at the address the start named.
      const callback = new URL(pending.redirectUri)
      callback.search = ctx.querystring
      const identity = await provider.finish(callback, pending)
      const { session, expiresAt } = await services.people.signIn(identity, originOf(ctx))
      setCookie(ctx, SESSION_COOKIE, session, { path: '/', expires: new Date(expiresAt), secure: secure(ctx) })
      ctx.set('Cache-Control', 'no-store')
      ctx.status = 303
      ctx.redirect(pending.returnTo)
    } catch (error) {
      if (!(error instanceof SignInError)) throw error
      problem(ctx, error.provider ? 502 : 400, error.provider ? 'The identity provider did not answer' : 'The sign-in was refused', error.message)
    }
  })

  router.post('/auth/sign-out', rateLimit, async (ctx) => {
    const secret = sessionSecret(ctx)
    const caller = identifiedCaller(ctx)
    // Only the page itself signs its person out: another site cannot end a session either.
    if (secret && caller && sessionMayAct(ctx)) await services.people.signOut(caller, secret)
    clearCookie(ctx, SESSION_COOKIE, '/')
    ctx.status = 204
  })
  return router
}

/** A sign-in's checks as `seal` kept them; anything else (one sealed by an older Homeport, say) is none. */
function sealedSignIn(value: unknown): SealedSignIn | undefined {
  const fields = ['state', 'nonce', 'verifier', 'returnTo', 'redirectUri'] as const
  const candidate = value as Partial<Record<(typeof fields)[number], unknown>> | undefined
  return candidate && fields.every((field) => typeof candidate[field] === 'string') ? (candidate as SealedSignIn) : undefined
}

/** Where to come back to after a sign-in: a path of this server's (`/…`, never `//host` or a URL), else the start page. */
function ownPath(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) && value.length <= 2000 ? value : '/'
}

/** A page that says why a sign-in went wrong, with the way back to the sign-in page; the server's log says it too, for whoever runs it. */
function problem(ctx: Context, status: number, title: string, detail: string): void {
  console.warn(`homeport: a sign-in failed (${status}): ${title}. ${detail}`)
  ctx.status = status
  ctx.set('Cache-Control', 'no-store')
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
  ctx.type = 'text/html; charset=utf-8'
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)} · Homeport</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328;background:#fff}@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}a{color:#4493f8}}</style></head>
<body><main><h1>${escape(title)}</h1><p>${escape(detail)}</p><p><a href="/">Back to sign-in</a></p></main></body></html>`
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)
}
