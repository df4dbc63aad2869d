import Koa, { type Middleware } from 'koa'
import Router from '@koa/router'
import { bodyParser } from '../http/body-parser.js'
import type { Services } from '../domain/services.js'
import { identify, requireBearer } from '../http/auth.js'
import { HttpError, errorsByPath } from '../http/errors.js'
import { guardDoors } from '../http/doors.js'
import { unmatched } from '../http/unmatched.js'
import { refuseUnstorableBody, refuseUnstorablePath } from '../http/text-guard.js'
import { recordRefusedWrites } from '../http/audit.js'
import { auditTrailRoutes } from './management/audit-trail.js'
import { searchRoutes } from './management/search.js'
import { guiPage, serveGui } from '../http/gui.js'
import { baseUrlResolver } from '../http/base-url.js'
import { adminRoutes, providerImportRouter } from './management/admin.js'
import { BUNDLE_REQUEST_LIMIT, bundleImportRouter, bundleRoutes } from './management/bundles.js'
import { gpgKeyRoutes } from './management/gpg-keys.js'
import { networkMirrorRouter, PROVIDER_DOCS_PREFIX, PROVIDERS_PREFIX, providerFiles, providerProtocolRouter } from './protocol/providers-v1.js'
import { providerDocsV1Routes, providerDocsV2Router, type DocsAddress } from './protocol/provider-docs.js'
import { isMirroredFrom, isPrivateDocs } from '../domain/provider-docs/docs-reader.js'
import { registryProviderRoutes } from './management/registry-providers.js'
import { organizationRoutes } from './management/organizations.js'
import { comparePreviewRouter, registryModuleRoutes } from './management/registry-modules.js'
import { loginRouter, loginRoutes } from './management/login.js'
import { peopleRoutes } from './management/people.js'
import { uploadRoutes } from './homeport/uploads.js'
import { archiveDownloads, registryProtocolRouter } from './protocol/modules-v1.js'
import { discoveryRouter } from './protocol/discovery.js'
import { gateRoutes } from './management/gate.js'
import { publicRegistryRouter } from './protocol/public-registry.js'
import { serverInfoRouter } from './homeport/server-info.js'
import { CALLBACK_PATH, SIGN_IN_PATH, signInRouter } from './homeport/sign-in.js'
import { DEFAULT_REGISTRY_HOSTNAME, PUBLIC_MIRROR_PREFIXES } from '../../shared/terraform-config.js'
import { DEFAULT_RATE_LIMIT_PER_MINUTE, RateLimiter } from '../http/rate-limit.js'
import { stampRequest, type ProtocolCache } from '../http/protocol-cache.js'
import { selfHostedRoutes } from './management/self-hosted.js'
import { teamRoutes } from './management/teams.js'
import { vcsConnectionRoutes } from './management/vcs-connections.js'
import { webhookRouter } from './homeport/webhooks.js'
import { mcpRouter, type McpSessions } from './mcp/mcp-router.js'
import { ociRouter } from './oci/oci-router.js'
import { COMMON_HEADERS } from '../http/common-headers.js'
import { signedFileRouter, type SignedLocation } from '../http/signed-files.js'

export interface AppOptions {
  /** The public URL used in links; by default, the URL the client called. */
  baseUrl?: string
  /** The built GUI to serve at `/`; none in tests that need only the API. */
  rendererDir?: string
  /** Largest JSON body accepted on /api/v2. */
  jsonLimit?: string
  /** The rate limiter (shared with the cached fast path); by default 6000 requests a minute. */
  rateLimiter?: RateLimiter
  /** Where the registry protocol's answers are kept for the fast path, and the store revision they are valid at; none: not kept. */
  protocolCache?: ProtocolCache
  /** The host Terraform sources name for this registry. */
  registryHostname?: string
  /** Host names the server answers to (see http/doors.ts); by default any. */
  allowedHosts?: ReadonlySet<string> | 'any'
  /** The MCP sessions of /mcp (api/mcp/), closed with the server; none: no MCP face. */
  mcp?: McpSessions
  /** The time the OCI token endpoint tells clients their token lasts from; tests move it. */
  clock?: () => number
}

export const API_VERSION = '2.6'

/**
 * A router in the management API's conventions (its errors are JSON:API's): the rate limit, a bearer token,
 * JSON bodies up to a limit, and the media type checked. `/api/v2/ping` alone needs no token.
 */
function jsonApiRouter(prefix: string, services: Services, rateLimit: Middleware, jsonLimit = '1mb'): Router {
  const router = new Router({ prefix })
  router.use(rateLimit)
  if (prefix === '/api/v2') {
    // Readiness, and what go-tfe reads first from a new server; it needs no token.
    router.get('/ping', (ctx) => {
      ctx.set('TFP-API-Version', API_VERSION)
      ctx.set('TFP-AppName', 'Homeport')
      ctx.status = 204
    })
  }
  router.use(requireBearer)
  router.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit,
      onError: (error) => {
        const status = (error as { status?: number }).status
        if (status === 413) throw new HttpError(413, 'payload too large', `The request body is larger than ${jsonLimit}.`)
        throw new HttpError(400, 'bad request', `The request body is not valid JSON: ${error.message}`)
      }
    })
  )
  router.use(refuseUnstorableBody)
  router.use(async (ctx, next) => {
    if (['POST', 'PATCH', 'PUT'].includes(ctx.method) && ctx.request.length && !ctx.is('application/vnd.api+json', 'application/json')) {
      throw new HttpError(415, 'unsupported media type', 'Send the request body as application/vnd.api+json.')
    }
    await next()
  })
  return router
}

