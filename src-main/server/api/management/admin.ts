import Router from '@koa/router'
import type { Services } from '../../domain/services.js'
import type { Context, Middleware } from 'koa'
import { callerOf } from '../../http/auth.js'
import { HttpError } from '../../http/errors.js'
import { rawBodyRouter } from '../../http/raw-body-router.js'
import { pathParams, queryString } from '../../http/query.js'
import { TERRAFORM_REGISTRY } from '../../../shared/terraform-config.js'
import { readIdentifiers, readResource, sendDocument } from '../../http/jsonapi.js'
import { pageRequest, paginate } from '../../http/pagination.js'
import { organizationReference } from './serializers/organization-resources.js'
import type { BaseUrl } from '../../http/base-url.js'
import { mirroredProviderResource } from './serializers/provider-resources.js'
import type { Resource } from '../../../shared/wire/jsonapi.js'
import type { MirroredPackageAttributes, ProviderMirrorAttributes, ProviderReleaseImportAttributes } from '../../../shared/wire/providers.js'

/**
 * `PUT /api/v2/admin/provider-mirror/packages/<hostname>/<namespace>/<type>/<version>/<os>_<arch>?hash=h1:…`:
 * one zip of a `terraform providers mirror` folder, its body the zip (not JSON, hence a router of its
 * own), checked against the hashes the folder lists (`homeport import-providers` sends them).
 */
export function providerImportRouter(services: Services, rateLimit: Middleware): Router {
  const router = rawBodyRouter('/api/v2/admin/provider-mirror/packages', rateLimit)
  router.put('/:hostname/:namespace/:type/:version/:platform', async (ctx) => {
    const { hostname, namespace, type, version, platform } = pathParams(ctx, 'hostname', 'namespace', 'type', 'version', 'platform')
    const [os = '', arch = '', extra] = platform.split('_')
    if (extra !== undefined) throw new HttpError(422, 'invalid attribute', `"${platform}" is not a platform (<os>_<arch>, like linux_amd64).`)
    const hashes = [ctx.query.hash ?? []].flat()
    const { present, signed } = await services.publicMirrors.for(hostname).providers.importPackage(callerOf(ctx), { hostname, namespace, type, version, os, arch, hashes }, ctx.req)
    const result: Resource<MirroredPackageAttributes, 'mirrored-provider-packages'> = {
      type: 'mirrored-provider-packages',
      id: `${hostname}/${namespace}/${type}/${version}/${platform}`.toLowerCase(),
      attributes: { 'already-present': present, signed }
    }
    sendDocument(ctx, present ? 200 : 201, { data: result })
  })
  return router
}

