import type { OrganizationRecord, TeamRecord } from '../store/records.js'
import { TOKEN_HASH, type Store } from '../store/store.js'
import { hashToken, hashesEqual } from './tokens.js'

/** Who is making a request, as established from the bearer token. */
export type Caller = { kind: 'site-admin' } | { kind: 'team'; organizationId: string; teamId: string }

const SITE_ADMIN: Caller = { kind: 'site-admin' }

/** A short name for a caller, the same for every request it makes, whatever its headers look like. */
export function callerKey(caller: Caller): string {
  return caller.kind === 'site-admin' ? 'site-admin' : `team:${caller.teamId}`
}

/** The team a caller acts as in `org`, or undefined when it has no access to it. */
function teamOf(caller: Caller, org: OrganizationRecord): TeamRecord | undefined {
  if (caller.kind !== 'team' || caller.organizationId !== org.id) return undefined
  return org.teams.find((team) => team.id === caller.teamId)
}

export function canRead(caller: Caller, org: OrganizationRecord): boolean {
  return caller.kind === 'site-admin' || teamOf(caller, org) !== undefined
}

/** Owners may change the organization, its teams and its modules' settings. */
export function isOwner(caller: Caller, org: OrganizationRecord): boolean {
  return caller.kind === 'site-admin' || teamOf(caller, org)?.owners === true
}

/** The spec's "Manage modules" permission: publish, create modules and versions. */
export function canManageModules(caller: Caller, org: OrganizationRecord): boolean {
  const team = teamOf(caller, org)
  return caller.kind === 'site-admin' || team?.owners === true || team?.manageModules === true
}

/** Resolves bearer tokens to callers: the site-admin token, or a team's token. */
export class Authenticator {
  private readonly adminHash: string

  constructor(
    private readonly store: Store,
    adminToken: string
  ) {
    this.adminHash = hashToken(adminToken)
  }

  async authenticate(token: string): Promise<Caller | undefined> {
    const hash = hashToken(token)
    if (hashesEqual(hash, this.adminHash)) return SITE_ADMIN
    const org = await this.store.organizations.findBy(TOKEN_HASH, hash)
    const team = org?.teams.find((candidate) => candidate.token && hashesEqual(candidate.token.hash, hash))
    if (!org || !team) return undefined
    return { kind: 'team', organizationId: org.id, teamId: team.id }
  }
}
