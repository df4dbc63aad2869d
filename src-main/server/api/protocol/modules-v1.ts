import Router from '@koa/router'
import type { BaseUrl } from '../../http/base-url.js'
import type { Context, Middleware } from 'koa'
import type { Services } from '../../domain/services.js'
import { callerOf, requireBearer } from '../../http/auth.js'
import { HttpError } from '../../http/errors.js'
import { unmatched } from '../../http/unmatched.js'
import { offsetMeta, offsetPage } from '../../http/offset-pagination.js'
import { pathParams, queryString } from '../../http/query.js'
import type { SignedLocation } from '../../http/signed-files.js'
import type { Published } from '../../domain/modules/protocol-reads.js'
import { requestStamp, type Cacheable, type ProtocolCache } from '../../http/protocol-cache.js'
import { NotFoundError } from '../../domain/core/errors.js'
import { detailObject, moduleObject, versionEntry } from './protocol-resources.js'
import type { Document } from '../../../shared/wire/jsonapi.js'
import type { DailyDownloadsAttributes, DownloadsSummaryAttributes } from '../../../shared/wire/modules.js'

export const PRIVATE_PREFIX = '/api/registry/v1/modules'
export const SUMMARY_PREFIX = '/api/registry/v2/modules'
export const DOWNLOADS_PREFIX = '/api/registry/downloads'

/**
 * The module registry protocol over the private registry (namespace = organization), with the
 * hosted registry's bearer authentication. Errors are `{"errors": ["…"]}`.
 */
export function registryProtocolRouter(services: Services, rateLimit: Middleware, baseUrl: BaseUrl, cache?: ProtocolCache): Router {
  const { registry } = services
  const router = new Router()
  router.use(rateLimit)
  router.use(requireBearer)
  router.use(async (ctx, next) => {
    await next()
    // Taken before the caller was authenticated: a write (or a download, for counts) since makes the answer stale.
    const stamp = requestStamp(ctx)
    const cacheable = (ctx.state as { cacheable?: Cacheable }).cacheable
    if (cache && cacheable && stamp) cache.remember(ctx, cacheable, stamp)
  })

  const sendList = async (ctx: Context, entries: Published[], params = LIST_PARAMS) => {
    const page = offsetPage(ctx)
    const slice = entries.slice(page.offset, page.offset + page.limit)
    const totals = await registry.downloadTotals(slice)
    answer(ctx, { meta: offsetMeta(ctx, entries.length, page), modules: slice.map((entry) => moduleObject(entry, totals.get(entry.view.module.id) ?? 0)) }, COUNTS, params)
  }
  const filter = (ctx: Context) => ({
    provider: queryString(ctx, 'provider') || undefined,
    verifiedOnly: queryString(ctx, 'verified') === 'true'
  })

  router.get(PRIVATE_PREFIX, async (ctx) => sendList(ctx, await registry.list(callerOf(ctx), filter(ctx))))
  router.get(`${PRIVATE_PREFIX}/search`, async (ctx) => {
    const q = queryString(ctx, 'q')
    if (!q) throw new HttpError(400, 'bad request', 'search needs a query: ?q=<words>', { parameter: 'q' })
    const namespace = queryString(ctx, 'namespace') || undefined
    await sendList(ctx, await registry.list(callerOf(ctx), { ...filter(ctx), q, namespace }).catch(emptyForUnknownNamespace), SEARCH_PARAMS)
  })
  router.get(`${PRIVATE_PREFIX}/:namespace`, async (ctx) => {
    const { namespace } = pathParams(ctx, 'namespace')
    await sendList(ctx, await registry.list(callerOf(ctx), { ...filter(ctx), namespace }))
  })
  router.get(`${PRIVATE_PREFIX}/:namespace/:name`, async (ctx) => {
    const { namespace, name } = pathParams(ctx, 'namespace', 'name')
    const entries = await registry.latestForAllProviders(callerOf(ctx), namespace, name)
    const page = offsetPage(ctx)
    const slice = entries.slice(page.offset, page.offset + page.limit)
    const totals = await registry.downloadTotals(slice)
    const { limit, current_offset } = offsetMeta(ctx, entries.length, page)
    answer(ctx, { meta: { limit, current_offset }, modules: slice.map((entry) => moduleObject(entry, totals.get(entry.view.module.id) ?? 0)) }, COUNTS, PAGE_PARAMS)
  })

  const MODULE = `${PRIVATE_PREFIX}/:namespace/:name/:provider`
  const moduleParams = (ctx: Context) => pathParams(ctx, 'namespace', 'name', 'provider')
  router.get(`${MODULE}/versions`, async (ctx) => {
    const { namespace, name, provider } = moduleParams(ctx)
    const { versions } = await registry.versions(callerOf(ctx), namespace, name, provider)
    answer(ctx, { modules: [{ source: `${namespace}/${name}/${provider}`, versions: versions.map(versionEntry) }] }, STABLE)
  })
  router.get(`${MODULE}/download`, async (ctx) => {
    const { namespace, name, provider } = moduleParams(ctx)
    const version = await registry.latestVersion(callerOf(ctx), namespace, name, provider)
    ctx.status = 302
    ctx.redirect(`${PRIVATE_PREFIX}/${[namespace, name, provider, version.version].map(encodeURIComponent).join('/')}/download`)
  })
  router.get(MODULE, async (ctx) => {
    const { namespace, name, provider } = moduleParams(ctx)
    const detail = await registry.detail(callerOf(ctx), namespace, name, provider)
    answer(ctx, detailObject(detail, (await registry.downloadTotals([detail])).get(detail.view.module.id) ?? 0), COUNTS)
  })
  router.get(`${MODULE}/:version`, async (ctx) => {
    const { namespace, name, provider, version } = pathParams(ctx, 'namespace', 'name', 'provider', 'version')
    const detail = await registry.detail(callerOf(ctx), namespace, name, provider, version)
    answer(ctx, detailObject(detail, (await registry.downloadTotals([detail])).get(detail.view.module.id) ?? 0), COUNTS)
  })
  router.get(`${MODULE}/:version/download`, async (ctx) => {
    const { namespace, name, provider, version } = pathParams(ctx, 'namespace', 'name', 'provider', 'version')
    const { published, token, moduleId } = await registry.downloadToken(callerOf(ctx), namespace, name, provider, version)
    // Absolute, on the origin the client called (or --base-url): Terraform resolves a path too, other clients may not.
    const location = `${baseUrl(ctx)}${DOWNLOADS_PREFIX}/${token}/${encodeURIComponent(`${name}-${provider}-${published.version}`)}.tar.gz`
    ctx.set('X-Terraform-Get', location)
    ctx.set('X-Registry-Get', location)
    ctx.status = 204
    ;(ctx.state as { cacheable?: Cacheable }).cacheable = { ttlMs: LOCATION_TTL_MS, counts: { moduleId, versionId: published.id } }
  })
  router.get(`${SUMMARY_PREFIX}/:namespace/:name/:provider/downloads/summary`, async (ctx) => {
    const { namespace, name, provider } = moduleParams(ctx)
    const { summary } = await registry.summary(callerOf(ctx), namespace, name, provider)
    const document: Document<DownloadsSummaryAttributes> = {
      data: { type: 'module-downloads-summary', id: `${namespace}/${name}/${provider}`, attributes: summary }
    }
    ctx.body = document
  })
  // Homeport's own, beside the summary: downloads per day over the last 30 days.
  router.get(`${SUMMARY_PREFIX}/:namespace/:name/:provider/downloads/daily`, async (ctx) => {
    const { namespace, name, provider } = moduleParams(ctx)
    const days = await registry.daily(callerOf(ctx), namespace, name, provider)
    const document: Document<DailyDownloadsAttributes> = { data: { type: 'module-downloads-daily', id: `${namespace}/${name}/${provider}`, attributes: { days } } }
    ctx.body = document
  })
  router.all('/api/registry/{*rest}', unmatched(router, 'There is no such registry endpoint.'))
  return router
}

