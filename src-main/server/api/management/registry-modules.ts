import Router from '@koa/router'
import { TERRAFORM_REGISTRY } from '../../../shared/terraform-config.js'
import type { Context, Middleware } from 'koa'
import type { Comparison } from '../../domain/modules/versions/compare.js'
import type { LifecycleChange } from '../../domain/modules/versions/lifecycle.js'
import type { ModuleAddress, ModuleView } from '../../domain/modules/module-rules.js'
import { MODULE_SORTS, type ModuleSort } from '../../domain/modules/modules.js'
import type { VcsPublishInput } from '../../domain/vcs/publisher.js'
import type { VersionRecord } from '../../store/records.js'
import type { Services } from '../../domain/services.js'
import { callerOf } from '../../http/auth.js'
import { HttpError } from '../../http/errors.js'
import { rawBodyRouter } from '../../http/raw-body-router.js'
import { sendFile } from '../../http/signed-files.js'
import { readResource, sendDocument } from '../../http/jsonapi.js'
import { pageRequest, paginate } from '../../http/pagination.js'
import { includes, pathParams, queryString } from '../../http/query.js'
import { deprecationOf } from './deprecation-attribute.js'
import { moduleResource, versionResource } from './serializers/module-resources.js'
import type { BaseUrl } from '../../http/base-url.js'
import type { ListDocument, Resource } from '../../../shared/wire/jsonapi.js'
import type { InterfaceDiffAttributes, ModuleAttributes, ModuleFileAttributes, ModuleListMeta } from '../../../shared/wire/modules.js'

const MODULE = '/organizations/:org/registry-modules/:registry/:namespace/:name/:provider'

