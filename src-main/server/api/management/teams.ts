import Router from '@koa/router'
import type { Context } from 'koa'
import type { TeamRef } from '../../domain/organizations/teams.js'
import type { Services } from '../../domain/services.js'
import { authorize } from '../../domain/core/authorize.js'
import { callerOf } from '../../http/auth.js'
import { readResource, sendDocument } from '../../http/jsonapi.js'
import { HttpError } from '../../http/errors.js'
import { queryString } from '../../http/query.js'
import { ORGANIZATION_TOKEN_TYPES, type OrganizationTokenType } from '../../domain/organizations/organization-tokens.js'
import { pageRequest, paginate } from '../../http/pagination.js'
import { organizationPath } from './serializers/organization-resources.js'
import type { BaseUrl } from '../../http/base-url.js'
import type { Resource } from '../../../shared/wire/jsonapi.js'
import type { TeamAttributes } from '../../../shared/wire/organizations.js'
import { tokenInput, tokenResource } from './serializers/token-resources.js'

/** A subset of HCP Terraform's teams API, so that tokens with narrower rights exist. */
export function teamRoutes(router: Router, services: Services, baseUrl: BaseUrl): void {
  router.get('/organizations/:org/teams', async (ctx) => {
    const teams = await services.teams.list(callerOf(ctx), ctx.params.org!)
    const { items, meta, links } = paginate(ctx, baseUrl(ctx), teams, pageRequest(ctx)!)
    sendDocument(ctx, 200, { data: items.map((ref) => teamResource(ctx, ref)), links, meta })
  })

  router.post('/organizations/:org/teams', async (ctx) => {
    const attributes = readResource(ctx, 'teams').attributes
    const access = attributes.object('organization-access')
    const ref = await services.teams.create(callerOf(ctx), ctx.params.org!, {
      name: attributes.string('name'),
      manageModules: access?.boolean('manage-modules')
    })
    sendDocument(ctx, 201, { data: teamResource(ctx, ref) })
  })

  router.get('/teams/:id', async (ctx) => {
    sendDocument(ctx, 200, { data: teamResource(ctx, await services.teams.read(callerOf(ctx), ctx.params.id!)) })
  })

  router.patch('/teams/:id', async (ctx) => {
    const access = readResource(ctx, 'teams').attributes.object('organization-access')
    sendDocument(ctx, 200, { data: teamResource(ctx, await services.teams.update(callerOf(ctx), ctx.params.id!, { manageModules: access?.boolean('manage-modules') })) })
  })

  router.delete('/teams/:id', async (ctx) => {
    await services.teams.delete(callerOf(ctx), ctx.params.id!)
    ctx.status = 204
  })

  router.post('/teams/:id/authentication-token', async (ctx) => {
    const { token, record } = await services.teams.createToken(callerOf(ctx), ctx.params.id!, tokenInput(ctx))
    sendDocument(ctx, 201, { data: tokenResource(record, { team: { data: { id: ctx.params.id, type: 'teams' } } }, token) })
  })
  // HCP's multiple team tokens: one more, with a description, leaving the others working.
  router.post('/teams/:id/authentication-tokens', async (ctx) => {
    const { token, record } = await services.teams.addToken(callerOf(ctx), ctx.params.id!, tokenInput(ctx))
    sendDocument(ctx, 201, { data: tokenResource(record, { team: { data: { id: ctx.params.id, type: 'teams' } } }, token) })
  })
  router.get('/teams/:id/authentication-token', async (ctx) => {
    const record = await services.teams.readToken(callerOf(ctx), ctx.params.id!)
    sendDocument(ctx, 200, { data: tokenResource(record, { team: { data: { id: ctx.params.id, type: 'teams' } } }) })
  })
  router.delete('/teams/:id/authentication-token', async (ctx) => {
    await services.teams.deleteToken(callerOf(ctx), ctx.params.id!)
    ctx.status = 204
  })

  // The organization's tokens, by HCP's `?token=` type (the organization token unless told): generate (replacing the previous one of that type), show, delete.
  const orgToken = '/organizations/:org/authentication-token'
  router.post(orgToken, async (ctx) => {
    const { org, token, record } = await services.organizationTokens.generate(callerOf(ctx), ctx.params.org!, tokenInput(ctx).expiredAt, tokenType(ctx))
    sendDocument(ctx, 201, { data: tokenResource(record, organizationRelationship(org.name), token) })
  })
  router.get(orgToken, async (ctx) => {
    const { org, record } = await services.organizationTokens.read(callerOf(ctx), ctx.params.org!, tokenType(ctx))
    sendDocument(ctx, 200, { data: tokenResource(record, organizationRelationship(org.name)) })
  })
  router.delete(orgToken, async (ctx) => {
    await services.organizationTokens.delete(callerOf(ctx), ctx.params.org!, tokenType(ctx))
    ctx.status = 204
  })
}

/** HCP's `?token=` on the organization token endpoint: `organization` (the default) or `audit-trails`. */
function tokenType(ctx: Context): OrganizationTokenType {
  const type = queryString(ctx, 'token') ?? 'organization'
  if (!(ORGANIZATION_TOKEN_TYPES as readonly string[]).includes(type)) {
    throw new HttpError(422, 'invalid attribute', `"${type}" is not an organization token type: ${ORGANIZATION_TOKEN_TYPES.join(' or ')}.`, { parameter: 'token' })
  }
  return type as OrganizationTokenType
}

function organizationRelationship(name: string) {
  return { organization: { data: { id: name, type: 'organizations' }, links: { related: organizationPath(name) } } }
}

function teamResource(ctx: Context, { org, team }: TeamRef): Resource<TeamAttributes, 'teams'> {
  const owner = authorize(callerOf(ctx), 'manage teams', org)
  return {
    id: team.id,
    type: 'teams',
    attributes: {
      name: team.name,
      'created-at': team.createdAt,
      visibility: 'organization',
      'organization-access': { 'manage-modules': team.owners || team.manageModules },
      permissions: {
        'can-destroy': owner && !team.owners,
        'can-update-organization-access': owner && !team.owners,
        'can-update-api-token': owner,
        'can-update-membership': false,
        'can-update-visibility': false,
        'can-approve-terraform-login': authorize(callerOf(ctx), 'approve terraform login', org, { teamId: team.id })
      }
    },
    relationships: {
      ...organizationRelationship(org.name),
      'authentication-token': {
        data: team.token ? { id: team.token.id, type: 'authentication-tokens' } : null,
        links: { related: `/api/v2/teams/${team.id}/authentication-token` }
      }
    },
    links: { self: `/api/v2/teams/${team.id}` }
  }
}
