import Router from '@koa/router'
import { bodyParser } from '../../http/body-parser.js'
import type { Context, Middleware } from 'koa'
import { OAuthError, type TerraformLogin } from '../../domain/login/terraform-login.js'
import { isStorableText } from '../../domain/core/stored-text.js'
import type { CliTokenRecord, OrganizationRecord } from '../../store/records.js'
import type { Services } from '../../domain/services.js'
import { callerOf, identifiedCaller, originOf } from '../../http/auth.js'
import { readResource, sendDocument } from '../../http/jsonapi.js'
import { pathParams } from '../../http/query.js'
import { organizationPath } from './serializers/organization-resources.js'
import { tokenResource } from './serializers/token-resources.js'
import type { Account } from '../../domain/core/access.js'
import type { Resource } from '../../../shared/wire/jsonapi.js'
import type { AccountAttributes, CliTokenAttributes, OAuthAuthorizationAttributes } from '../../../shared/wire/organizations.js'

/** Where `login.v1` sends Terraform: the authorization page (the GUI's) and the token endpoint. */
export const AUTHORIZE_PATH = '/oauth/authorize'
export const TOKEN_PATH = '/oauth/token'

/** The `login.v1` discovery object, with URLs relative to the discovery document or absolute under `base`. */
export function loginService(base = '') {
  return { client: 'terraform-cli', grant_types: ['authz_code'], authz: `${base}${AUTHORIZE_PATH}`, token: `${base}${TOKEN_PATH}`, ports: [10000, 10010] }
}

/**
 * `terraform login`'s two endpoints outside the API: the authorization page, which is the GUI's
 * (the query goes along, in the GUI's route), and the token endpoint, which takes a form (RFC 6749)
 * and answers OAuth's JSON. HCP's tokens page (where Terraform's fallback prompt points) leads to
 * the GUI's page that explains tokens. With single sign-on (`signInPath`), a browser with no session
 * goes through the identity provider first, and comes back to the page.
 */
export function loginRouter(login: TerraformLogin, rateLimit: Middleware, signInPath?: string): Router {
  const router = new Router()
  router.get(AUTHORIZE_PATH, (ctx) => {
    const page = `/authorize?${ctx.querystring}`
    ctx.redirect(signInPath && !identifiedCaller(ctx) ? `${signInPath}?${new URLSearchParams({ return_to: page })}` : page)
  })
  router.get('/app/settings/tokens', (ctx) => {
    ctx.redirect('/terraform')
  })
  router.post(TOKEN_PATH, rateLimit, bodyParser({ enableTypes: ['form'], formLimit: '16kb' }), async (ctx) => {
    ctx.set('Cache-Control', 'no-store')
    try {
      ctx.body = { access_token: await login.exchange(singleValues(ctx.request.body), originOf(ctx)), token_type: 'bearer' }
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error
      ctx.status = 400
      ctx.body = { error: error.error, error_description: error.message }
    }
  })
  return router
}

/** Homeport's own JSON:API side of login: approving a login in the GUI, and listing and revoking the tokens it made; HCP's account details. */
export function loginRoutes(router: Router, services: Services): void {
  const login = services.terraformLogin
  router.post('/oauth-authorizations', async (ctx) => {
    const a = readResource(ctx, 'oauth-authorizations').attributes
    const redirect = await login.authorize(callerOf(ctx), {
      clientId: a.string('client-id') ?? '',
      redirectUri: a.string('redirect-uri') ?? '',
      codeChallenge: a.string('code-challenge') ?? '',
      codeChallengeMethod: a.string('code-challenge-method') ?? '',
      state: a.string('state') ?? '',
      organization: a.string('organization') ?? '',
      teamId: a.string('team-id') ?? '',
      expiredAt: a.nullableString('expired-at')
    })
    const authorization: Resource<OAuthAuthorizationAttributes> = { type: 'oauth-authorizations', id: 'approved', attributes: { 'redirect-url': redirect } }
    sendDocument(ctx, 201, { data: authorization })
  })
  router.get('/organizations/:org/authentication-tokens', async (ctx) => {
    const { org, tokens } = await login.list(callerOf(ctx), pathParams(ctx, 'org').org)
    sendDocument(ctx, 200, { data: tokens.map((token) => cliTokenResource(org, token)) })
  })
  // A token by id: a person's own (HCP's user tokens), else one terraform login obtained for a team.
  router.get('/authentication-tokens/:id', async (ctx) => {
    const { id } = pathParams(ctx, 'id')
    const own = await services.people.findToken(callerOf(ctx), id)
    if (own) return sendDocument(ctx, 200, { data: tokenResource(own.token, { user: { data: { id: own.user.id, type: 'users' } } }) })
    const { org, token } = await login.read(callerOf(ctx), id)
    sendDocument(ctx, 200, { data: cliTokenResource(org, token) })
  })
  router.delete('/authentication-tokens/:id', async (ctx) => {
    const { id } = pathParams(ctx, 'id')
    if (await services.people.findToken(callerOf(ctx), id)) await services.people.revokeToken(callerOf(ctx), id)
    else await login.revoke(callerOf(ctx), id)
    ctx.status = 204
  })
  router.get('/account/details', async (ctx) => {
    const caller = callerOf(ctx)
    accountDetails(ctx, caller.kind === 'user' ? await services.people.account(caller) : { ...(await login.account(caller)), email: '' })
  })
}

function accountDetails(ctx: Context, account: Account & { email: string }): void {
  const user: Resource<AccountAttributes, 'users'> = {
    id: account.id,
    type: 'users',
    attributes: {
      username: account.username,
      email: account.email,
      'is-service-account': account.serviceAccount,
      'is-site-admin': account.siteAdmin,
      'two-factor': { enabled: false, verified: false }
    }
  }
  sendDocument(ctx, 200, { data: user })
}

function cliTokenResource(org: OrganizationRecord, token: CliTokenRecord): Resource<CliTokenAttributes, 'authentication-tokens'> {
  const team = org.teams.find((candidate) => candidate.id === token.teamId)
  return {
    id: token.id,
    type: 'authentication-tokens',
    attributes: {
      'created-at': token.createdAt,
      description: token.description,
      'expired-at': token.expiredAt,
      'approved-by': token.approvedBy,
      'team-name': team?.name ?? null
    },
    relationships: {
      team: { data: { id: token.teamId, type: 'teams' }, links: { related: `/api/v2/teams/${token.teamId}` } },
      organization: { data: { id: org.name, type: 'organizations' }, links: { related: organizationPath(org.name) } }
    }
  }
}

/**
 * The token request's form, each field once: a field sent twice (`code=a&code=b`) arrives as an
 * array, which no OAuth field is, and is refused as RFC 6749 §3.2 says (parameters must not repeat).
 */
function singleValues(body: unknown): Record<string, string | undefined> {
  const form: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `The field ${name} is sent more than once.`)
    if (!isStorableText(value)) throw new OAuthError('invalid_request', `The field ${name} holds a NUL character or a lone UTF-16 surrogate.`)
    form[name] = value
  }
  return form
}