/** HCP’s registry modules API (list, create, versions, read, update, delete), with the deprecated forms of creating a version, reading a module and deleting one. */
export function registryModuleRoutes(router: Router, services: Services, baseUrl: BaseUrl): void {
  const { modules } = services
  const sendVersion = (ctx: Context, status: number, view: ModuleView, version: VersionRecord) => {
    const objectId = modules.uploadObjectId(callerOf(ctx), view, version)
    sendDocument(ctx, status, { data: versionResource(view, version, objectId && `${baseUrl(ctx)}/archivist/v1/object/${objectId}`) })
  }

  router.get('/organizations/:org/registry-modules', async (ctx) => {
    // go-tfe asks for no-code-modules; Homeport has no no-code module designs, so there are none to include.
    includes(ctx, ['no-code-modules'], 'registry modules')
    const listing = await modules.list(callerOf(ctx), ctx.params.org!, {
      q: queryString(ctx, 'q'),
      registryName: queryString(ctx, 'filter[registry_name]'),
      provider: queryString(ctx, 'filter[provider]'),
      organizationName: queryString(ctx, 'filter[organization_name]'),
      sort: moduleSort(ctx)
    })
    const { items: ids, meta, links } = paginate(ctx, baseUrl(ctx), listing.ids, pageRequest(ctx)!)
    const items = await modules.pageOf(listing, ids)
    const descriptions = await services.registry.descriptions(items)
    const downloads = await services.downloads.totals(items.map((view) => view.module.id))
    const document: ListDocument<ModuleAttributes, ModuleListMeta> = {
      data: items.map((view) =>
        moduleResource(view, callerOf(ctx), { baseUrl: baseUrl(ctx), listEntry: true, description: descriptions.get(view.module.id) ?? '', downloads: downloads.get(view.module.id) ?? 0 })
      ),
      links,
      // Homeport's own: the providers among the modules that match all but filter[provider], for the GUI's facets.
      meta: { ...meta, 'provider-counts': Object.fromEntries(listing.providers.map(({ provider, count }) => [provider, count])) }
    }
    sendDocument(ctx, 200, document)
  })

  router.post('/organizations/:org/registry-modules/vcs', async (ctx) => {
    const view = await services.vcsPublisher.publish(callerOf(ctx), pathParams(ctx, 'org').org, vcsPublishInput(ctx))
    sendDocument(ctx, 201, { data: moduleResource(view, callerOf(ctx), { baseUrl: baseUrl(ctx) }) })
  })
  // Deprecated form of HCP’s publish a module from a VCS repository: the connection's token decides the organization.
  router.post('/registry-modules', async (ctx) => {
    const input = vcsPublishInput(ctx)
    const connection = input.oauthTokenId ? await services.vcsConnections.readByToken(callerOf(ctx), input.oauthTokenId).catch(() => undefined) : undefined
    if (!connection) {
      throw new HttpError(422, 'invalid attribute', 'vcs-repo.oauth-token-id must name a VCS connection you can use.', {
        pointer: '/data/attributes/vcs-repo/oauth-token-id'
      })
    }
    const view = await services.vcsPublisher.publish(callerOf(ctx), connection.org.name, input)
    sendDocument(ctx, 201, { data: moduleResource(view, callerOf(ctx), { baseUrl: baseUrl(ctx) }) })
  })

  router.post('/organizations/:org/registry-modules', async (ctx) => {
    const attributes = readResource(ctx, 'registry-modules').attributes
    const view = await modules.create(callerOf(ctx), ctx.params.org!, {
      name: attributes.string('name'),
      provider: attributes.string('provider'),
      namespace: attributes.string('namespace'),
      registryName: attributes.string('registry-name'),
      noCode: attributes.boolean('no-code')
    })
    sendDocument(ctx, 201, { data: moduleResource(view, callerOf(ctx), { baseUrl: baseUrl(ctx) }) })
  })

  // Deprecated forms first: their literal segments must win over the parameters of the others.
  const deleteDeprecated = async (ctx: Context) => {
    const { org, name, provider, version } = ctx.params as Record<string, string | undefined>
    await deleteAt(ctx, { organization: org!, registryName: 'private', namespace: org!, name: name!, provider }, version)
  }
  router.post('/registry-modules/actions/delete/:org/:name', async (ctx) => {
    const { org, name } = pathParams(ctx, 'org', 'name')
    await modules.deleteNamed(callerOf(ctx), org, name)
    ctx.status = 204
  })
  router.post('/registry-modules/actions/delete/:org/:name/:provider', deleteDeprecated)
  router.post('/registry-modules/actions/delete/:org/:name/:provider/:version', deleteDeprecated)
  router.get('/registry-modules/show/:org/:name/:provider', async (ctx) => {
    const view = await modules.read(callerOf(ctx), privateAddress(ctx))
    sendDocument(ctx, 200, { data: moduleResource(view, callerOf(ctx), { baseUrl: baseUrl(ctx) }) })
  })
  router.post('/registry-modules/:org/:name/:provider/versions', async (ctx) => createVersion(ctx, privateAddress(ctx)))
  router.get('/registry-modules/:id', async (ctx) => {
    const view = await modules.readById(callerOf(ctx), ctx.params.id!)
    sendDocument(ctx, 200, { data: moduleResource(view, callerOf(ctx), { baseUrl: baseUrl(ctx) }) })
  })

  router.post(`${MODULE}/versions`, async (ctx) => createVersion(ctx, address(ctx)))
  // Homeport's own: copy a version of a curated public module, archive and all, for offline use, from
  // registry.terraform.io's upstream, or with `hostname: registry.opentofu.org` from OpenTofu's.
  router.post('/organizations/:org/registry-modules/public/:namespace/:name/:provider/mirror', async (ctx) => {
    const { org, namespace, name, provider } = pathParams(ctx, 'org', 'namespace', 'name', 'provider')
    const { attributes } = readResource(ctx, 'registry-module-versions')
    const version = attributes.required('version', 'Name the version to mirror.')
    const from = services.publicMirrors.for(attributes.string('hostname') ?? TERRAFORM_REGISTRY).modules
    const mirrored = await from.mirror(callerOf(ctx), org, namespace, name, provider, version)
    sendVersion(ctx, 201, mirrored.view, mirrored.version)
  })
  router.get(MODULE, async (ctx) => {
    const view = await modules.read(callerOf(ctx), address(ctx))
    sendDocument(ctx, 200, { data: moduleResource(view, callerOf(ctx), { baseUrl: baseUrl(ctx) }) })
  })
  // go-tfe's ReadVersion.
  router.get(`${MODULE}/version`, async (ctx) => {
    const requested = queryString(ctx, 'module_version')
    if (!requested) throw new HttpError(400, 'bad request', 'Name the version with ?module_version=.', { parameter: 'module_version' })
    const { view, version } = await modules.readVersion(callerOf(ctx), address(ctx), requested)
    sendVersion(ctx, 200, view, version)
  })
  router.patch(MODULE, async (ctx) => {
    const document = readResource(ctx, 'registry-modules')
    const vcsRepo = document.attributes.object('vcs-repo')
    const view = await modules.update(callerOf(ctx), address(ctx), {
      noCode: document.attributes.boolean('no-code'),
      testsEnabled: document.attributes.object('test-config')?.boolean('tests-enabled'),
      vcsRepo: vcsRepo && {
        branch: vcsRepo.string('branch'),
        tags: vcsRepo.boolean('tags'),
        sourceDirectory: vcsRepo.string('source-directory'),
        tagPrefix: vcsRepo.string('tag-prefix')
      }
    })
    sendDocument(ctx, 200, { data: moduleResource(view, callerOf(ctx), { baseUrl: baseUrl(ctx) }) })
  })
  router.post(`${MODULE}/actions/resync`, async (ctx) => {
    const view = await services.vcsPublisher.requestResync(callerOf(ctx), address(ctx))
    sendDocument(ctx, 202, { data: moduleResource(view, callerOf(ctx), { baseUrl: baseUrl(ctx) }) })
  })
  router.post(`${MODULE}/:version/actions/retry`, async (ctx) => {
    const view = await services.vcsPublisher.retry(callerOf(ctx), address(ctx), pathParams(ctx, 'version').version)
    sendDocument(ctx, 202, { data: moduleResource(view, callerOf(ctx), { baseUrl: baseUrl(ctx) }) })
  })
  // Homeport's own: the interface change between two published versions (by default the latest and the one before).
  router.get(`${MODULE}/compare`, async (ctx) => {
    const comparison = await services.versionComparer.compare(callerOf(ctx), address(ctx), { from: queryString(ctx, 'from'), to: queryString(ctx, 'to') })
    sendDocument(ctx, 200, { data: comparisonResource(comparison) })
  })
  // Homeport's own: a published version's files as its archive holds them, and one file's text (the GUI's Files tab).
  router.get(`${MODULE}/:version/files`, async (ctx) => {
    const files = await services.versionFiles.list(callerOf(ctx), address(ctx), pathParams(ctx, 'version').version)
    const data: Array<Resource<ModuleFileAttributes, 'module-files'>> = files.map(({ path, size }) => ({ type: 'module-files', id: path, attributes: { path, size } }))
    sendDocument(ctx, 200, { data })
  })
  router.get(`${MODULE}/:version/archive`, async (ctx) => {
    const { name, provider, version } = pathParams(ctx, 'name', 'provider', 'version')
    const archive = await services.versionFiles.archive(callerOf(ctx), address(ctx), version)
    ctx.set('Content-Disposition', `attachment; filename="${`${name}-${provider}-${version}`.replace(/[^A-Za-z0-9._+-]/g, '_')}.tar.gz"`)
    await sendFile(ctx, { ...archive, type: 'application/gzip' })
  })
  router.get(`${MODULE}/:version/files/{*path}`, async (ctx) => {
    const { version, path } = pathParams(ctx, 'version', 'path')
    const text = await services.versionFiles.text(callerOf(ctx), address(ctx), version, path)
    const data: Resource<ModuleFileAttributes, 'module-files'> = { type: 'module-files', id: path, attributes: { path, size: Buffer.byteLength(text), text } }
    sendDocument(ctx, 200, { data })
  })
  // HCP's module version lifecycle: deprecate, revoke, and revert either.
  router.patch(`${MODULE}/:version`, async (ctx) => {
    const { view, version } = await services.versionLifecycle.change(callerOf(ctx), address(ctx), pathParams(ctx, 'version').version, lifecycleChange(ctx))
    sendVersion(ctx, 200, view, version)
  })
  router.delete(`${MODULE}/:version`, async (ctx) => deleteAt(ctx, address(ctx), ctx.params.version))
  router.delete(MODULE, async (ctx) => deleteAt(ctx, address(ctx)))
  router.delete('/organizations/:org/registry-modules/:registry/:namespace/:name', async (ctx) => {
    const { org, registry, namespace, name } = pathParams(ctx, 'org', 'registry', 'namespace', 'name')
    await deleteAt(ctx, { organization: org, registryName: registry, namespace, name })
  })

  async function createVersion(ctx: Context, at: ModuleAddress): Promise<void> {
    const attributes = readResource(ctx, 'registry-module-versions').attributes
    const { view, version } = await modules.createVersion(callerOf(ctx), at, {
      version: attributes.string('version'),
      commitSha: attributes.nullableString('commit-sha')
    })
    sendVersion(ctx, 201, view, version)
  }

  async function deleteAt(ctx: Context, at: Omit<ModuleAddress, 'provider'> & { provider?: string }, version?: string): Promise<void> {
    const caller = callerOf(ctx)
    if (at.provider === undefined) await modules.deleteModule(caller, at)
    else if (version === undefined) await modules.deleteProvider(caller, { ...at, provider: at.provider })
    else await modules.deleteVersion(caller, { ...at, provider: at.provider }, version)
    ctx.status = 204
  }
}

