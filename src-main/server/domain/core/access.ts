import type { AuthenticationTokenRecord, MembershipRecord, OrganizationRecord } from '../../store/records.js'
import { TOKEN_HASH, USER_TOKEN_HASH, type Store } from '../../store/port.js'
import { hasExpired, hashToken, hashesEqual } from './tokens.js'
import type { Origin } from './origin.js'

/**
 * Who is making a request, as established from the bearer token or the GUI's session: the site admin,
 * a team, an organization's own token (a pipeline that publishes), or a person signed in through the
 * identity provider, who acts with their teams' rights; what each may do is in authorize.ts.
 * `expiresAt` (ms) is when the token stops working, for whoever remembers a caller past the request
 * (the protocol cache).
 */
export type Caller = (
  | { kind: 'site-admin' }
  /** A person (domain/people/): their teams, and whether the site admin's group made them one too. */
  | { kind: 'user'; userId: string; username: string; siteAdmin: boolean; memberships: readonly MembershipRecord[]; expiresAt?: number }
  | { kind: 'team'; organizationId: string; teamId: string; expiresAt?: number }
  | { kind: 'organization'; organizationId: string; expiresAt?: number }
  /** HCP's audit-trails token: it reads its organization's audit trail, and nothing else. */
  | { kind: 'audit-trails'; organizationId: string; expiresAt?: number }
) & {
  /** The request the caller makes, for the audit trail (origin.ts); none off the request path. */
  origin?: Origin
}

const SITE_ADMIN: Caller = { kind: 'site-admin' }

/** Whether a caller has the site admin's rights: the site-admin token, or a person of the group the site admin named. */
export function isSiteAdmin(caller: Caller): boolean {
  return caller.kind === 'site-admin' || (caller.kind === 'user' && caller.siteAdmin)
}

/** Every organization a caller acts in: a token's one, a person's teams' (none for the site admin). */
export function callerOrganizations(caller: Caller): string[] {
  if (caller.kind === 'site-admin') return []
  if (caller.kind !== 'user') return [caller.organizationId]
  return [...new Set(caller.memberships.map((membership) => membership.organizationId))]
}

/** A short name for a caller, the same for every request it makes, whatever its headers look like. */
export function callerKey(caller: Caller): string {
  if (caller.kind === 'site-admin') return 'site-admin'
  if (caller.kind === 'user') return `user:${caller.userId}`
  return caller.kind === 'team' ? `team:${caller.teamId}` : `${caller.kind}:${caller.organizationId}`
}

/** Who a caller is, in words, for records of who did what ("team publishers"). */
export function describeCaller(caller: Caller, org: OrganizationRecord): string {
  if (caller.kind === 'site-admin') return 'the site admin'
  if (caller.kind === 'user') return caller.username
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
 * The user a caller is: the site admin; a person; or, for a token of a team (HCP's `api-team_…`) or an
 * organization, the service account it acts as. `org` is the caller's organization (none for the site
 * admin and a person).
 */
export function accountOf(caller: Caller, org: OrganizationRecord | undefined): Account {
  if (caller.kind === 'site-admin') return { id: 'user-site-admin', username: 'site-admin', serviceAccount: false, siteAdmin: true }
  if (caller.kind === 'user') return { id: caller.userId, username: caller.username, serviceAccount: false, siteAdmin: caller.siteAdmin }
  const name = org?.name ?? caller.organizationId
  if (caller.kind === 'organization') return { id: `user-${caller.organizationId.replace(/^org-/, 'org')}`, username: `api-org-${name}`, serviceAccount: true, siteAdmin: false }
  if (caller.kind === 'audit-trails') return { id: `user-${caller.organizationId.replace(/^org-/, 'audit')}`, username: `api-audit-trails-${name}`, serviceAccount: true, siteAdmin: false }
  const team = org?.teams.find((candidate) => candidate.id === caller.teamId)
  return { id: `user-${caller.teamId.replace(/^team-/, 'team')}`, username: `api-team_${team?.name ?? caller.teamId}`, serviceAccount: true, siteAdmin: false }
}

/**
 * Resolves bearer tokens to callers: the site-admin token, an organization token, a team token, a token
 * terraform login obtained (acting as its team), or a person's token; and the GUI's session cookies to people.
 */
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
    if (!org) return this.person(hash, 'token', now)
    const usable = (record: AuthenticationTokenRecord | null): record is AuthenticationTokenRecord => record !== null && hashesEqual(record.hash, hash) && !hasExpired(record, now)
    if (usable(org.token)) return { kind: 'organization', organizationId: org.id, ...until(org.token) }
    const auditTrails = org.auditTrailsToken ?? null
    if (usable(auditTrails)) return { kind: 'audit-trails', organizationId: org.id, ...until(auditTrails) }
    const team = org.teams.find((candidate) => usable(candidate.token))
    if (team) return { kind: 'team', organizationId: org.id, teamId: team.id, ...until(team.token!) }
    // A token terraform login obtained acts as the team it was approved for.
    const cli = org.cliTokens.find((candidate) => usable(candidate))
    return cli && org.teams.some((candidate) => candidate.id === cli.teamId) ? { kind: 'team', organizationId: org.id, teamId: cli.teamId, ...until(cli) } : undefined
  }

  /** The person a GUI session cookie holds the secret of, while the session lasts. */
  authenticateSession(secret: string, now = this.clock()): Promise<Caller | undefined> {
    return this.person(hashToken(secret), 'session', now)
  }

  /**
   * A person by the hash of one of their secrets: an API token (which works only while they are in a
   * team that still exists, or are a site admin: what their last sign-in gave them is all it carries),
   * or a session (a person of no team signs in, and sees nothing).
   */
  private async person(hash: string, kind: 'token' | 'session', now: number): Promise<Caller | undefined> {
    const user = await this.store.users.findBy(USER_TOKEN_HASH, hash)
    if (!user) return undefined
    const secrets: ReadonlyArray<{ hash: string; expiredAt: string | null }> = kind === 'token' ? user.tokens : user.sessions.map((session) => ({ hash: session.hash, expiredAt: session.expiresAt }))
    const secret = secrets.find((candidate) => hashesEqual(candidate.hash, hash) && !hasExpired(candidate, now))
    if (!secret) return undefined
    const organizations = await this.store.organizations.getMany([...new Set(user.memberships.map((membership) => membership.organizationId))])
    const memberships = user.memberships.filter((membership) => organizations.some((org) => org?.id === membership.organizationId && org.teams.some((team) => team.id === membership.teamId)))
    if (kind === 'token' && memberships.length === 0 && !user.siteAdmin) return undefined
    return { kind: 'user', userId: user.id, username: user.username, siteAdmin: user.siteAdmin, memberships, ...until(secret) }
  }
}

/** When a token stops working, for the caller it makes. */
function until(record: { expiredAt: string | null }): { expiresAt?: number } {
  return record.expiredAt === null ? {} : { expiresAt: Date.parse(record.expiredAt) }
}
