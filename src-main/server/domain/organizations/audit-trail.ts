import type { AuditActor, AuditEventRecord, OrganizationRecord } from '../../store/records.js'
import { AUDIT_SCOPE, INSTALLATION_SCOPE, ORGANIZATION_NAME, organizationNameKey, type Store } from '../../store/port.js'
import { accountOf, type Caller } from '../core/access.js'
import { authorize, type Action } from '../core/authorize.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId } from '../core/ids.js'
import type { Origin } from '../core/origin.js'

/**
 * Who made a change: a caller with a token (the command line acts as the site admin, on the data
 * directory); a capability link, whose path is the credential (an upload link, a webhook, a
 * terraform login code); or nobody (a write refused for want of a valid token).
 */
export type Author = Caller | { kind: 'link'; link: keyof typeof LINKS; origin?: Origin } | { kind: 'anonymous'; origin?: Origin }

const LINKS = { 'upload link': 'an upload link', webhook: 'a webhook', 'terraform login code': 'a terraform login code' } as const

/** The kinds of resource the trail names, singular as HCP's audit trail names them. */
export type AuditResourceType =
  | 'organization'
  | 'team'
  | 'authentication-token'
  | 'registry-module'
  | 'registry-module-version'
  | 'registry-provider'
  | 'registry-provider-version'
  | 'registry-provider-platform'
  | 'gpg-key'
  | 'oauth-client'
  | 'data-retention-policy'
  | 'module-sharing'
  | 'site-setting'
  | 'mirrored-provider'
  | 'bundle'
  | 'request'
  | 'gate-policy'
  | 'gate-rule'
  | 'gate-request'
  | 'upstream-version'
  | 'user'
  | 'team-membership'
  | 'site-admin'

/** What a change touched: its kind, its API id, and its name for people (`acme/network/aws 1.0.0`). */
export interface AuditResource {
  type: AuditResourceType
  id: string
  name: string
}

/**
 * The authorization table's actions, `authenticate` for a write refused before any of them (no valid
 * token), `gate` for the gate's own decisions (a version held back, waived, or refused as re-tagged),
 * and `sign in` for what a person's groups changed when they signed in (domain/people/).
 */
export type AuditPermission = Action | 'authenticate' | 'gate' | 'sign in'

/** A change to record: who, under which permission, in which organization (none: the installation's), what was done and to what. */
export interface AuditChange {
  author: Author
  permission: AuditPermission
  org: OrganizationRecord | undefined
  action: string
  resource: AuditResource
}

export interface AuditFilter {
  /** Only events after this time (HCP's `since`). */
  since?: string
  action?: string
  /** Only events on resources of this kind (`registry-module`, `team`…). */
  type?: string
  /** Text that the actor's description, or the resource's id or name, contains. */
  search?: string
}

/** The longest retention the site admin may set, in days (ten years); none at all means forever. */
export const MAX_RETENTION_DAYS = 3650

/**
 * The audit trail: every change the domain makes, recorded by the service that makes it, whichever
 * face asked (the HCP API, the registry protocols, upload links, the GUI, terraform login, webhooks,
 * the command line), and every write refused for want of permission; with who, what, when and from
 * which request. A capability's path (an upload link, a signed download, a login code) is never
 * recorded: an event names the resource, not the URL. Append-only: nothing changes an event, and
 * one goes only when older than the retention the site admin set (forever unless set). HCP keeps
 * 14 days, and on paid plans only; a registry on a laptop or a team server keeps its own always.
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

  /**
   * Records a change once it is made. The store keeps records one at a time, so the event is the
   * write after the change's: a trail that cannot be written is logged, and never turns a change
   * that was made into an error.
   */
  async done(change: AuditChange): Promise<void> {
    await this.record(change, 'done')
  }

  /**
   * Records a write refused for want of permission, and gives back `error` to throw: `throw await
   * audit.refused(…, new NotFoundError(…))`. The organization's owners see attempts, not only changes.
   */
  async refused<E extends Error>(change: AuditChange, error: E): Promise<E> {
    await this.refusal(change)
    return error
  }

  /** Records a refused write where the refusal itself is answered elsewhere (a write with no valid token, refused before any service). */
  async refusal(change: AuditChange): Promise<void> {
    await this.record(change, 'refused')
  }

  /**
   * The authorization table's verdict on a change, before it is made: a refusal is recorded and
   * thrown as `refusal()` (404 where the thing should not be seen to exist, 403 where HCP answers 403).
   */
  async check(caller: Caller, change: Omit<AuditChange, 'author' | 'permission'> & { permission: Action }, refusal: () => Error, target: { teamId?: string } = {}): Promise<void> {
    if (authorize(caller, change.permission, change.org, target)) return
    throw await this.refused({ ...change, author: caller }, refusal())
  }

  private async record({ author, permission, org, action, resource }: AuditChange, outcome: AuditEventRecord['outcome']): Promise<void> {
    try {
      const time = this.clock()
      // Ids sort as the events happened: the time, then this process's count, then randomness for other replicas.
      const order = `${time.toString(36).padStart(9, '0')}${(this.sequence++ % 36 ** 4).toString(36).padStart(4, '0')}`
      const random = newId('audit').slice('audit-'.length)
      const { origin } = author
      await this.store.auditTrail.create({
        id: `audit-${order}${random}`,
        timestamp: new Date(time).toISOString(),
        organizationId: org?.id ?? null,
        actor: await this.actorOf(author, org),
        action,
        permission,
        outcome,
        resource,
        request: origin ? { id: origin.requestId, ip: origin.ip } : null
      })
    } catch (error) {
      console.error(`homeport: the audit trail could not record ${action} ${resource.type} ${resource.id}: ${(error as Error).message}`)
    }
  }

  /** The actor as HCP's trail names it: for a token, the id and username `account/details` answers for it. */
  private async actorOf(author: Author, org: OrganizationRecord | undefined): Promise<AuditActor> {
    if (author.kind === 'link') return { kind: 'link', id: 'link', description: LINKS[author.link] }
    if (author.kind === 'anonymous') return { kind: 'anonymous', id: 'anonymous', description: 'no valid token' }
    const own = author.kind === 'site-admin' || author.kind === 'user' ? undefined : org?.id === author.organizationId ? org : await this.store.organizations.get(author.organizationId)
    const account = accountOf(author, own)
    const kind = author.kind === 'site-admin' || author.kind === 'user' || author.kind === 'team' ? author.kind : 'organization-token'
    return { kind, id: account.id, description: account.username }
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
    const change = { permission: 'manage site settings', org: undefined, action: 'update', resource: { type: 'site-setting', id: 'audit-trail-retention', name: 'the audit trail’s retention' } } as const
    await this.check(caller, change, () => new NotFoundError('no such setting', false))
    if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)) {
      throw new InvalidInputError(`The audit trail's retention is a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null to keep every event.`, 'auditTrailRetentionDays')
    }
    await this.store.updateInstallation((draft) => {
      draft.auditRetentionDays = days
    })
    await this.done({ ...change, author: caller })
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
          (search === undefined || `${event.actor.description} ${event.resource.id} ${event.resource.name}`.toLowerCase().includes(search))
      )
      .sort((a, b) => b.id.localeCompare(a.id))
  }
}

function mayRead(caller: Caller, org: OrganizationRecord): boolean {
  return authorize(caller, 'read audit trail', org)
}