/** A lifecycle change in HCP's shape: `deprecation` (`deprecated-status`, `reason`, `link`) or `revocation` (`status`, `message`, `link`). */
function lifecycleChange(ctx: Context): LifecycleChange {
  const attributes = readResource(ctx, 'module-versions').attributes
  const deprecation = attributes.object('deprecation')
  const revocation = attributes.object('revocation')
  if ((deprecation === undefined) === (revocation === undefined)) throw new HttpError(422, 'invalid attribute', 'Send either deprecation or revocation.', { pointer: '/data/attributes' })
  if (deprecation) return deprecationOf(deprecation)
  const status = revocation!.string('status')
  if (status === 'Revoked') return { revocation: status, message: revocation!.string('message') ?? '', link: revocation!.nullableString('link') ?? null }
  if (status === 'Unrevoked') return { revocation: status }
  throw revocation!.invalid('status', 'status is Revoked or Unrevoked.')
}

/** Homeport's own `sort` of the module list: `name` (the default), `-downloads` or `-published`. */
function moduleSort(ctx: Context): ModuleSort | undefined {
  const sort = queryString(ctx, 'sort')
  if (sort === undefined) return undefined
  if (!(MODULE_SORTS as readonly string[]).includes(sort)) throw new HttpError(400, 'bad request', `sort is one of ${MODULE_SORTS.join(', ')}.`, { parameter: 'sort' })
  return sort as ModuleSort
}

