import type Router from '@koa/router'
import type { Context } from 'koa'
import type { AuditFilter } from '../../domain/organizations/audit-trail.js'
import type { Services } from '../../domain/services.js'
import type { AuditEventRecord } from '../../store/records.js'
import { callerOf } from '../../http/auth.js'
import { readResource, sendDocument } from '../../http/jsonapi.js'
import { queryPositiveInteger, queryString } from '../../http/query.js'
import type { AuditTrailEvent, AuditTrailPage } from '../../../shared/wire/audit-trail.js'

/** HCP's page size for the audit trail, and the most it serves at once. */
const HCP_PAGE_SIZE = 1000

/**
 * The audit trail (domain/organizations/audit-trail.ts): HCP's endpoint for an organization's tokens, an
 * organization's events for its owners and the GUI (with filters), the installation's for the
 * site admin, and the retention setting.
 */
export function auditTrailRoutes(router: Router, services: Services): void {
  const { auditTrail } = services
  router.get('/organization/audit-trail', async (ctx) => {
    send(ctx, await auditTrail.listForToken(callerOf(ctx), filterOf(ctx)))
  })
  router.get('/organizations/:org/audit-trail', async (ctx) => {
    send(ctx, (await auditTrail.list(callerOf(ctx), ctx.params.org!, filterOf(ctx))).events)
  })
  router.get('/admin/audit-trail', async (ctx) => {
    send(ctx, await auditTrail.listInstallation(callerOf(ctx), filterOf(ctx)))
  })

  const settings = (days: number | null) => ({ id: 'audit-trail', type: 'audit-trail-settings', attributes: { 'retention-days': days } })
  router.get('/admin/audit-trail-settings', (ctx) => {
    sendDocument(ctx, 200, { data: settings(auditTrail.retention(callerOf(ctx))) })
  })
  router.patch('/admin/audit-trail-settings', async (ctx) => {
    const days = readResource(ctx, 'audit-trail-settings').attributes.nullableInteger('retention-days') ?? null
    sendDocument(ctx, 200, { data: settings(await auditTrail.setRetention(callerOf(ctx), days)) })
  })
}

function filterOf(ctx: Context): AuditFilter {
  return { since: queryString(ctx, 'since'), action: queryString(ctx, 'filter[action]'), type: queryString(ctx, 'filter[type]'), search: queryString(ctx, 'q') }
}

/** A page of events in HCP's audit-trails format (`page[size]` up to 1000, 1000 unless told). */
function send(ctx: Context, events: AuditEventRecord[]): void {
  const size = Math.min(queryPositiveInteger(ctx, 'page[size]') ?? HCP_PAGE_SIZE, HCP_PAGE_SIZE)
  const number = queryPositiveInteger(ctx, 'page[number]') ?? 1
  const totalPages = Math.ceil(events.length / size)
  const page: AuditTrailPage = {
    data: events.slice((number - 1) * size, number * size).map(eventOf),
    pagination: {
      current_page: number,
      prev_page: number > 1 ? number - 1 : null,
      next_page: number < totalPages ? number + 1 : null,
      total_pages: totalPages,
      total_count: events.length
    }
  }
  ctx.type = 'application/json'
  ctx.body = page
}

function eventOf(event: AuditEventRecord): AuditTrailEvent {
  return {
    id: event.id,
    version: '0',
    type: 'Resource',
    timestamp: event.timestamp,
    auth: {
      accessor_id: event.actor.id,
      description: event.actor.description,
      type: 'Client',
      credential: event.actor.kind,
      impersonator_id: null,
      organization_id: event.organizationId
    },
    request: event.request,
    resource: { id: event.resource.id, type: event.resource.type, action: event.action, meta: { name: event.resource.name, permission: event.permission, outcome: event.outcome } }
  }
}
