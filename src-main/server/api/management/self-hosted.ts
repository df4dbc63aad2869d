import Router from '@koa/router'
import type { Context } from 'koa'
import type { DataRetentionInput } from '../../domain/organizations/data-retention.js'
import type { Services } from '../../domain/services.js'
import { callerOf } from '../../http/auth.js'
import { HttpError } from '../../http/errors.js'
import { requestBody, readResource, sendDocument } from '../../http/jsonapi.js'
import { pageRequest, paginate } from '../../http/pagination.js'
import type { Pagination } from '../../../shared/wire/jsonapi.js'
import { dataRetentionResource, organizationReference } from './serializers/organization-resources.js'
import type { BaseUrl } from '../../http/base-url.js'

const DELETE_OLDER = 'data-retention-policy-delete-olders'
const DONT_DELETE = 'data-retention-policy-dont-deletes'

/**
 * The self-hosted edition's organization endpoints (15, 16). In the hosted edition the services
 * answer 404.
 *
 * Each relationship is served at `/relationships/<name>`, where HCP’s API documentation puts it, and at
 * `/<name>`, where the organization's `links.related` points.
 */
export function selfHostedRoutes(router: Router, services: Services, baseUrl: BaseUrl): void {
  for (const path of ['/organizations/:org/relationships/module-producers', '/organizations/:org/module-producers']) {
    router.get(path, async (ctx) => {
      const producers = await services.moduleSharing.producers(callerOf(ctx), ctx.params.org!)
      const { items, meta, links } = paginate(ctx, baseUrl(ctx), producers, pageRequest(ctx)!)
      // The spec's module-producers pagination has no page-size.
      const pagination: Partial<Pagination> = { ...meta.pagination }
      delete pagination['page-size']
      sendDocument(ctx, 200, { data: items.map(organizationReference), links, meta: { pagination } })
    })
  }

  for (const path of ['/organizations/:org/relationships/data-retention-policy', '/organizations/:org/data-retention-policy']) {
    router.get(path, async (ctx) => {
      const { policy } = await services.dataRetention.read(callerOf(ctx), ctx.params.org!)
      sendDocument(ctx, 200, { data: dataRetentionResource(policy) })
    })
    router.post(path, async (ctx) => {
      const caller = callerOf(ctx)
      const before = await services.dataRetention.read(caller, ctx.params.org!)
      const { policy } = await services.dataRetention.set(caller, ctx.params.org!, dataRetentionInput(ctx))
      sendDocument(ctx, before.explicit ? 200 : 201, { data: dataRetentionResource(policy) })
    })
    router.delete(path, async (ctx) => {
      await services.dataRetention.delete(callerOf(ctx), ctx.params.org!)
      ctx.status = 204
    })
  }
}

/** Either of Terraform Enterprise's two policy types. */
function dataRetentionInput(ctx: Context): DataRetentionInput {
  const data = requestBody(ctx).data as { type?: unknown } | undefined
  if (data?.type === DONT_DELETE) {
    readResource(ctx, DONT_DELETE)
    return { kind: 'dont-delete' }
  }
  if (data?.type !== DELETE_OLDER) {
    throw new HttpError(422, 'invalid attribute', `data.type must be "${DELETE_OLDER}" or "${DONT_DELETE}".`, {
      pointer: '/data/type'
    })
  }
  const { attributes } = readResource(ctx, DELETE_OLDER)
  const days = attributes.integer('delete-older-than-n-days')
  if (days === undefined) throw attributes.invalid('delete-older-than-n-days', 'delete-older-than-n-days is required.')
  return { kind: 'delete-older', deleteOlderThanNDays: days }
}
