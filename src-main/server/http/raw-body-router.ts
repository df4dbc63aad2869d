import Router from '@koa/router'
import type { Middleware } from 'koa'
import { requireBearer } from './auth.js'
import { jsonApiErrors } from './errors.js'
import { closeUnreadBodies } from './unread-bodies.js'

/**
 * A router under the management API whose request bodies are files (a zip, an archive), not JSON:
 * the API's doors (JSON:API errors, the rate limit, a bearer token), without its JSON body parser.
 */
export function rawBodyRouter(prefix: string, rateLimit: Middleware): Router {
  const router = new Router({ prefix })
  router.use(closeUnreadBodies)
  router.use(jsonApiErrors)
  router.use(rateLimit)
  router.use(requireBearer)
  return router
}
