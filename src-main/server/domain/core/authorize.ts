import type { OrganizationRecord, TeamRecord } from '../../store/records.js'
import { isSiteAdmin, type Caller } from './access.js'

/**
 * Who may do what, in one table. Every face (the HCP API, the registry protocols, the network
 * mirror, the GUI through the API, and later OCI and MCP) asks `authorize(caller, action, org)`
 * before it reads or changes anything of an organization, so each action's rule is read here and
 * nowhere else. A caller is the site admin, a team (a team token, or a `terraform login` token,
 * which acts as the team it was approved for), an organization's own token, its audit-trails token,
 * or a person, whose rights are those of every team they are in (and the site admin's, for those
 * of the group the site admin named).
 */

/** Whom a rule looks at: the caller, and the organization (none for installation-wide actions). */
interface Subject {
  caller: Caller
  org: OrganizationRecord | undefined
  /** The teams of `org` the caller acts as: a team token's one, a person's (whose rights are the sum of theirs). */
  teams: readonly TeamRecord[]
  /** The team an action concerns, for rules about a team's own things (its terraform login tokens). */
  targetTeamId: string | undefined
}

type Rule = (subject: Subject) => boolean

const siteAdmin: Rule = ({ caller }) => isSiteAdmin(caller)
const organizationToken: Rule = ({ caller, org }) => caller.kind === 'organization' && caller.organizationId === org?.id
const auditTrailsToken: Rule = ({ caller, org }) => caller.kind === 'audit-trails' && caller.organizationId === org?.id
/** Anyone of the organization: the site admin, any of its teams (a person of one), its organization token. */
const member: Rule = (subject) => siteAdmin(subject) || subject.teams.length > 0 || organizationToken(subject)
/** The owners team (and the site admin): they change the organization, its teams and its modules' settings. */
const owner: Rule = (subject) => siteAdmin(subject) || subject.teams.some((team) => team.owners)
/** HCP's "Manage modules" permission (the owners have it, and so does the organization token: a pipeline publishes). */
const manageModules: Rule = (subject) => owner(subject) || subject.teams.some((team) => team.manageModules) || organizationToken(subject)
const either =
  (...rules: Rule[]): Rule =>
  (subject) =>
    rules.some((rule) => rule(subject))
/** The owners, or the team the thing belongs to (a person of it). */
const ownTeam: Rule = ({ teams, targetTeamId }) => teams.some((team) => team.id === targetTeamId)

/** Every action, and who may take it. */
const RULES = {
  // Installation-wide: the site admin's alone.
  'create organization': siteAdmin,
  'manage site settings': siteAdmin,
  'read installation audit trail': siteAdmin,
  'share modules between organizations': siteAdmin,
  'mirror public providers': siteAdmin,
  'import bundle': siteAdmin,
  // The gate over what comes in from the public registries (domain/gate/): the installation's policy is the
  // site admin's; anyone with a token may read it, since every list they get shows its effect.
  'manage installation gate': siteAdmin,
  'read installation gate': () => true,
  // An organization, its teams and its tokens.
  'read organization': member,
  'manage organization': owner,
  'read teams': member,
  'manage teams': owner,
  'manage organization token': either(owner, organizationToken),
  'manage data retention': owner,
  'read audit trail': either(owner, organizationToken, auditTrailsToken),
  'approve terraform login': either(owner, ownTeam),
  // A person's own API tokens (domain/people/): theirs to make and delete; nobody else's to see.
  'manage own tokens': ({ caller }) => caller.kind === 'user',
  // Modules: reading, publishing (HCP's Manage modules), and the settings only owners change.
  'read module': member,
  'publish module': manageModules,
  'deprecate or revoke version': manageModules,
  'curate public module': manageModules,
  'manage module': owner,
  'make bundle': manageModules,
  // An organization's own gate, on top of the installation's: its owners set it and decide its approvals.
  'read gate': member,
  'manage gate': owner,
  // Private providers and their signing keys.
  'read provider': member,
  'download provider': member,
  'publish provider': manageModules,
  'deprecate provider version': manageModules,
  'read gpg keys': member,
  'manage gpg keys': manageModules,
  // Git connections: using one to publish, and adding or removing one.
  'use vcs connection': manageModules,
  'manage vcs connections': owner,
  // Homeport reaches a repository as the user it runs as: only the site admin points it outside --git-roots.
  'connect any repository': siteAdmin
} satisfies Record<string, Rule>

export type Action = keyof typeof RULES

/** Every action, for tests and docs that go through them all. */
export const ACTIONS = Object.keys(RULES) as Action[]

/**
 * Whether `caller` may take `action` in `org` (none for installation-wide actions); `target.teamId`
 * names the team an action concerns, where its rule asks. Nobody (no token) may do anything.
 */
export function authorize(caller: Caller | undefined, action: Action, org?: OrganizationRecord, target: { teamId?: string } = {}): boolean {
  if (!caller) return false
  return RULES[action]({ caller, org, teams: teamsOf(caller, org), targetTeamId: target.teamId })
}

/** The teams of `org` a caller acts as (those that still exist). */
function teamsOf(caller: Caller, org: OrganizationRecord | undefined): TeamRecord[] {
  if (!org) return []
  if (caller.kind === 'team') return caller.organizationId === org.id ? org.teams.filter((team) => team.id === caller.teamId) : []
  if (caller.kind !== 'user') return []
  return org.teams.filter((team) => caller.memberships.some((membership) => membership.organizationId === org.id && membership.teamId === team.id))
}
