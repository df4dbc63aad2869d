import Router from '@koa/router'
import type { Context, Middleware } from 'koa'
import type { Services } from '../../domain/services.js'
import type { OciRepository } from '../../domain/oci/oci-registry.js'
import { InvalidInputError, NotFoundError } from '../../domain/core/errors.js'
import type { BaseUrl } from '../../http/base-url.js'
import { sendFile } from '../../http/signed-files.js'
import { queryString } from '../../http/query.js'
import { decodedSegment } from '../../http/decode.js'
import { OCI_PREFIX, TOKEN_PATH, ociCaller, tokenEndpoint } from './oci-auth.js'
import { ociError } from './oci-errors.js'

/** Largest page of tags one request gets (`n` asks for fewer). */
const MAX_TAGS_PAGE = 1000
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/
const DIGEST = /^sha256:[a-f0-9]{64}$/

/** A distribution request's path: the repository's name, and what of it is asked for. */
const ROUTE = /^\/v2\/(.+)\/(tags\/list|manifests\/([^/]+)|blobs\/([^/]+))$/

/**
 * A read-only OCI Distribution face (distribution-spec v1.1's pull and content discovery) over the
 * providers and modules Homeport keeps, in the layout OpenTofu installs from (domain/oci/). `/v2/`
 * answers who may pull; every read needs a token, got through the challenge (oci-auth.ts); pushes
 * and deletes are refused: what is published comes through the registry's own ways.
 */
export function ociRouter(services: Services, rateLimit: Middleware, baseUrl: BaseUrl, clock?: () => number): Router {
  const router = new Router()
  router.use(OCI_PREFIX, async (ctx, next) => {
    ctx.set('Docker-Distribution-API-Version', 'registry/2.0')
    await next()
  })
  router.use(OCI_PREFIX, rateLimit)
  router.get(TOKEN_PATH, tokenEndpoint(services.authenticator, clock))
  router.post(TOKEN_PATH, tokenEndpoint(services.authenticator, clock))
  router.get([OCI_PREFIX, `${OCI_PREFIX}/`], (ctx) => {
    ociCaller(ctx, baseUrl)
    ctx.body = {}
  })
  router.all(`${OCI_PREFIX}/{*rest}`, async (ctx) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD')
      throw ociError(405, 'UNSUPPORTED', 'This registry is read-only over OCI: publish through Homeport (its API, GUI or a bundle), and it serves what you publish here.')
    }
    const route = ROUTE.exec(ctx.path)
    if (!route) throw ociError(404, 'NAME_UNKNOWN', 'Homeport serves /v2/<name>/tags/list, /v2/<name>/manifests/<reference> and /v2/<name>/blobs/<digest>.')
    const name = route[1]!
    const caller = ociCaller(ctx, baseUrl, `repository:${name}:pull`)
    const repository = repositoryOf(services, name)
    const { oci } = services
    if (route[2] === 'tags/list') return sendTags(ctx, name, await known(oci.tags(caller, repository)))
    if (route[3] !== undefined) {
      const reference = decodedSegment(route[3])
      if (reference === undefined || (!TAG.test(reference) && !DIGEST.test(reference))) throw ociError(404, 'MANIFEST_UNKNOWN', `"${reference ?? route[3]}" is neither a tag nor a sha256 digest.`)
      const manifest = await known(oci.manifest(caller, repository, reference))
      if (!manifest) throw ociError(404, 'MANIFEST_UNKNOWN', `${name} has no manifest ${reference}.`)
      ctx.set('Docker-Content-Digest', manifest.digest)
      ctx.set('ETag', `"${manifest.digest}"`)
      ctx.status = 200
      ctx.type = manifest.mediaType
      ctx.length = manifest.bytes.length
      if (ctx.method === 'GET') ctx.body = manifest.bytes
      return
    }
    const digest = decodedSegment(route[4]!) ?? route[4]!
    const blob = DIGEST.test(digest) ? await known(oci.blob(caller, repository, digest, { countDownload: ctx.method === 'GET' && !ctx.get('range') })) : undefined
    if (!blob) throw ociError(404, 'BLOB_UNKNOWN', `${name} has no blob ${digest}.`)
    ctx.set('Docker-Content-Digest', digest)
    ctx.set('ETag', `"${digest}"`)
    // A blob is its digest's content forever.
    ctx.set('Cache-Control', 'private, max-age=31536000, immutable')
    await sendFile(ctx, { ...blob, type: 'application/octet-stream' })
  })
  return router
}

function repositoryOf(services: Services, name: string): OciRepository {
  try {
    return services.oci.repository(name)
  } catch (error) {
    if (error instanceof InvalidInputError) throw ociError(400, 'NAME_INVALID', error.message)
    if (error instanceof NotFoundError) throw ociError(404, 'NAME_UNKNOWN', error.message)
    throw error
  }
}

/** A repository that is not there, or that the caller may not read, is unknown: OCI does not tell the two apart either. */
async function known<T>(answer: Promise<T>): Promise<T> {
  return answer.catch((error: unknown) => {
    if (error instanceof NotFoundError) throw ociError(404, 'NAME_UNKNOWN', error.forCallers ? `${error.message}, or you are not authorized to see it.` : `${error.message}.`)
    throw error
  })
}

/** Tags in lexical order, a page at a time: `n` of them after `last`, with a `Link` to the next page. */
function sendTags(ctx: Context, name: string, tags: string[]): void {
  const last = queryString(ctx, 'last')
  const asked = queryString(ctx, 'n')
  const n = asked === undefined ? MAX_TAGS_PAGE : Number(asked)
  if (!Number.isInteger(n) || n < 0) throw ociError(400, 'UNSUPPORTED', '`n` is a number of tags: a whole number, 0 or more.')
  const after = last === undefined ? tags : tags.filter((tag) => tag > last)
  const page = after.slice(0, Math.min(n, MAX_TAGS_PAGE))
  if (page.length > 0 && page.length < after.length) {
    ctx.set('Link', `<${OCI_PREFIX}/${name}/tags/list?n=${page.length}&last=${encodeURIComponent(page.at(-1)!)}>; rel="next"`)
  }
  ctx.body = { name, tags: page }
}
