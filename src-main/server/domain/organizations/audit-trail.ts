import type { AuditActor, AuditEventRecord, OrganizationRecord } from '../../store/records.js'
import { AUDIT_SCOPE, INSTALLATION_SCOPE, ORGANIZATION_NAME, organizationNameKey, type Store } from '../../store/port.js'
import { describeCaller, type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId } from '../core/ids.js'

/** A write to record: everything but its id and time, which the trail gives it. */
export type AuditEntry = Omit<AuditEventRecord, 'id' | 'timestamp'>

export interface AuditFilter {
  /** Only events after this time (HCP's `since`). */
  since?: string
  action?: string
  /** Only events on resources of this kind (`registry-modules`, `teams`…). */
  type?: string
  /** Text that the actor's description or the resource's id contains. */
  search?: string
}

/** The longest retention the site admin may set, in days (ten years); none at all means forever. */
export const MAX_RETENTION_DAYS = 3650

/**
 * The audit trail: every write made through any face of Homeport (http/audit.ts records them),
 * with who made it, what, when and from where. Append-only: nothing changes an event, and one goes
 * only when older than the retention the site admin set (forever unless set). HCP keeps 14 days,
 * and on paid plans only; a registry on a laptop or a team server keeps its own always.
 *
 * Who reads it: an organization's owners and the site admin, and HCP's way, the organization's
 * `audit-trails` token (or its organization token).
 */
export class AuditTrailService {
  /** Orders the events one process records within one millisecond. */
  private sequence = 0

  constructor(
    private readonly store: Store,
    /** The time, for tests of the retention rule that must not wait for days. */
    private readonly clock: () => number = Date.now
  ) {}

  async record(entry: AuditEntry): Promise<AuditEventRecord> {
    const time = this.clock()
    // Ids sort as the events happened: the time, then this process's count, then randomness for other replicas.
    const order = `${time.toString(36).padStart(9, '0')}${(this.sequence++ % 36 ** 4).toString(36).padStart(4, '0')}`
    const random = newId('audit').slice('audit-'.length)
    return this.store.auditTrail.create({ id: `audit-${order}${random}`, timestamp: new Date(time).toISOString(), ...entry })
  }

  /** An organization's events, newest first, for its owners and the site admin (and its tokens). */
  async list(caller: Caller, orgName: string, filter: AuditFilter = {}): Promise<{ org: OrganizationRecord; events: AuditEventRecord[] }> {
    const org = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(orgName))
    if (!org || !mayRead(caller, org)) throw new NotFoundError(`organization "${orgName}" not found`)
    return { org, events: await this.events(org.id, filter) }
  }

  /** HCP's `GET /organization/audit-trail`: the events of the organization whose token asks. */
  async listForToken(caller: Caller, filter: AuditFilter = {}): Promise<AuditEventRecord[]> {
    if (caller.kind !== 'organization' && caller.kind !== 'audit-trails') {
      throw new NotFoundError('The audit trail is read with an organization token or an audit-trails token (POST /organizations/:name/authentication-token?token=audit-trails), as on HCP Terraform', false)
    }
    return this.events(caller.organizationId, filter)
  }

  /** Events of the whole installation (mirrors, imports, settings, and organizations made or deleted): the site admin's. */
  async listInstallation(caller: Caller, filter: AuditFilter = {}): Promise<AuditEventRecord[]> {
    if (!authorize(caller, 'read installation audit trail')) throw new NotFoundError('Only the site admin reads the installation’s audit trail', false)
    return this.events(INSTALLATION_SCOPE, filter)
  }

  /** How many days events are kept (null: forever), for the site admin. */
  retention(caller: Caller): number | null {
    if (!authorize(caller, 'manage site settings')) throw new NotFoundError('no such setting', false)
    return this.retentionDays()
  }

  /** Sets how long events are kept (null: forever), for the site admin. */
  async setRetention(caller: Caller, days: number | null): Promise<number | null> {
    if (!authorize(caller, 'manage site settings')) throw new NotFoundError('no such setting', false)
    if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)) {
      throw new InvalidInputError(`The audit trail's retention is a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null to keep every event.`, 'auditTrailRetentionDays')
    }
    await this.store.updateInstallation((draft) => {
      draft.auditRetentionDays = days
    })
    return days
  }

  /** Removes the events older than the retention (a background job); how many went. */
  async sweep(): Promise<number> {
    const days = this.retentionDays()
    if (days === null) return 0
    const cutoff = this.clock() - days * 24 * 60 * 60 * 1000
    let removed = 0
    for (const event of await this.store.auditTrail.all()) {
      if (Date.parse(event.timestamp) < cutoff && (await this.store.auditTrail.deleteWhere(event.id, () => true))) removed++
    }
    return removed
  }

  private retentionDays(): number | null {
    return this.store.installation().auditRetentionDays ?? null
  }

  private async events(scope: string, filter: AuditFilter): Promise<AuditEventRecord[]> {
    const since = filter.since === undefined ? undefined : Date.parse(filter.since)
    if (since !== undefined && Number.isNaN(since)) throw new InvalidInputError(`"${filter.since}" is not a time (ISO 8601, like 2026-11-25T10:00:00.000Z).`, 'since')
    const search = filter.search?.toLowerCase()
    return (await this.store.auditTrail.listBy(AUDIT_SCOPE, scope))
      .filter(
        (event) =>
          (since === undefined || Date.parse(event.timestamp) > since) &&
          (filter.action === undefined || event.action === filter.action) &&
          (filter.type === undefined || event.resource.type === filter.type) &&
          (search === undefined || `${event.actor.description} ${event.resource.id} ${event.request.path}`.toLowerCase().includes(search))
      )
      .sort((a, b) => b.id.localeCompare(a.id))
  }
}

function mayRead(caller: Caller, org: OrganizationRecord): boolean {
  return authorize(caller, 'read audit trail', org)
}

/** Who a caller is, as the trail names it. */
export function auditActor(caller: Caller | undefined, org: OrganizationRecord | undefined): AuditActor {
  if (!caller) return { kind: 'link', id: null, description: 'a signed link (an upload link, a webhook, or a terraform login code)' }
  if (caller.kind === 'site-admin') return { kind: 'site-admin', id: null, description: 'the site admin' }
  if (caller.kind === 'team') return { kind: 'team', id: caller.teamId, description: org ? describeCaller(caller, org) : `team ${caller.teamId}` }
  if (caller.kind === 'audit-trails') return { kind: 'organization-token', id: caller.organizationId, description: 'the audit-trails token' }
  return { kind: 'organization-token', id: caller.organizationId, description: 'the organization token' }
}