/** What only a write can change is kept until one happens (or a minute). */
const STABLE: Cacheable = { ttlMs: 60_000 }
/** Answers that show download counts go at the next download too. */
const COUNTS: Cacheable = { ttlMs: 60_000, showsCounts: true }
/** A download location is signed for ten minutes and kept for one. */
const LOCATION_TTL_MS = 60_000

/** The query parameters each kind of answer depends on (see Cacheable). */
const PAGE_PARAMS = ['offset', 'limit']
const LIST_PARAMS = [...PAGE_PARAMS, 'provider', 'verified']
const SEARCH_PARAMS = [...LIST_PARAMS, 'q', 'namespace']

/** Sends a JSON answer, serialized once here so that the cache keeps exactly these bytes. */
function answer(ctx: Context, body: unknown, kept: Cacheable, params: readonly string[] = []): void {
  ctx.type = 'application/json'
  ctx.body = JSON.stringify(body)
  ;(ctx.state as { cacheable?: Cacheable }).cacheable = { ...kept, params }
}

/** Searching a namespace the caller cannot see finds nothing, like searching an empty one. */
function emptyForUnknownNamespace(error: unknown): Published[] {
  if (error instanceof NotFoundError) return []
  throw error
}

/**
 * The signed archive downloads that `X-Terraform-Get` points at (see http/signed-files.ts), at a
 * path ending in `.tar.gz`: how go-getter knows an archive.
 */
export function archiveDownloads(services: Services): SignedLocation {
  return {
    prefix: DOWNLOADS_PREFIX,
    async find(token) {
      const archive = await services.registry.archiveFor(token)
      return archive && { ...archive, type: 'application/gzip', attachment: archive.file }
    }
  }
}
