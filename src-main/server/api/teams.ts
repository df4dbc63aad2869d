import Router from '@koa/router'
import type { Context } from 'koa'
import type { TeamRef } from '../domain/teams.js'
import type { Services } from '../services.js'
import { isOwner } from '../domain/access.js'
import { callerOf } from '../http/auth.js'
import { readResource, sendDocument } from '../http/jsonapi.js'
import { pageRequest, paginate } from '../http/pagination.js'
import { organizationPath } from './organization-resources.js'
import type { BaseUrl } from './base-url.js'

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

  router.delete('/teams/:id', async (ctx) => {
    await services.teams.delete(callerOf(ctx), ctx.params.id!)
    ctx.status = 204
  })

  router.post('/teams/:id/authentication-token', async (ctx) => {
    const description = ctx.request.body && Object.keys(ctx.request.body).length > 0
      ? readResource(ctx, 'authentication-tokens').attributes.nullableString('description') ?? null
      : null
    const { token, record } = await services.teams.createToken(callerOf(ctx), ctx.params.id!, description)
    sendDocument(ctx, 201, {
      data: {
        id: record.id,
        type: 'authentication-tokens',
        attributes: {
          'created-at': record.createdAt,
          'last-used-at': null,
          description: record.description,
          // Shown this once; only its hash is kept.
          token,
          'expired-at': null
        },
        relationships: { team: { data: { id: ctx.params.id, type: 'teams' } } }
      }
    })
  })

  router.delete('/teams/:id/authentication-token', async (ctx) => {
    await services.teams.deleteToken(callerOf(ctx), ctx.params.id!)
    ctx.status = 204
  })
}

function teamResource(ctx: Context, { org, team }: TeamRef) {
  const owner = isOwner(callerOf(ctx), org)
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
        'can-update-organization-access': false,
        'can-update-api-token': owner,
        'can-update-membership': false,
        'can-update-visibility': false
      }
    },
    relationships: {
      organization: { data: { id: org.name, type: 'organizations' }, links: { related: organizationPath(org.name) } },
      'authentication-token': {
        data: team.token ? { id: team.token.id, type: 'authentication-tokens' } : null,
        links: { related: `/api/v2/teams/${team.id}/authentication-token` }
      }
    },
    links: { self: `/api/v2/teams/${team.id}` }
  }
}
