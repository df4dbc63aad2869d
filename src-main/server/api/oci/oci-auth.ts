import type { Context } from 'koa'
import type { Authenticator, Caller } from '../../domain/core/access.js'
import type { BaseUrl } from '../../http/base-url.js'
import { identifiedCaller, presentedToken } from '../../http/auth.js'
import { ociError } from './oci-errors.js'

export const OCI_PREFIX = '/v2'
export const TOKEN_PATH = `${OCI_PREFIX}/token`

/** How long a client may use what the token endpoint gave before asking again, for a token that does not expire sooner. */
const TOKEN_LIFETIME_S = 3600
/** The most of a token request's form body read. */
const MAX_FORM_BYTES = 16 * 1024

/**
 * The challenge OCI clients expect before they send credentials (distribution-spec's token flow,
 * which oras-go, skopeo and docker all follow): `Bearer realm=<token endpoint>,service=<host>`,
 * with the repository's pull scope when a repository was asked for.
 */
export function challenge(ctx: Context, baseUrl: BaseUrl, scope?: string, invalid = false): string {
  const parts = [`realm="${baseUrl(ctx)}${TOKEN_PATH}"`, `service="${ctx.host}"`]
  if (scope) parts.push(`scope="${scope}"`)
  if (invalid) parts.push('error="invalid_token"')
  return `Bearer ${parts.join(',')}`
}

/**
 * The caller of a distribution request, or a 401 with the challenge: a client without a token, or
 * whose token is unknown or expired, is sent to the token endpoint.
 */
export function ociCaller(ctx: Context, baseUrl: BaseUrl, scope?: string): Caller {
  const caller = identifiedCaller(ctx)
  if (caller) return caller
  const invalid = presentedToken(ctx)
  throw ociError(
    401,
    'UNAUTHORIZED',
    invalid ? 'The token is not valid: it is unknown, expired, or was replaced or deleted.' : 'Homeport serves OCI artifacts to its token holders: log in with any user name and a Homeport API token as the password.',
    { 'WWW-Authenticate': challenge(ctx, baseUrl, scope, invalid) }
  )
}

/**
 * The token endpoint the challenge names. It takes a Homeport API token as the password of Basic
 * credentials (what `docker login`, credential helpers and OpenTofu's `oci_credentials` username and
 * password send), or as an OAuth2 refresh token or password (POST, as oras-go sends OpenTofu's
 * `refresh_token`), and gives the same token back as the bearer token: it is what every other face
 * of Homeport takes, with the same rights, so a client holds no more than it was given. Nothing is
 * minted and nothing is stored.
 */
export function tokenEndpoint(authenticator: Authenticator, clock: () => number = Date.now) {
  return async (ctx: Context): Promise<void> => {
    const token = ctx.method === 'POST' ? await formToken(ctx) : basicPassword(ctx.get('authorization'))
    const caller = token ? await authenticator.authenticate(token) : undefined
    if (!token || !caller) {
      throw ociError(401, 'UNAUTHORIZED', token ? 'The token is not valid: it is unknown, expired, or was replaced or deleted.' : 'Give a Homeport API token as the password (any user name).', {
        'WWW-Authenticate': 'Basic realm="Homeport", charset="UTF-8"'
      })
    }
    const expiresIn = 'expiresAt' in caller && caller.expiresAt !== undefined ? Math.max(1, Math.floor((caller.expiresAt - clock()) / 1000)) : TOKEN_LIFETIME_S
    ctx.set('Cache-Control', 'no-store')
    ctx.body = { token, access_token: token, expires_in: Math.min(expiresIn, TOKEN_LIFETIME_S), issued_at: new Date(clock()).toISOString() }
  }
}

/** The password of `Authorization: Basic …`, which is where clients put the Homeport token. */
function basicPassword(header: string): string | undefined {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)?.[1]
  if (!encoded) return undefined
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : undefined
}

/** OAuth2's form (RFC 6749): the token as the refresh token, or as the password of grant_type=password. */
async function formToken(ctx: Context): Promise<string | undefined> {
  if (!ctx.is('application/x-www-form-urlencoded')) return basicPassword(ctx.get('authorization'))
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_FORM_BYTES) throw ociError(400, 'UNSUPPORTED', `A token request is at most ${MAX_FORM_BYTES} bytes.`)
    chunks.push(chunk)
  }
  const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
  const grant = form.get('grant_type')
  if (grant === 'refresh_token') return form.get('refresh_token') ?? undefined
  if (grant === 'password') return form.get('password') ?? undefined
  throw ociError(400, 'UNSUPPORTED', 'The token endpoint takes grant_type=refresh_token or grant_type=password, with a Homeport API token.')
}
