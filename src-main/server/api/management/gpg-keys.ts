import type Router from '@koa/router'
import type { Services } from '../../domain/services.js'
import { callerOf } from '../../http/auth.js'
import { HttpError } from '../../http/errors.js'
import { readResource, sendDocument } from '../../http/jsonapi.js'
import { pageRequest, paginate } from '../../http/pagination.js'
import { pathParams } from '../../http/query.js'
import { gpgKeyResource } from './serializers/provider-resources.js'
import type { BaseUrl } from '../../http/base-url.js'

/** HCP Terraform's GPG keys API, under /api/registry/private/v2 (`:registry_name` is always private). */
export function gpgKeyRoutes(router: Router, services: Services, baseUrl: BaseUrl): void {
  const { gpgKeys } = services
  router.get('/gpg-keys', async (ctx) => {
    // HCP's docs give `filter[namespace]=a,b`; go-tfe repeats the parameter. Both are read.
    const raw = ctx.query['filter[namespace]']
    const namespaces = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean)
    if (namespaces.length === 0) throw new HttpError(400, 'bad request', 'Name the namespaces whose keys to list with filter[namespace].', { parameter: 'filter[namespace]' })
    const views = await gpgKeys.list(callerOf(ctx), namespaces)
    const { items, meta, links } = paginate(ctx, baseUrl(ctx), views, pageRequest(ctx)!)
    sendDocument(ctx, 200, { data: items.map(gpgKeyResource), links, meta })
  })
  router.post('/gpg-keys', async (ctx) => {
    const attributes = readResource(ctx, 'gpg-keys').attributes
    const view = await gpgKeys.create(callerOf(ctx), attributes.string('namespace'), attributes.string('ascii-armor'))
    sendDocument(ctx, 201, { data: gpgKeyResource(view) })
  })
  router.get('/gpg-keys/:namespace/:keyId', async (ctx) => {
    const { namespace, keyId } = pathParams(ctx, 'namespace', 'keyId')
    sendDocument(ctx, 200, { data: gpgKeyResource(await gpgKeys.read(callerOf(ctx), namespace, keyId)) })
  })
  router.patch('/gpg-keys/:namespace/:keyId', async (ctx) => {
    const { namespace, keyId } = pathParams(ctx, 'namespace', 'keyId')
    const attributes = readResource(ctx, 'gpg-keys').attributes
    sendDocument(ctx, 200, { data: gpgKeyResource(await gpgKeys.update(callerOf(ctx), namespace, keyId, attributes.string('namespace'))) })
  })
  router.delete('/gpg-keys/:namespace/:keyId', async (ctx) => {
    const { namespace, keyId } = pathParams(ctx, 'namespace', 'keyId')
    await gpgKeys.delete(callerOf(ctx), namespace, keyId)
    ctx.status = 204
  })
}
