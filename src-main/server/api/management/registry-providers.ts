import Router from '@koa/router'
import type { Context } from 'koa'
import type { DeprecationChange } from '../../domain/core/notice.js'
import type { ProviderAddress } from '../../domain/providers/providers.js'
import { deprecationOf } from './deprecation-attribute.js'
import type { Services } from '../../domain/services.js'
import { callerOf } from '../../http/auth.js'
import { readResource, sendDocument } from '../../http/jsonapi.js'
import { pageRequest, paginate } from '../../http/pagination.js'
import { includes, pathParams, queryString } from '../../http/query.js'
import { PROVIDER_FILES_PREFIX } from '../protocol/providers-v1.js'
import { providerPlatformResource, providerResource, providerVersionResource, type ProviderLinks } from './serializers/provider-resources.js'
import type { BaseUrl } from '../../http/base-url.js'

const PROVIDER = '/organizations/:org/registry-providers/:registry/:namespace/:name'

/** HCP Terraform's private provider API: registry-providers, their versions and platforms. */
export function registryProviderRoutes(router: Router, services: Services, baseUrl: BaseUrl): void {
  const { providers } = services
  const links = (ctx: Context): ProviderLinks => ({
    caller: callerOf(ctx),
    providers,
    baseUrl: baseUrl(ctx),
    download: (targetId, file, stored, name) => `${baseUrl(ctx)}${PROVIDER_FILES_PREFIX}/${providers.downloadToken(targetId, file, stored)}/${encodeURIComponent(name)}`
  })
  const address = (ctx: Context): ProviderAddress => {
    const { org, registry, namespace, name } = pathParams(ctx, 'org', 'registry', 'namespace', 'name')
    return { organization: org, registryName: registry, namespace, name }
  }
  const includesVersions = (ctx: Context) => includes(ctx, ['registry-provider-versions'], 'registry providers').includes('registry-provider-versions')

  router.get('/organizations/:org/registry-providers', async (ctx) => {
    const views = await providers.list(callerOf(ctx), pathParams(ctx, 'org').org, {
      q: queryString(ctx, 'q'),
      registryName: queryString(ctx, 'filter[registry_name]'),
      organizationName: queryString(ctx, 'filter[organization_name]')
    })
    const { items, meta, links: pageLinks } = paginate(ctx, baseUrl(ctx), views, pageRequest(ctx)!)
    const included = includesVersions(ctx) ? items.flatMap((view) => view.provider.versions.map((version) => providerVersionResource(view, version, links(ctx)))) : undefined
    sendDocument(ctx, 200, { data: items.map((view) => providerResource(view, links(ctx))), ...(included ? { included } : {}), links: pageLinks, meta })
  })
  router.post('/organizations/:org/registry-providers', async (ctx) => {
    const attributes = readResource(ctx, 'registry-providers').attributes
    const view = await providers.create(callerOf(ctx), pathParams(ctx, 'org').org, {
      name: attributes.string('name'),
      namespace: attributes.string('namespace'),
      registryName: attributes.string('registry-name')
    })
    sendDocument(ctx, 201, { data: providerResource(view, links(ctx)) })
  })
  router.get(PROVIDER, async (ctx) => {
    const view = await providers.read(callerOf(ctx), address(ctx))
    const included = includesVersions(ctx) ? view.provider.versions.map((version) => providerVersionResource(view, version, links(ctx))) : undefined
    sendDocument(ctx, 200, { data: providerResource(view, links(ctx)), ...(included ? { included } : {}) })
  })
  router.delete(PROVIDER, async (ctx) => {
    await providers.delete(callerOf(ctx), address(ctx))
    ctx.status = 204
  })

  router.get(`${PROVIDER}/versions`, async (ctx) => {
    const view = await providers.read(callerOf(ctx), address(ctx))
    const { items, meta, links: pageLinks } = paginate(ctx, baseUrl(ctx), view.provider.versions, pageRequest(ctx)!)
    sendDocument(ctx, 200, { data: items.map((version) => providerVersionResource(view, version, links(ctx))), links: pageLinks, meta })
  })
  router.post(`${PROVIDER}/versions`, async (ctx) => {
    const attributes = readResource(ctx, 'registry-provider-versions', { typeMayBeEmpty: true }).attributes
    const { view, version } = await providers.createVersion(callerOf(ctx), address(ctx), {
      version: attributes.string('version'),
      keyId: attributes.string('key-id'),
      protocols: attributes.nullableStringArray('protocols')
    })
    sendDocument(ctx, 201, { data: providerVersionResource(view, version, links(ctx)) })
  })
  router.get(`${PROVIDER}/versions/:version`, async (ctx) => {
    const { view, version } = await providers.readVersion(callerOf(ctx), address(ctx), pathParams(ctx, 'version').version)
    sendDocument(ctx, 200, { data: providerVersionResource(view, version, links(ctx)) })
  })
  // Homeport's own, in the shape of HCP's module version lifecycle: deprecate a version, or take it back.
  router.patch(`${PROVIDER}/versions/:version`, async (ctx) => {
    const { view, version } = await providers.changeDeprecation(callerOf(ctx), address(ctx), pathParams(ctx, 'version').version, deprecationChange(ctx))
    sendDocument(ctx, 200, { data: providerVersionResource(view, version, links(ctx)) })
  })
  router.delete(`${PROVIDER}/versions/:version`, async (ctx) => {
    await providers.deleteVersion(callerOf(ctx), address(ctx), pathParams(ctx, 'version').version)
    ctx.status = 204
  })

  router.get(`${PROVIDER}/versions/:version/platforms`, async (ctx) => {
    const { view, version } = await providers.readVersion(callerOf(ctx), address(ctx), pathParams(ctx, 'version').version)
    const { items, meta, links: pageLinks } = paginate(ctx, baseUrl(ctx), version.platforms, pageRequest(ctx)!)
    sendDocument(ctx, 200, { data: items.map((platform) => providerPlatformResource(view, version, platform, links(ctx))), links: pageLinks, meta })
  })
  router.post(`${PROVIDER}/versions/:version/platforms`, async (ctx) => {
    const attributes = readResource(ctx, 'registry-provider-platforms', { typeMayBeEmpty: true }).attributes
    const { view, version, platform } = await providers.createPlatform(callerOf(ctx), address(ctx), pathParams(ctx, 'version').version, {
      os: attributes.string('os'),
      arch: attributes.string('arch'),
      shasum: attributes.string('shasum'),
      filename: attributes.string('filename')
    })
    sendDocument(ctx, 201, { data: providerPlatformResource(view, version, platform, links(ctx)) })
  })
  router.get(`${PROVIDER}/versions/:version/platforms/:os/:arch`, async (ctx) => {
    const { version, os, arch } = pathParams(ctx, 'version', 'os', 'arch')
    const found = await providers.readPlatform(callerOf(ctx), address(ctx), version, os, arch)
    sendDocument(ctx, 200, { data: providerPlatformResource(found.view, found.version, found.platform, links(ctx)) })
  })
  router.delete(`${PROVIDER}/versions/:version/platforms/:os/:arch`, async (ctx) => {
    const { version, os, arch } = pathParams(ctx, 'version', 'os', 'arch')
    await providers.deletePlatform(callerOf(ctx), address(ctx), version, os, arch)
    ctx.status = 204
  })
}

/** `deprecation: {deprecated-status: Deprecated, reason, link}`, or `{deprecated-status: Undeprecated}`. */
function deprecationChange(ctx: Context): DeprecationChange {
  const attributes = readResource(ctx, 'registry-provider-versions').attributes
  return deprecationOf(attributes.required('deprecation', 'Send the deprecation: {"deprecated-status": "Deprecated", "reason": "…"} or {"deprecated-status": "Undeprecated"}.', 'object'))
}
