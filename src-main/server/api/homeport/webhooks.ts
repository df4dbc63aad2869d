import Router from '@koa/router'
import type { Middleware } from 'koa'
import type { Services } from '../../domain/services.js'
import { HttpError } from '../../http/errors.js'
import { originOf } from '../../http/auth.js'
import { pathParams } from '../../http/query.js'

/**
 * A module's `webhook-url`: a push notification (from a git hook, a CI job or a hosted VCS)
 * makes Homeport read the repository's tags at once. The URL's random id is the credential;
 * the body is not read.
 */
export function webhookRouter(services: Services, rateLimit: Middleware): Router {
  const router = new Router({ prefix: '/webhooks/vcs' })
  router.use(rateLimit)
  router.post('/:id', async (ctx) => {
    if (!(await services.vcsBuilds.webhook(pathParams(ctx, 'id').id, originOf(ctx)))) {
      throw new HttpError(404, 'not found', 'No module has this webhook.')
    }
    ctx.status = 202
    ctx.body = { status: 'accepted' }
  })
  return router
}
