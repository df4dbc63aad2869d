import Router from '@koa/router'
import type { Services } from '../services.js'
import { requireBearer } from '../http/auth.js'
import { jsonApiErrors } from '../http/errors.js'
import type { BaseUrl } from './base-url.js'

export interface ServerInfo {
  edition: string
  /** The host Terraform sources name (`<hostname>/<org>/<module>/<provider>`). */
  registryHostname: string
  /** Where Terraform reaches this server. */
  serverUrl: string
}

/** Homeport's own endpoint for its GUI: what to put in a Terraform CLI configuration. */
export function serverInfoRouter(services: Services, baseUrl: BaseUrl, registryHostname: string): Router {
  const router = new Router({ prefix: '/api/homeport/v1' })
  router.use(jsonApiErrors)
  router.use(requireBearer(services.authenticator))
  router.get('/server-info', (ctx) => {
    const info: ServerInfo = { edition: services.edition, registryHostname, serverUrl: baseUrl(ctx) }
    ctx.body = info
  })
  return router
}
