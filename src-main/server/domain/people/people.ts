import type { AuthenticationTokenRecord, OrganizationRecord, UserRecord } from '../../store/records.js'
import { ORGANIZATION_NAME, USER_SUBJECT, USER_TOKEN_ID, organizationNameKey, type Store } from '../../store/port.js'
import { UniqueConstraintError } from '../../store/errors.js'
import { accountOf, type Account, type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { NotFoundError } from '../core/errors.js'
import { newId, newSecret } from '../core/ids.js'
import type { Origin } from '../core/origin.js'
import { hashToken, newToken, tokenExpiry } from '../core/tokens.js'
import type { AuditTrailService } from '../organizations/audit-trail.js'
import { membershipsFrom, type MappedMembership } from './team-mapping.js'

/** How long a GUI session lasts after sign-in (then the person signs in again, and their teams are read again). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000

/** Who the identity provider says signed in (from a verified ID token), and their groups. */
export interface SignedInIdentity {
  issuer: string
  /** The ID token's `sub`. */
  subject: string
  username: string
  displayName: string
  email: string | null
  groups: string[]
}

/** A person's team, with the names people read. */
export interface PersonTeam {
  organizationId: string
  organizationName: string
  teamId: string
  teamName: string
}

export interface PeopleOptions {
  /** The group whose people have the site admin's rights (`--oidc-admin-group`); none: nobody through a group. */
  adminGroup?: string
  clock?: () => number
}

/**
 * People who sign in through the identity provider (OpenID Connect, api/homeport/sign-in.ts): a
 * person is made at their first sign-in and brought up to date at each one (their name; their teams,
 * from their groups, added and removed, each change in the audit trail), gets a GUI session, and makes
 * API tokens (HCP's user `authentication-tokens`) that act with their teams' rights.
 */
export class PeopleService {
  private readonly clock: () => number

  constructor(
    private readonly store: Store,
    private readonly audit: AuditTrailService,
    private readonly options: PeopleOptions = {}
  ) {
    this.clock = options.clock ?? Date.now
  }

  /** A sign-in: the person made or brought up to date, and a new session; its secret goes in the GUI's cookie. */
  async signIn(identity: SignedInIdentity, origin?: Origin): Promise<{ user: UserRecord; session: string; expiresAt: string }> {
    const mapped = await membershipsFrom(identity.groups, (name) => this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(name)))
    const siteAdmin = this.options.adminGroup !== undefined && identity.groups.includes(this.options.adminGroup)
    const now = this.clock()
    const session = newSecret()
    const expiresAt = new Date(now + SESSION_TTL_MS).toISOString()
    const subject = `${identity.issuer} ${identity.subject}`
    const at = new Date(now).toISOString()
    const bringUpToDate = (draft: UserRecord) => {
      draft.username = identity.username
      draft.displayName = identity.displayName
      draft.email = identity.email
      draft.siteAdmin = siteAdmin
      draft.groups = [...identity.groups]
      draft.memberships = mapped.map(({ organizationId, teamId }) => ({ organizationId, teamId }))
      draft.sessions = [...draft.sessions.filter((kept) => Date.parse(kept.expiresAt) > now), { id: newId('sess'), hash: hashToken(session), createdAt: at, expiresAt }]
      draft.signedInAt = at
    }
    let before = await this.store.users.findBy(USER_SUBJECT, subject)
    let user: UserRecord
    if (before) {
      user = (await this.store.users.update(before.id, bringUpToDate)).record
    } else {
      const fresh: UserRecord = { id: newId('user'), subject, username: '', displayName: '', email: null, siteAdmin: false, groups: [], memberships: [], tokens: [], sessions: [], loginCodes: [], createdAt: at, signedInAt: at }
      bringUpToDate(fresh)
      try {
        user = await this.store.users.create(fresh)
      } catch (error) {
        // Two first sign-ins at once (two tabs, two replicas): the second brings the first's record up to date, and records only what it changed.
        before = error instanceof UniqueConstraintError ? await this.store.users.findBy(USER_SUBJECT, subject) : undefined
        if (!before) throw error
        user = (await this.store.users.update(before.id, bringUpToDate)).record
      }
    }
    await this.recordChanges(before, user, mapped, { kind: 'user', userId: user.id, username: user.username, siteAdmin: user.siteAdmin, memberships: user.memberships, origin })
    return { user, session, expiresAt }
  }

  /** Ends the session whose secret the cookie held (a session already ended or unknown is no error). */
  async signOut(caller: Caller, secret: string): Promise<void> {
    if (caller.kind !== 'user') return
    const hash = hashToken(secret)
    await this.store.users
      .update(caller.userId, (draft) => {
        draft.sessions = draft.sessions.filter((session) => session.hash !== hash)
      })
      .catch(() => undefined)
  }

  /** Who a person is, as HCP's `account/details` says it, with their email address. */
  async account(caller: Caller & { kind: 'user' }): Promise<Account & { email: string }> {
    const user = await this.store.users.get(caller.userId)
    return { ...accountOf(caller, undefined), email: user?.email ?? '' }
  }

  /** A person's own record and teams, for their page; `userId` must be theirs. */
  async person(caller: Caller, userId: string): Promise<{ user: UserRecord; teams: PersonTeam[] }> {
    const user = await this.own(caller, userId)
    const organizations = new Map<string, OrganizationRecord>()
    for (const org of await this.store.organizations.getMany([...new Set(user.memberships.map((membership) => membership.organizationId))])) if (org) organizations.set(org.id, org)
    const teams = user.memberships.flatMap((membership): PersonTeam[] => {
      const org = organizations.get(membership.organizationId)
      const team = org?.teams.find((candidate) => candidate.id === membership.teamId)
      return org && team ? [{ organizationId: org.id, organizationName: org.name, teamId: team.id, teamName: team.name }] : []
    })
    return { user, teams }
  }

  /** A person's API tokens (theirs alone: nobody else, the site admin included, reads them). */
  async tokens(caller: Caller, userId: string): Promise<AuthenticationTokenRecord[]> {
    return (await this.own(caller, userId)).tokens
  }

  /** A new API token of the person's: the token itself, shown once, and its record. */
  async createToken(caller: Caller, userId: string, request: { description: string | null; expiredAt?: string | null }): Promise<{ token: string; record: AuthenticationTokenRecord }> {
    const user = await this.own(caller, userId)
    const token = newToken()
    const record: AuthenticationTokenRecord = { id: newId('at'), hash: hashToken(token), createdAt: new Date(this.clock()).toISOString(), description: request.description, expiredAt: tokenExpiry(request.expiredAt, this.clock()), createdBy: user.id }
    await this.store.users.update(user.id, (draft) => {
      draft.tokens = [...draft.tokens, record]
    })
    await this.audit.done({ author: caller, permission: 'manage own tokens', org: undefined, action: 'create', resource: tokenResource(user, record) })
    return { token, record }
  }

  /** One of the person's tokens, by id; undefined when the id is no person's token (it may be a terraform login token). */
  async findToken(caller: Caller, tokenId: string): Promise<{ user: UserRecord; token: AuthenticationTokenRecord } | undefined> {
    const user = await this.store.users.findBy(USER_TOKEN_ID, tokenId)
    const token = user?.tokens.find((candidate) => candidate.id === tokenId)
    if (!user || !token) return undefined
    if (!this.isOwn(caller, user.id)) throw new NotFoundError(`authentication token "${tokenId}" not found`)
    return { user, token }
  }

  /** Deletes one of the person's tokens: it stops working at once. */
  async revokeToken(caller: Caller, tokenId: string): Promise<void> {
    const found = await this.findToken(caller, tokenId)
    if (!found) throw new NotFoundError(`authentication token "${tokenId}" not found`)
    await this.store.users.update(found.user.id, (draft) => {
      draft.tokens = draft.tokens.filter((token) => token.id !== tokenId)
    })
    await this.audit.done({ author: caller, permission: 'manage own tokens', org: undefined, action: 'destroy', resource: tokenResource(found.user, found.token) })
  }

  private isOwn(caller: Caller, userId: string): boolean {
    return authorize(caller, 'manage own tokens') && caller.kind === 'user' && caller.userId === userId
  }

  /** The person's own record; anyone else's is not found, as HCP answers for another user's tokens. */
  private async own(caller: Caller, userId: string): Promise<UserRecord> {
    const user = this.isOwn(caller, userId) ? await this.store.users.get(userId) : undefined
    if (!user) throw new NotFoundError(`user "${userId}" not found`)
    return user
  }

  /** The audit trail of a sign-in: a first one, teams joined and left (in each team's organization), the site admin's rights given or taken. */
  private async recordChanges(before: UserRecord | undefined, after: UserRecord, mapped: readonly MappedMembership[], author: Caller): Promise<void> {
    const change = { author, permission: 'sign in' } as const
    if (!before) await this.audit.done({ ...change, org: undefined, action: 'create', resource: { type: 'user', id: after.id, name: `${after.username}, at their first sign-in` } })
    const had = new Set((before?.memberships ?? []).map((membership) => membership.teamId))
    for (const joined of mapped.filter((membership) => !had.has(membership.teamId))) {
      const org = await this.store.organizations.get(joined.organizationId)
      await this.audit.done({ ...change, org, action: 'create', resource: { type: 'team-membership', id: joined.teamId, name: `${after.username} in team ${joined.organizationName}/${joined.teamName} (group ${joined.group})` } })
    }
    const has = new Set(after.memberships.map((membership) => membership.teamId))
    for (const left of (before?.memberships ?? []).filter((membership) => !has.has(membership.teamId))) {
      const org = await this.store.organizations.get(left.organizationId)
      const team = org?.teams.find((candidate) => candidate.id === left.teamId)
      if (!org) continue
      await this.audit.done({ ...change, org, action: 'destroy', resource: { type: 'team-membership', id: left.teamId, name: `${after.username} in team ${org.name}/${team?.name ?? left.teamId} (the group is gone)` } })
    }
    if ((before?.siteAdmin ?? false) !== after.siteAdmin) {
      const name = after.siteAdmin ? `${after.username} is a site admin (group ${this.options.adminGroup ?? ''})` : `${after.username} is no longer a site admin (the group is gone)`
      await this.audit.done({ ...change, org: undefined, action: after.siteAdmin ? 'create' : 'destroy', resource: { type: 'site-admin', id: after.id, name } })
    }
  }
}

function tokenResource(user: UserRecord, token: AuthenticationTokenRecord) {
  return { type: 'authentication-token', id: token.id, name: `a token of ${user.username}${token.description ? ` (${token.description})` : ''}` } as const
}