/** The signed download locations: module archives and provider release files (see http/signed-files.ts). */
export function signedLocations(services: Services): SignedLocation[] {
  return [archiveDownloads(services), providerFiles(services)]
}

/** The Koa application: the management API under /api/v2, and the GUI at `/`. */
export function createApp(services: Services, options: AppOptions = {}): Koa {
  const app = new Koa()
  const baseUrl = baseUrlResolver(options.baseUrl)

  app.use(async (ctx, next) => {
    ctx.set(COMMON_HEADERS)
    await next()
  })
  app.use(errorsByPath)
  app.use(refuseUnstorablePath)
  app.use(guardDoors({ allowedHosts: options.allowedHosts ?? 'any', crossSiteLandings: [CALLBACK_PATH], crossSitePage: guiPage(options.rendererDir) }))
  if (options.protocolCache) app.use(stampRequest(options.protocolCache))
  app.use(identify(services.authenticator))
  app.use(recordRefusedWrites(services.auditTrail, options.clock))

  const rateLimit = (options.rateLimiter ?? new RateLimiter(DEFAULT_RATE_LIMIT_PER_MINUTE)).middleware()
  const api = jsonApiRouter('/api/v2', services, rateLimit, options.jsonLimit)
  organizationRoutes(api, services, baseUrl)
  teamRoutes(api, services, baseUrl)
  loginRoutes(api, services)
  peopleRoutes(api, services)
  registryModuleRoutes(api, services, baseUrl)
  registryProviderRoutes(api, services, baseUrl)
  vcsConnectionRoutes(api, services)
  selfHostedRoutes(api, services, baseUrl)
  adminRoutes(api, services, baseUrl)
  auditTrailRoutes(api, services)
  gateRoutes(api, services)
  searchRoutes(api, services)
  api.all('/{*rest}', unmatched(api, 'There is no such API endpoint.'))
  // HCP's GPG keys live beside the registry protocol, in the management API's conventions.
  const privateRegistry = jsonApiRouter('/api/registry/private/v2', services, rateLimit, options.jsonLimit)
  gpgKeyRoutes(privateRegistry, services, baseUrl)

  // Bundle requests carry a configuration's files: a larger body than the rest of the API takes.
  const bundles = jsonApiRouter('/api/v2/bundles', services, rateLimit, BUNDLE_REQUEST_LIMIT)
  bundleRoutes(bundles, services)
  bundles.all('/{*rest}', unmatched(bundles, 'There is no such API endpoint.'))

  // Downloads first: most are answered before Koa (see start-server.ts), the rest are refusals and
  // callers with tokens; they need no token, and the modules protocol router answers all of
  // /api/registry. Each router a request passes on its way costs it a match of every route.
  for (const location of signedLocations(services)) app.use(signedFileRouter(location, rateLimit, options.protocolCache).routes())
  const uploads = uploadRoutes(services, rateLimit)
  app.use(uploads.routes())
  app.use(providerImportRouter(services, rateLimit).routes())
  app.use(bundleImportRouter(services, rateLimit).routes())
  app.use(bundles.routes())
  app.use(comparePreviewRouter(services, rateLimit).routes())
  app.use(discoveryRouter().routes())
  app.use(loginRouter(services.terraformLogin, rateLimit, services.openIdConnect && SIGN_IN_PATH).routes())
  app.use(signInRouter(services, baseUrl, rateLimit, options.clock).routes())
  app.use(webhookRouter(services, rateLimit).routes())
  app.use(serverInfoRouter(services, baseUrl, options.registryHostname ?? DEFAULT_REGISTRY_HOSTNAME).routes())
  // Each face's providers.v1 with the public registry's docs routes beside its own, and its v2 docs API beside its /v1/.
  const privateProviders = providerProtocolRouter(PROVIDERS_PREFIX, services.providerRegistry, rateLimit, baseUrl)
  const privateDocs: DocsAddress = (namespace, name) => ({ kind: 'private', organization: namespace, name })
  providerDocsV1Routes(privateProviders, services, privateDocs)
  app.use(privateProviders.routes())
  app.use(providerDocsV2Router(PROVIDER_DOCS_PREFIX, services, rateLimit, privateDocs, isPrivateDocs).routes())
  // Each public registry's mirror under its own prefix: its providers, and (before the private modules protocol, which answers all of /api/registry) its curated modules.
  for (const [hostname, prefix] of Object.entries(PUBLIC_MIRROR_PREFIXES)) {
    const mirror = services.publicMirrors.for(hostname)
    const providers = providerProtocolRouter(`${prefix}/providers`, mirror.providers, rateLimit, baseUrl)
    const docs: DocsAddress = (namespace, type) => ({ kind: 'mirror', hostname, namespace, type })
    providerDocsV1Routes(providers, services, docs)
    app.use(providers.routes())
    app.use(providerDocsV2Router(prefix.replace(/\/v1$/, '/v2'), services, rateLimit, docs, isMirroredFrom(mirror.providers.hostname)).routes())
    app.use(publicRegistryRouter(`${prefix}/modules`, mirror.modules, rateLimit, baseUrl).routes())
  }
  app.use(networkMirrorRouter(services, rateLimit, options.registryHostname ?? DEFAULT_REGISTRY_HOSTNAME, baseUrl).routes())
  if (options.mcp) app.use(mcpRouter(options.mcp, rateLimit).routes())
  app.use(ociRouter(services, rateLimit, baseUrl, options.clock).routes())
  app.use(privateRegistry.routes())
  app.use(registryProtocolRouter(services, rateLimit, baseUrl, options.protocolCache).routes())
  app.use(api.routes())
  app.use(serveGui(options.rendererDir))
  return app
}
