import type { AuthenticationTokenRecord, OrganizationRecord } from '../../store/records.js'
import { TOKEN_HASH, type Store } from '../../store/port.js'
import { hasExpired, hashToken, hashesEqual } from './tokens.js'
import type { Origin } from './origin.js'

/**
 * Who is making a request, as established from the bearer token: the site admin, a team, or an
 * organization's own token (a pipeline that publishes); what each may do is in authorize.ts. `expiresAt` (ms) is
 * when the token stops working, for whoever remembers a caller past the request (the protocol cache).
 */
export type Caller = (
  | { kind: 'site-admin' }
  | { kind: 'team'; organizationId: string; teamId: string; expiresAt?: number }
  | { kind: 'organization'; organizationId: string; expiresAt?: number }
  /** HCP's audit-trails token: it reads its organization's audit trail, and nothing else. */
  | { kind: 'audit-trails'; organizationId: string; expiresAt?: number }
) & {
  /** The request the caller makes, for the audit trail (origin.ts); none off the request path. */
  origin?: Origin
}

const SITE_ADMIN: Caller = { kind: 'site-admin' }

/** A short name for a caller, the same for every request it makes, whatever its headers look like. */
export function callerKey(caller: Caller): string {
  if (caller.kind === 'site-admin') return 'site-admin'
  return caller.kind === 'team' ? `team:${caller.teamId}` : `${caller.kind}:${caller.organizationId}`
}

/** Who a caller is, in words, for records of who did what ("team publishers"). */
export function describeCaller(caller: Caller, org: OrganizationRecord): string {
  if (caller.kind === 'site-admin') return 'the site admin'
  if (caller.kind === 'organization') return 'the organization token'
  if (caller.kind === 'audit-trails') return 'the audit-trails token'
  return `team ${org.teams.find((team) => team.id === caller.teamId)?.name ?? caller.teamId}`
}

/** A caller as HCP names the user behind a token (`account/details`, a token's `created-by`). */
export interface Account {
  id: string
  username: string
  serviceAccount: boolean
  siteAdmin: boolean
}

/**
 * The user a caller is: the site admin; or, since Homeport has no user accounts, the service account
 * of the team (HCP's `api-team_…`) or organization it acts as. `org` is the caller's organization
 * (none for the site admin).
 */
export function accountOf(caller: Caller, org: OrganizationRecord | undefined): Account {
  if (caller.kind === 'site-admin') return { id: 'user-site-admin', username: 'site-admin', serviceAccount: false, siteAdmin: true }
  const name = org?.name ?? caller.organizationId
  if (caller.kind === 'organization') return { id: `user-${caller.organizationId.replace(/^org-/, 'org')}`, username: `api-org-${name}`, serviceAccount: true, siteAdmin: false }
  if (caller.kind === 'audit-trails') return { id: `user-${caller.organizationId.replace(/^org-/, 'audit')}`, username: `api-audit-trails-${name}`, serviceAccount: true, siteAdmin: false }
  const team = org?.teams.find((candidate) => candidate.id === caller.teamId)
  return { id: `user-${caller.teamId.replace(/^team-/, 'team')}`, username: `api-team_${team?.name ?? caller.teamId}`, serviceAccount: true, siteAdmin: false }
}

/** Resolves bearer tokens to callers: the site-admin token, an organization token, a team token, or a token terraform login obtained (acting as its team). */
export class Authenticator {
  private readonly adminHash: string

  constructor(
    private readonly store: Store,
    adminToken: string,
    /** The time tokens expire by; tests move it instead of waiting. */
    private readonly clock: () => number = Date.now
  ) {
    this.adminHash = hashToken(adminToken)
  }

  async authenticate(token: string, now = this.clock()): Promise<Caller | undefined> {
    const hash = hashToken(token)
    if (hashesEqual(hash, this.adminHash)) return SITE_ADMIN
    const org = await this.store.organizations.findBy(TOKEN_HASH, hash)
    if (!org) return undefined
    const usable = (record: AuthenticationTokenRecord | null): record is AuthenticationTokenRecord => record !== null && hashesEqual(record.hash, hash) && !hasExpired(record, now)
    const until = (record: AuthenticationTokenRecord) => (record.expiredAt === null ? {} : { expiresAt: Date.parse(record.expiredAt) })
    if (usable(org.token)) return { kind: 'organization', organizationId: org.id, ...until(org.token) }
    const auditTrails = org.auditTrailsToken ?? null
    if (usable(auditTrails)) return { kind: 'audit-trails', organizationId: org.id, ...until(auditTrails) }
    const team = org.teams.find((candidate) => usable(candidate.token))
    if (team) return { kind: 'team', organizationId: org.id, teamId: team.id, ...until(team.token!) }
    // A token terraform login obtained acts as the team it was approved for.
    const cli = org.cliTokens.find((candidate) => usable(candidate))
    return cli && org.teams.some((candidate) => candidate.id === cli.teamId) ? { kind: 'team', organizationId: org.id, teamId: cli.teamId, ...until(cli) } : undefined
  }
}
