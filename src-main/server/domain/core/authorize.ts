import type { OrganizationRecord, TeamRecord } from '../../store/records.js'
import type { Caller } from './access.js'

/**
 * Who may do what, in one table. Every face (the HCP API, the registry protocols, the network
 * mirror, the GUI through the API, and later OCI and MCP) asks `authorize(caller, action, org)`
 * before it reads or changes anything of an organization, so each action's rule is read here and
 * nowhere else. A caller is the site admin, a team (a team token, or a `terraform login` token,
 * which acts as the team it was approved for), an organization's own token, or its audit-trails token.
 */

/** Whom a rule looks at: the caller, and the organization (none for installation-wide actions). */
interface Subject {
  caller: Caller
  org: OrganizationRecord | undefined
  /** The team the caller acts as in `org`, if it is one of its teams. */
  team: TeamRecord | undefined
  /** The team an action concerns, for rules about a team's own things (its terraform login tokens). */
  targetTeamId: string | undefined
}

type Rule = (subject: Subject) => boolean

const siteAdmin: Rule = ({ caller }) => caller.kind === 'site-admin'
const organizationToken: Rule = ({ caller, org }) => caller.kind === 'organization' && caller.organizationId === org?.id
const auditTrailsToken: Rule = ({ caller, org }) => caller.kind === 'audit-trails' && caller.organizationId === org?.id
/** Anyone of the organization: the site admin, any of its teams, its organization token. */
const member: Rule = (subject) => siteAdmin(subject) || subject.team !== undefined || organizationToken(subject)
/** The owners team (and the site admin): they change the organization, its teams and its modules' settings. */
const owner: Rule = (subject) => siteAdmin(subject) || subject.team?.owners === true
/** HCP's "Manage modules" permission (the owners have it, and so does the organization token: a pipeline publishes). */
const manageModules: Rule = (subject) => owner(subject) || subject.team?.manageModules === true || organizationToken(subject)
const either =
  (...rules: Rule[]): Rule =>
  (subject) =>
    rules.some((rule) => rule(subject))
/** The owners, or the team the thing belongs to. */
const ownTeam: Rule = ({ team, targetTeamId }) => team !== undefined && team.id === targetTeamId

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
  const team = caller.kind === 'team' && org && caller.organizationId === org.id ? org.teams.find((candidate) => candidate.id === caller.teamId) : undefined
  return RULES[action]({ caller, org, team, targetTeamId: target.teamId })
}
