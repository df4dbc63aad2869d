import Router from '@koa/router'
import type { Context, Middleware } from 'koa'
import type { Services } from '../../domain/services.js'
import type { DocsProvider, DocsShelf } from '../../domain/provider-docs/docs-reader.js'
import { numberFor } from '../../domain/provider-docs/provider-docs.js'
import { DOC_CATEGORIES } from '../../domain/provider-docs/docs-tree.js'
import type { ProviderDocRecord, ProviderDocsRecord } from '../../store/records.js'
import { callerOf, requireBearer } from '../../http/auth.js'
import { HttpError } from '../../http/errors.js'
import { pathParams, queryPositiveInteger, queryString } from '../../http/query.js'

/** Which provider a protocol path names, on one face: the private registry's, or one public registry's mirror. */
export type DocsAddress = (namespace: string, type: string) => DocsProvider

/** The registry's v2 docs API's default page size, and the most a client may ask for. */
const PAGE_SIZE = 15
const MAX_PAGE_SIZE = 100

/** A doc as registry.terraform.io's v1 provider-version answer lists it. */
function docOutline(doc: ProviderDocRecord) {
  return { id: doc.id, title: doc.title, path: doc.path, slug: doc.slug, category: doc.category, subcategory: doc.subcategory, language: doc.language }
}

/**
 * registry.terraform.io's v1 provider-version record (`GET /v1/providers/{ns}/{type}/{version}`,
 * shared/research/provider-docs.md §2a), with every doc's outline: what tools written for the public
 * registry (HashiCorp's MCP server, tfdc) read for a version's docs. Homeport has no tiers, logos or
 * download counts for these, so it answers them empty.
 */
export function providerVersionDocs(shelf: DocsShelf, version: string, docs: ProviderDocsRecord | undefined) {
  return {
    id: `${shelf.namespace}/${shelf.name}/${version}`,
    owner: shelf.namespace,
    namespace: shelf.namespace,
    name: shelf.name,
    alias: shelf.name,
    version,
    tag: `v${version}`,
    description: '',
    source: '',
    published_at: docs?.createdAt ?? null,
    downloads: 0,
    tier: 'community',
    logo_url: '',
    versions: shelf.versions,
    docs: docs?.docs.map(docOutline) ?? []
  }
}

/** The v1 routes of a provider (latest) and of one version, on a providers.v1 router. */
export function providerDocsV1Routes(router: Router, services: Services, address: DocsAddress): void {
  const answer = async (ctx: Context, version: string | undefined) => {
    const { namespace, type } = pathParams(ctx, 'namespace', 'type')
    const shelf = await services.providerDocs.shelf(callerOf(ctx), address(namespace, type))
    const chosen = version ?? shelf.versions.find((candidate) => shelf.docs.has(candidate)) ?? shelf.versions[0]
    if (chosen === undefined || !shelf.versions.includes(chosen)) throw new HttpError(404, 'not found', `${shelf.address} has no version ${version ?? ''} here.`)
    ctx.body = providerVersionDocs(shelf, chosen, shelf.docs.get(chosen))
  }
  router.get('/:namespace/:type', (ctx) => answer(ctx, undefined))
  router.get('/:namespace/:type/:version', (ctx) => answer(ctx, pathParams(ctx, 'version').version))
}

/**
 * The public registry's v2 docs API (§2b) on one face, under `prefix` (`/api/registry/v2` for the
 * private registry, `/api/registry/public/v2` for registry.terraform.io's mirror: beside each face's
 * `/v1/`, as on the public registry, and never under `/v2/`, which is the OCI face's):
 *
 * - `GET providers/{ns}/{type}?include=provider-versions`: the provider, and its versions with the
 *   numbers the docs list filters on;
 * - `GET provider-docs?filter[provider-version]=N&filter[category]=…&filter[slug]=a,b&filter[language]=…&page[number]=N&page[size]=N`:
 *   a page of docs without their content; a page past the end is 200 with `data: []`, and
 *   `meta.pagination` says where the next one is;
 * - `GET provider-docs/{id}`: one doc with its markdown (frontmatter included, as upstream's).
 */
