import Router from '@koa/router'
import type { Context } from 'koa'
import type { ConnectionRef } from '../../domain/vcs/connections.js'
import { GIT_PROVIDER } from '../../domain/vcs/connections.js'
import type { Services } from '../../domain/services.js'
import { callerOf } from '../../http/auth.js'
import { readResource, sendDocument } from '../../http/jsonapi.js'
import { pathParams } from '../../http/query.js'
import { organizationPath } from './serializers/organization-resources.js'
import type { ListDocument, Resource } from '../../../shared/wire/jsonapi.js'
import type { OAuthClientAttributes, OAuthTokenAttributes, VcsRepositoriesMeta, VcsRepositoryAttributes } from '../../../shared/wire/vcs.js'

/**
 * VCS connections as a subset of HCP Terraform's OAuth clients and tokens API, with one
 * provider kind, `git`: a connection's `http-url` is a folder of repositories or a base git URL.
 * Each client has exactly one token; deleting either deletes the connection.
 */
export function vcsConnectionRoutes(router: Router, services: Services): void {
  const { vcsConnections } = services

  router.get('/organizations/:org/oauth-clients', async (ctx) => {
    const refs = await vcsConnections.list(callerOf(ctx), pathParams(ctx, 'org').org)
    sendDocument(ctx, 200, { data: refs.map(clientResource) })
  })
  router.post('/organizations/:org/oauth-clients', async (ctx) => {
    const attributes = readResource(ctx, 'oauth-clients').attributes
    const ref = await vcsConnections.create(callerOf(ctx), pathParams(ctx, 'org').org, {
      name: attributes.nullableString('name') ?? undefined,
      serviceProvider: attributes.string('service-provider'),
      httpUrl: attributes.string('http-url')
    })
    sendDocument(ctx, 201, { data: clientResource(ref) })
  })
  router.get('/organizations/:org/oauth-tokens', async (ctx) => {
    const refs = await vcsConnections.list(callerOf(ctx), pathParams(ctx, 'org').org)
    sendDocument(ctx, 200, { data: refs.map(tokenResource) })
  })
  router.get('/oauth-clients/:id', async (ctx) => {
    sendDocument(ctx, 200, { data: clientResource(await client(ctx)) })
  })
  router.delete('/oauth-clients/:id', async (ctx) => {
    await vcsConnections.delete(callerOf(ctx), await client(ctx))
    ctx.status = 204
  })
  router.get('/oauth-clients/:id/oauth-tokens', async (ctx) => {
    sendDocument(ctx, 200, { data: [tokenResource(await client(ctx))] })
  })
  // Homeport's own: the repositories in a folder connection, to pick from; `listable` is false for a remote base URL.
  router.get('/oauth-clients/:id/repositories', async (ctx) => {
    const repositories = await vcsConnections.repositories(callerOf(ctx), await client(ctx))
    const document: ListDocument<VcsRepositoryAttributes, VcsRepositoriesMeta, 'vcs-repositories'> = {
      data: (repositories ?? []).map((identifier) => ({ id: identifier, type: 'vcs-repositories', attributes: { identifier } })),
      meta: { listable: repositories !== undefined }
    }
    sendDocument(ctx, 200, document)
  })
  router.get('/oauth-tokens/:id', async (ctx) => {
    sendDocument(ctx, 200, { data: tokenResource(await token(ctx)) })
  })
  router.delete('/oauth-tokens/:id', async (ctx) => {
    await vcsConnections.delete(callerOf(ctx), await token(ctx))
    ctx.status = 204
  })

  function client(ctx: Context): Promise<ConnectionRef> {
    return vcsConnections.read(callerOf(ctx), pathParams(ctx, 'id').id)
  }
  function token(ctx: Context): Promise<ConnectionRef> {
    return vcsConnections.readByToken(callerOf(ctx), pathParams(ctx, 'id').id)
  }
}

function clientResource({ org, connection }: ConnectionRef): Resource<OAuthClientAttributes, 'oauth-clients'> {
  return {
    id: connection.id,
    type: 'oauth-clients',
    attributes: {
      name: connection.name,
      'created-at': connection.createdAt,
      'service-provider': GIT_PROVIDER,
      'service-provider-display-name': 'Git',
      'http-url': connection.baseUrl,
      'api-url': connection.baseUrl,
      'callback-url': null,
      'connect-path': null,
      key: null
    },
    relationships: {
      organization: { data: { id: org.name, type: 'organizations' }, links: { related: organizationPath(org.name) } },
      'oauth-tokens': { data: [{ id: connection.tokenId, type: 'oauth-tokens' }], links: { related: `/api/v2/oauth-clients/${connection.id}/oauth-tokens` } }
    },
    links: { self: `/api/v2/oauth-clients/${connection.id}` }
  }
}

function tokenResource({ connection }: ConnectionRef): Resource<OAuthTokenAttributes, 'oauth-tokens'> {
  return {
    id: connection.tokenId,
    type: 'oauth-tokens',
    attributes: {
      uid: connection.tokenId,
      'created-at': connection.createdAt,
      'has-ssh-key': false,
      'service-provider-user': ''
    },
    relationships: { 'oauth-client': { data: { id: connection.id, type: 'oauth-clients' }, links: { related: `/api/v2/oauth-clients/${connection.id}` } } },
    links: { self: `/api/v2/oauth-tokens/${connection.tokenId}` }
  }
}
