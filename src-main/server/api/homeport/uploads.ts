import Router from '@koa/router'
import type { Middleware } from 'koa'
import type { Services } from '../../domain/services.js'
import { closeUnreadBodies } from '../../http/unread-bodies.js'
import { sendDocument } from '../../http/jsonapi.js'
import { versionResource } from '../management/serializers/module-resources.js'
import { originOf } from '../../http/auth.js'
import { ProviderUploadService } from '../../domain/providers/provider-uploads.js'

/**
 * Endpoint 5: `PUT {upload_url}/v1/object/<object id>`, where `{upload_url}` is
 * `<base>/archivist`. No Authorization header: the link is the credential. The body is the
 * archive, streamed to disk as it arrives.
 */
export function uploadRoutes(services: Services, rateLimit: Middleware): Router {
  const router = new Router({ prefix: '/archivist/v1/object' })
  router.use(closeUnreadBodies)
  router.use(rateLimit)
  router.put('/:objectId', async (ctx) => {
    const declared = ctx.get('content-length') ? ctx.request.length : undefined
    const objectId = ctx.params.objectId!
    // A provider release's file (HCP's archivist serves both): stored once checked, no document back.
    if (ProviderUploadService.handles(objectId)) {
      await services.providerUploads.receive(objectId, ctx.req, declared, originOf(ctx))
      ctx.status = 200
      ctx.body = ''
      return
    }
    const { view, version } = await services.uploads.receive(objectId, ctx.req, declared, originOf(ctx))
    sendDocument(ctx, 200, { data: versionResource(view, version, undefined) })
  })
  return router
}
