import Router from '@koa/router'
import type { Middleware } from 'koa'
import { requireBearer } from './auth.js'
import { closeUnreadBodies } from './unread-bodies.js'

/**
 * A router under the management API whose request bodies are files (a zip, an archive), not JSON:
 * the API's doors (the rate limit, a bearer token), without its JSON body parser. Its errors are
 * JSON:API's, as everywhere under /api/v2 (http/errors.ts).
 */
export function rawBodyRouter(prefix: string, rateLimit: Middleware): Router {
  const router = new Router({ prefix })
  router.use(closeUnreadBodies)
  router.use(rateLimit)
  router.use(requireBearer)
  return router
}
