import type { MembershipRecord, OrganizationRecord } from '../../store/records.js'

/**
 * A group that names a team: `<organization>/<team>`, each part as the organization and the team are
 * named; a leading `/` is Keycloak's full path of a subgroup (`/acme/platform`: subgroup platform of acme).
 */
const TEAM_GROUP = /^\/?([^/]+)\/([^/]+)$/

/** A membership a group gave, with the names people read in the audit trail. */
export interface MappedMembership extends MembershipRecord {
  group: string
  organizationName: string
  teamName: string
}

/**
 * The teams a person's groups make them a member of, as HCP maps its `MemberOf` attribute: a group
 * `<organization>/<team>` (or `/<organization>/<team>`) is that team, exactly by name (case and all); any other group, or one naming
 * an organization or team that does not exist, gives nothing and makes nothing. `organization` finds an
 * organization by its name (the store's lookup ignores case; the match here does not).
 */
export async function membershipsFrom(groups: readonly string[], organization: (name: string) => Promise<OrganizationRecord | undefined>): Promise<MappedMembership[]> {
  const memberships: MappedMembership[] = []
  for (const group of new Set(groups)) {
    const match = TEAM_GROUP.exec(group)
    if (!match) continue
    const [, organizationName, teamName] = match as unknown as [string, string, string]
    const org = await organization(organizationName)
    const team = org?.name === organizationName ? org.teams.find((candidate) => candidate.name === teamName) : undefined
    if (!org || !team) continue
    memberships.push({ organizationId: org.id, teamId: team.id, group, organizationName, teamName })
  }
  return memberships
}

/** The groups claim as the identity provider sent it: a list of strings (a single string is one group); anything else is none. */
export function groupsOf(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim]
  if (!Array.isArray(claim)) return []
  return claim.filter((group): group is string => typeof group === 'string')
}