/** Site-admin endpoints, in Terraform Enterprise's shapes; any other caller gets 404. */
export function adminRoutes(router: Router, services: Services, baseUrl: BaseUrl): void {
  const consumersPath = '/admin/organizations/:org/relationships/module-consumers'
  router.get(consumersPath, async (ctx) => {
    const consumers = await services.moduleSharing.consumers(callerOf(ctx), ctx.params.org!)
    const { items, meta, links } = paginate(ctx, baseUrl(ctx), consumers, pageRequest(ctx)!)
    sendDocument(ctx, 200, { data: items.map(organizationReference), links, meta })
  })
  router.patch(consumersPath, async (ctx) => {
    const names = readIdentifiers(ctx, 'organizations')
    await services.moduleSharing.setConsumers(callerOf(ctx), ctx.params.org!, names)
    ctx.status = 204
  })

  // Homeport's own: the public providers mirrored here, and mirroring more ahead of time, for use offline.
  router.get('/admin/provider-mirror', async (ctx) => {
    const providers = await services.publicMirrors.providers()
    sendDocument(ctx, 200, {
      data: providers.map(({ record, publicName }) => mirroredProviderResource(record, publicName))
    })
  })
  router.post('/admin/provider-mirror', async (ctx) => {
    const attributes = readResource(ctx, 'provider-mirrors').attributes
    const source = attributes.string('source') ?? ''
    // As Terraform reads a source: [<hostname>/]<namespace>/<type>, registry.terraform.io when no hostname is given.
    const parts = source.split('/')
    const [type, namespace, hostname = TERRAFORM_REGISTRY, extra] = [...parts].reverse()
    if (!namespace || !type || extra !== undefined) {
      throw attributes.invalid('source', 'source is a public provider address: [<hostname>/]<namespace>/<type>, like hashicorp/null or registry.opentofu.org/hashicorp/null.')
    }
    const mirror = services.publicMirrors.for(hostname).providers
    const platforms = attributes.nullableStringArray('platforms') ?? []
    const { mirrored, docs } = await mirror.mirror(callerOf(ctx), namespace, type, attributes.string('versions'), platforms)
    const result: Resource<ProviderMirrorAttributes, 'provider-mirrors'> = {
      type: 'provider-mirrors',
      id: `${mirror.publicName}/${namespace}/${type}`,
      attributes: { source, mirrored, docs }
    }
    sendDocument(ctx, 201, { data: result })
  })

  // A release folder's signed files, vouched for by the signing key the site admin gives (`homeport import-providers`).
  router.put('/admin/provider-mirror/releases/:hostname/:namespace/:type/:version', async (ctx) => {
    const { hostname, namespace, type, version } = pathParams(ctx, 'hostname', 'namespace', 'type', 'version')
    const attributes = readResource(ctx, 'provider-releases').attributes
    const signature = attributes.required('shasums-signature')
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) throw attributes.invalid('shasums-signature', 'shasums-signature is the signature file in base64.')
    const { present, keyId } = await services.publicMirrors.for(hostname).providers.importRelease(callerOf(ctx), {
      hostname,
      namespace,
      type,
      version,
      shasums: Buffer.from(attributes.required('shasums'), 'utf8'),
      signature: Buffer.from(signature, 'base64'),
      signingKey: attributes.required('signing-key'),
      protocols: attributes.nullableStringArray('protocols') ?? []
    })
    const result: Resource<ProviderReleaseImportAttributes, 'provider-releases'> = {
      type: 'provider-releases',
      id: `${hostname}/${namespace}/${type}/${version}`.toLowerCase(),
      attributes: { 'already-present': present, 'key-id': keyId }
    }
    sendDocument(ctx, present ? 200 : 201, { data: result })
  })
  // `?hostname=registry.opentofu.org` for OpenTofu's registry's mirror; registry.terraform.io's without it.
  const mirrorNamed = (ctx: Context) => services.publicMirrors.for(queryString(ctx, 'hostname') ?? TERRAFORM_REGISTRY).providers
  router.delete('/admin/provider-mirror/:namespace/:type/:version', async (ctx) => {
    const { namespace, type, version } = pathParams(ctx, 'namespace', 'type', 'version')
    await mirrorNamed(ctx).remove(callerOf(ctx), namespace, type, version)
    ctx.status = 204
  })
  router.delete('/admin/provider-mirror/:namespace/:type/:version/:platform', async (ctx) => {
    const { namespace, type, version, platform } = pathParams(ctx, 'namespace', 'type', 'version', 'platform')
    await mirrorNamed(ctx).remove(callerOf(ctx), namespace, type, version, platform)
    ctx.status = 204
  })

  // The site-level switch that self-hosted organizations need before enabling cost estimation.
  const settingsResource = (enabled: boolean) => ({ id: 'cost-estimation', type: 'cost-estimation-settings', attributes: { enabled } })
  router.get('/admin/cost-estimation-settings', (ctx) => {
    sendDocument(ctx, 200, { data: settingsResource(services.site.costEstimation(callerOf(ctx))) })
  })
  router.patch('/admin/cost-estimation-settings', async (ctx) => {
    // go-tfe's AdminCostEstimationSettingOptions has no primary field: it sends an empty data.type.
    const enabled = readResource(ctx, 'cost-estimation-settings', { typeMayBeEmpty: true }).attributes.boolean('enabled')
    sendDocument(ctx, 200, { data: settingsResource(await services.site.setCostEstimation(callerOf(ctx), enabled)) })
  })
}
