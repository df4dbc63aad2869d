import { createReadStream } from 'node:fs'
import type Router from '@koa/router'
import type { Middleware } from 'koa'
import type { BundleJob } from '../../domain/bundles/bundles.js'
import type { BundleRequest } from '../../domain/bundles/bundle-plan.js'
import type { ImportReport } from '../../domain/bundles/bundle-import.js'
import type { Services } from '../../domain/services.js'
import { callerOf } from '../../http/auth.js'
import { readResource, sendDocument, type Attributes } from '../../http/jsonapi.js'
import { rawBodyRouter } from '../../http/raw-body-router.js'
import type { Resource } from '../../../shared/wire/jsonapi.js'
import type { BundleAttributes, BundleImportAttributes } from '../../../shared/wire/bundles.js'

/** The largest configuration a bundle request carries (its .tf files, as JSON). */
export const BUNDLE_REQUEST_LIMIT = '16mb'

function jobResource(job: BundleJob): Resource<BundleAttributes, 'bundles'> {
  return {
    type: 'bundles',
    id: job.id,
    attributes: {
      organization: job.organization,
      status: job.status,
      'created-at': job.createdAt,
      steps: job.steps,
      'written-bytes': job.writtenBytes,
      'total-bytes': job.totalBytes,
      problems: job.problems,
      curated: job.curated,
      filename: job.filename,
      size: job.size ?? null,
      sha256: job.sha256 ?? null,
      manifest: job.manifest ?? null
    },
    links: { self: `/api/v2/bundles/${job.id}`, ...(job.status === 'ready' ? { download: `/api/v2/bundles/${job.id}/download` } : {}) }
  }
}

/** `[{ source, version }]` from an attribute, or why not. */
function sources(attributes: Attributes, name: string): Array<{ source: string; version?: string }> | undefined {
  const value = attributes.raw(name)
  if (value === undefined || value === null) return undefined
  const valid =
    Array.isArray(value) &&
    value.every((item: unknown) => {
      const entry = item as { source?: unknown; version?: unknown } | null
      return typeof entry?.source === 'string' && (entry.version === undefined || typeof entry.version === 'string')
    })
  if (!valid) throw attributes.invalid(name, `${name} is a list of { "source": …, "version": … }.`)
  return value as Array<{ source: string; version?: string }>
}

function platforms(attributes: Attributes): BundleRequest['platforms'] {
  return (attributes.nullableStringArray('platforms') ?? []).map((platform) => {
    const [os, arch, extra] = platform.split('_')
    if (!os || !arch || extra !== undefined || !/^[a-z0-9]+$/.test(os) || !/^[a-z0-9]+$/.test(arch)) {
      throw attributes.invalid('platforms', `"${platform}" is not a platform (<os>_<arch>, like linux_amd64).`)
    }
    return { os, arch }
  })
}

function configuration(attributes: Attributes): Record<string, string> | undefined {
  const value = attributes.raw('configuration')
  if (value === undefined || value === null) return undefined
  const files = typeof value === 'object' && !Array.isArray(value) ? Object.entries(value as Record<string, unknown>) : undefined
  if (!files || !files.every(([path, text]) => typeof text === 'string' && /^(?!\/)(?!.*(^|\/)\.\.(\/|$))[^\\\0]+$/.test(path))) {
    throw attributes.invalid('configuration', 'configuration is an object of relative file paths to their text (main.tf, modules/x/main.tf, .terraform.lock.hcl).')
  }
  return Object.fromEntries(files) as Record<string, string>
}

/**
 * Homeport's own: bundles for air-gapped installs. `POST /api/v2/bundles` starts making one from an
 * organization's registry (a configuration's files, or modules and providers named outright, and the
 * platforms); `GET /api/v2/bundles/:id` follows it; `GET …/download` fetches it when ready.
 */
export function bundleRoutes(router: Router, services: Services): void {
  router.post('/', async (ctx) => {
    const { attributes } = readResource(ctx, 'bundles')
    const organization = attributes.required('organization', 'organization is required: the organization whose registry the bundle is made from.')
    const request: BundleRequest = { configuration: configuration(attributes), modules: sources(attributes, 'modules'), providers: sources(attributes, 'providers'), platforms: platforms(attributes) }
    const job = await services.bundles.create(callerOf(ctx), organization, request)
    sendDocument(ctx, 202, { data: jobResource(job) })
  })
  router.get('/:id', (ctx) => {
    sendDocument(ctx, 200, { data: jobResource(services.bundles.get(callerOf(ctx), ctx.params.id!)) })
  })
  router.get('/:id/download', (ctx) => {
    const { path, size, filename } = services.bundles.file(callerOf(ctx), ctx.params.id!)
    ctx.set('Content-Type', 'application/x-tar')
    ctx.set('Content-Length', String(size))
    ctx.set('Content-Disposition', `attachment; filename="${filename}"`)
    ctx.body = createReadStream(path)
  })
  router.delete('/:id', async (ctx) => {
    await services.bundles.remove(callerOf(ctx), ctx.params.id!)
    ctx.status = 204
  })
}

/** An import's report, as the API sends it and `homeport import` prints it, whether a server ran or not. */
export function importAttributes(report: ImportReport): BundleImportAttributes {
  return { organization: report.organization, 'created-organizations': report.createdOrganizations, modules: report.modules, providers: report.providers, notes: report.notes }
}

function importResource(report: ImportReport): Resource<BundleImportAttributes, 'bundle-imports'> {
  return { type: 'bundle-imports', id: report.id, attributes: importAttributes(report) }
}

/**
 * `POST /api/v2/admin/bundle-imports[?organization=<name>]`, its body a bundle (not JSON): checked
 * whole, then imported, for the site admin. Public modules are curated by `organization` (the
 * bundle's own organization unless told).
 */
export function bundleImportRouter(services: Services, rateLimit: Middleware): Router {
  const router = rawBodyRouter('/api/v2/admin/bundle-imports', rateLimit)
  router.post('/', async (ctx) => {
    const organization = typeof ctx.query.organization === 'string' && ctx.query.organization ? ctx.query.organization : undefined
    const report = await services.bundles.import(callerOf(ctx), ctx.req, { organization })
    sendDocument(ctx, 201, { data: importResource(report) })
  })
  return router
}