function address(ctx: Context): ModuleAddress {
  const { org, registry, namespace, name, provider } = pathParams(ctx, 'org', 'registry', 'namespace', 'name', 'provider')
  return { organization: org, registryName: registry, namespace, name, provider }
}

/** The deprecated endpoints name private modules by organization, name and provider. */
function privateAddress(ctx: Context): ModuleAddress {
  const { org, name, provider } = pathParams(ctx, 'org', 'name', 'provider')
  return { organization: org, registryName: 'private', namespace: org, name, provider }
}

/** The body of publishing from VCS: `vcs-repo` (go-tfe’s and HCP’s documented spellings) and the attributes beside it. */
function vcsPublishInput(ctx: Context): VcsPublishInput {
  const attributes = readResource(ctx, 'registry-modules').attributes
  const vcsRepo = attributes.required('vcs-repo', 'vcs-repo names the repository to publish from.', 'object')
  // The app installation's attribute carries the VCS provider's name (github-app-installation-id).
  const installation = vcsRepo.names().find((name) => name.endsWith('-app-installation-id'))
  return {
    name: attributes.string('name'),
    provider: attributes.string('provider'),
    noCode: attributes.boolean('no-code'),
    initialVersion: attributes.string('initial-version'),
    testsEnabled: attributes.object('test-config')?.boolean('tests-enabled'),
    identifier: vcsRepo.string('identifier'),
    displayIdentifier: vcsRepo.string('display-identifier') ?? vcsRepo.string('display_identifier'),
    oauthTokenId: vcsRepo.string('oauth-token-id'),
    appInstallationId: installation === undefined ? undefined : vcsRepo.string(installation),
    branch: vcsRepo.string('branch') || undefined,
    sourceDirectory: vcsRepo.string('source-directory'),
    tagPrefix: vcsRepo.string('tag-prefix')
  }
}

/** An `interface-diffs` resource (Homeport's own): see domain/modules/versions/interface-diff.ts. */
export function comparisonResource(comparison: Comparison): Resource<InterfaceDiffAttributes, 'interface-diffs'> {
  const { from, to, impact, step, verdict, changes, warnings, interface: shape } = comparison
  return {
    id: `${from ?? ''}...${to}`,
    type: 'interface-diffs',
    attributes: { from, to, impact, step, verdict, changes, ...(warnings ? { warnings } : {}), ...(shape ? { interface: shape } : {}) }
  }
}

/**
 * `POST /api/v2/organizations/:org/registry-modules/private/:namespace/:name/:provider/compare?version=1.4.0`,
 * its body the archive about to be published (not JSON, hence a router of its own): the interface change
 * it would make, before anything is published.
 */
export function comparePreviewRouter(services: Services, rateLimit: Middleware): Router {
  const router = rawBodyRouter('/api/v2/organizations/:org/registry-modules/:registry/:namespace/:name/:provider/compare', rateLimit)
  router.post('/', async (ctx) => {
    const version = queryString(ctx, 'version')
    if (!version) throw new HttpError(400, 'bad request', 'Name the version the archive would become with ?version=.', { parameter: 'version' })
    const comparison = await services.versionComparer.preview(callerOf(ctx), address(ctx), version, ctx.req)
    sendDocument(ctx, 200, { data: comparisonResource(comparison) })
  })
  return router
}