export function providerDocsV2Router(prefix: string, services: Services, rateLimit: Middleware, address: DocsAddress, inside: (key: string) => boolean): Router {
  const router = new Router({ prefix })
  router.use(rateLimit)
  router.use(requireBearer)
  const reader = services.providerDocs
  router.get('/providers/:namespace/:type', async (ctx) => {
    const { namespace, type } = pathParams(ctx, 'namespace', 'type')
    const include = queryString(ctx, 'include')
    if (include !== undefined && include !== '' && include !== 'provider-versions') throw new HttpError(400, 'bad request', 'Only provider-versions can be included.', { parameter: 'include' })
    const shelf = await reader.shelf(callerOf(ctx), address(namespace, type))
    ctx.body = {
      data: {
        type: 'providers',
        id: numberFor(shelf.key),
        attributes: { alias: shelf.name, description: '', downloads: 0, featured: false, 'full-name': `${shelf.namespace}/${shelf.name}`, 'logo-url': '', name: shelf.name, namespace: shelf.namespace, 'owner-name': shelf.namespace, 'robots-noindex': false, source: '', tier: 'community', unlisted: false, warning: '' },
        relationships: { 'provider-versions': { data: shelf.versions.map((version) => ({ type: 'provider-versions', id: versionNumber(shelf, version) })) } }
      },
      ...(include === 'provider-versions'
        ? {
            included: shelf.versions.map((version) => ({
              type: 'provider-versions',
              id: versionNumber(shelf, version),
              attributes: { description: '', downloads: 0, 'published-at': shelf.docs.get(version)?.createdAt ?? null, tag: `v${version}`, version }
            }))
          }
        : {})
    }
  })
  router.get('/provider-docs', async (ctx) => {
    const versionNumber = queryString(ctx, 'filter[provider-version]')
    if (!versionNumber) throw new HttpError(400, 'bad request', 'Give filter[provider-version]: a version number from providers/{namespace}/{type}?include=provider-versions.', { parameter: 'filter[provider-version]' })
    const category = queryString(ctx, 'filter[category]')
    if (category !== undefined && !DOC_CATEGORIES.includes(category as never)) {
      throw new HttpError(400, 'bad request', `filter[category] is one of ${DOC_CATEGORIES.join(', ')}.`, { parameter: 'filter[category]' })
    }
    const slugs = queryString(ctx, 'filter[slug]')?.split(',').map((slug) => slug.trim()).filter(Boolean)
    const language = queryString(ctx, 'filter[language]')
    const page = queryPositiveInteger(ctx, 'page[number]') ?? 1
    const size = Math.min(queryPositiveInteger(ctx, 'page[size]') ?? PAGE_SIZE, MAX_PAGE_SIZE)
    const found = await reader.versionByNumber(callerOf(ctx), versionNumber, inside)
    const matching = (found?.docs.docs ?? []).filter(
      (doc) => (category === undefined || doc.category === category) && (language === undefined || doc.language === language) && (slugs === undefined || slugs.includes(doc.slug))
    )
    const pages = Math.ceil(matching.length / size)
    const url = (number: number) => `${prefix}/provider-docs?${new URLSearchParams({ ...Object.fromEntries(Object.entries(ctx.query).filter(([, value]) => typeof value === 'string') as Array<[string, string]>), 'page[number]': String(number) })}`
    ctx.body = {
      data: matching.slice((page - 1) * size, page * size).map((doc) => ({ type: 'provider-docs', id: doc.id, attributes: attributes(doc), links: { self: `${prefix}/provider-docs/${doc.id}` } })),
      links: { first: url(1), last: url(Math.max(pages, 1)), prev: page > 1 ? url(page - 1) : null, next: page < pages ? url(page + 1) : null },
      meta: { pagination: { 'page-size': size, 'current-page': page, 'next-page': page < pages ? page + 1 : null, 'prev-page': page > 1 ? page - 1 : null, 'total-pages': pages, 'total-count': matching.length } }
    }
  })
  router.get('/provider-docs/:id', async (ctx) => {
    const { id } = pathParams(ctx, 'id')
    const found = await reader.byNumber(callerOf(ctx), id, inside)
    ctx.body = { data: { type: 'provider-docs', id: found.doc.id, attributes: { ...attributes(found.doc), content: found.markdown }, links: { self: `${prefix}/provider-docs/${found.doc.id}` } } }
  })
  return router
}

/** A version's number in the v2 API: its docs' (what the docs list filters on), or, for a version without docs, one of its own. */
function versionNumber(shelf: DocsShelf, version: string): string {
  return shelf.docs.get(version)?.versionNumber ?? numberFor(`${shelf.key}@${version}`)
}

function attributes(doc: ProviderDocRecord) {
  return { category: doc.category, language: doc.language, path: doc.path, slug: doc.slug, subcategory: doc.subcategory, title: doc.title, truncated: doc.truncated }
}
