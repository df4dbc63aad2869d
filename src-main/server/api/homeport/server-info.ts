import Router from '@koa/router'
import type { Services } from '../../domain/services.js'
import { PassThrough } from 'node:stream'
import { callerOf, requireBearer } from '../../http/auth.js'
import type { ServerInfo } from '../../../shared/server-info.js'
import type { BaseUrl } from '../../http/base-url.js'

/**
 * Homeport's own endpoints, for its GUI and CLI: what to put in a Terraform CLI configuration,
 * and a backup of the data directory (site admin), taken while the server runs.
 */
export function serverInfoRouter(services: Services, baseUrl: BaseUrl, registryHostname: string): Router {
  const router = new Router({ prefix: '/api/homeport/v1' })
  router.use(requireBearer)
  router.get('/server-info', (ctx) => {
    const info: ServerInfo = { edition: services.edition, registryHostname, serverUrl: baseUrl(ctx) }
    ctx.body = info
  })
  router.get('/backup', (ctx) => {
    const stream = new PassThrough()
    // Refused (not a site admin) before anything is sent; a failure later ends the download short.
    const written = services.site.backup(callerOf(ctx), stream)
    written.catch((error: Error) => stream.destroy(error))
    ctx.type = 'application/gzip'
    ctx.set('Content-Disposition', `attachment; filename="homeport-backup-${new Date().toISOString().slice(0, 10)}.tar.gz"`)
    ctx.body = stream
  })
  return router
}
