import Router from '@koa/router'
import type { BaseUrl } from '../../http/base-url.js'
import type { Context, Middleware } from 'koa'
import type { PublicRegistryService, UpstreamPassThrough } from '../../domain/upstream/public-registry.js'
import { callerOf, requireBearer } from '../../http/auth.js'
import { HttpError } from '../../http/errors.js'
import { pathParams } from '../../http/query.js'
import { detailObject, versionEntry } from './protocol-resources.js'
import { DOWNLOADS_PREFIX } from './modules-v1.js'

/**
 * A public registry's modules at `prefix` (the hosted registry's public prefix for
 * registry.terraform.io, one of Homeport's own for registry.opentofu.org): the three operations the
 * spec has it proxy for curated public modules (list versions, a version, the latest for a
 * provider), through that registry's upstream cache, and downloads of versions mirrored into Homeport.
 */
export function publicRegistryRouter(prefix: string, publicRegistry: PublicRegistryService, rateLimit: Middleware, baseUrl: BaseUrl): Router {
  const router = new Router({ prefix })
  router.use(rateLimit)
  router.use(requireBearer)

  const params = (ctx: Context) => pathParams(ctx, 'namespace', 'name', 'provider')
  const passThrough = (ctx: Context, answer: UpstreamPassThrough) => {
    ctx.status = answer.status
    ctx.body = answer.body
    if (answer.stale) ctx.set('X-Homeport-Upstream', 'offline; cached answer')
  }

  router.get('/:namespace/:name/:provider/versions', async (ctx) => {
    const { namespace, name, provider } = params(ctx)
    const answer = await publicRegistry.versions(callerOf(ctx), namespace, name, provider)
    if (answer.kind === 'upstream') return passThrough(ctx, answer)
    ctx.set('X-Homeport-Upstream', 'offline; mirrored versions')
    ctx.body = { modules: [{ source: `${namespace}/${name}/${provider}`, versions: answer.versions.map(versionEntry) }] }
  })
  const detail = async (ctx: Context, version?: string) => {
    const { namespace, name, provider } = params(ctx)
    const answer = await publicRegistry.detail(callerOf(ctx), namespace, name, provider, version)
    if (answer.kind === 'upstream') return passThrough(ctx, answer)
    ctx.set('X-Homeport-Upstream', 'offline; mirrored version')
    ctx.body = detailObject(answer.detail, 0)
  }
  router.get('/:namespace/:name/:provider', async (ctx) => detail(ctx))
  router.get('/:namespace/:name/:provider/:version', async (ctx) => detail(ctx, pathParams(ctx, 'version').version))
  router.get('/:namespace/:name/:provider/:version/download', async (ctx) => {
    const { namespace, name, provider, version } = pathParams(ctx, 'namespace', 'name', 'provider', 'version')
    const token = await publicRegistry.downloadToken(callerOf(ctx), namespace, name, provider, version)
    const location = `${baseUrl(ctx)}${DOWNLOADS_PREFIX}/${token}/${encodeURIComponent(`${name}-${provider}-${version}`)}.tar.gz`
    ctx.set('X-Terraform-Get', location)
    ctx.set('X-Registry-Get', location)
    ctx.status = 204
  })
  const others = () => {
    throw new HttpError(
      404,
      'not found',
      'For public modules Homeport answers three operations: list versions, get a module version, and the latest version for a provider.'
    )
  }
  router.all('/', others)
  router.all('/{*rest}', others)
  return router
}
