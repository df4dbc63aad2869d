import { describe, expect, it } from 'vitest'
import { createHash, randomBytes } from 'node:crypto'
import type { Caller } from '../../src-main/server/domain/core/access.js'
import { ACTIONS, authorize, type Action } from '../../src-main/server/domain/core/authorize.js'
import { TERRAFORM_CLIENT_ID } from '../../src-main/server/domain/login/terraform-login.js'
import type { OrganizationRecord, TeamRecord } from '../../src-main/server/store/records.js'
import { ADMIN, domain } from './domain.js'

/**
 * The authorization table, action by action and caller by caller: every rule is asserted here
 * once, against every kind of caller, so a change to who may do what shows as a change to this table.
 */
type Who =
  | 'site admin'
  | 'owners'
  | 'manage modules team'
  | 'plain team'
  | 'organization token'
  | 'audit-trails token'
  | 'other organization’s owners'
  | 'person in owners'
  | 'person in publishers and readers'
  | 'person in readers'
  | 'person of the admin group'
  | 'person of no team'
  | 'person in another organization’s owners'
  | 'nobody'

const PEOPLE: Who[] = ['person in owners', 'person in publishers and readers', 'person in readers', 'person of the admin group', 'person of no team', 'person in another organization’s owners']
const EVERYONE_OF_IT: Who[] = ['site admin', 'person of the admin group', 'owners', 'person in owners', 'manage modules team', 'person in publishers and readers', 'plain team', 'person in readers', 'organization token']
const OWNERS: Who[] = ['site admin', 'person of the admin group', 'owners', 'person in owners']
const MODULE_MANAGERS: Who[] = ['site admin', 'person of the admin group', 'owners', 'person in owners', 'manage modules team', 'person in publishers and readers', 'organization token']
const SITE_ADMIN: Who[] = ['site admin', 'person of the admin group']

const EXPECTED: Record<Action, Who[]> = {
  'create organization': SITE_ADMIN,
  'manage site settings': SITE_ADMIN,
  'read installation audit trail': SITE_ADMIN,
  'share modules between organizations': SITE_ADMIN,
  'mirror public providers': SITE_ADMIN,
  'import bundle': SITE_ADMIN,
  'manage installation gate': SITE_ADMIN,
  // Every list a caller reads shows its effect: anyone with a token may read why.
  'read installation gate': ['site admin', 'owners', 'manage modules team', 'plain team', 'organization token', 'audit-trails token', 'other organization’s owners', ...PEOPLE],
  'connect any repository': SITE_ADMIN,
  'read organization': EVERYONE_OF_IT,
  'manage organization': OWNERS,
  'read teams': EVERYONE_OF_IT,
  'manage teams': OWNERS,
  'manage organization token': [...OWNERS, 'organization token'],
  'manage data retention': OWNERS,
  'read audit trail': ['site admin', 'person of the admin group', 'owners', 'person in owners', 'organization token', 'audit-trails token'],
  // Their own (the service checks whose): a person's alone.
  'manage own tokens': PEOPLE,
  // Of another team's terraform login (the plain team's own is below).
  'approve terraform login': OWNERS,
  'read module': EVERYONE_OF_IT,
  'publish module': MODULE_MANAGERS,
  'deprecate or revoke version': MODULE_MANAGERS,
  'curate public module': MODULE_MANAGERS,
  'manage module': OWNERS,
  'make bundle': MODULE_MANAGERS,
  'read gate': EVERYONE_OF_IT,
  'manage gate': OWNERS,
  'read provider': EVERYONE_OF_IT,
  'download provider': EVERYONE_OF_IT,
  'publish provider': MODULE_MANAGERS,
  'deprecate provider version': MODULE_MANAGERS,
  'read gpg keys': EVERYONE_OF_IT,
  'manage gpg keys': MODULE_MANAGERS,
  'use vcs connection': MODULE_MANAGERS,
  'manage vcs connections': OWNERS
}

const team = (id: string, rights: Partial<TeamRecord>): TeamRecord => ({ id, name: id, owners: false, manageModules: false, token: null, ...rights }) as TeamRecord
const org = { id: 'org-a', name: 'acme', teams: [team('team-owners', { owners: true }), team('team-publishers', { manageModules: true }), team('team-readers', {})] } as unknown as OrganizationRecord

const CALLERS: Record<Who, Caller | undefined> = {
  'site admin': { kind: 'site-admin' },
  owners: { kind: 'team', organizationId: 'org-a', teamId: 'team-owners' },
  'manage modules team': { kind: 'team', organizationId: 'org-a', teamId: 'team-publishers' },
  'plain team': { kind: 'team', organizationId: 'org-a', teamId: 'team-readers' },
  'organization token': { kind: 'organization', organizationId: 'org-a' },
  'audit-trails token': { kind: 'audit-trails', organizationId: 'org-a' },
  'other organization’s owners': { kind: 'team', organizationId: 'org-b', teamId: 'team-owners' },
  'person in owners': person({ 'org-a': ['team-owners'] }),
  'person in publishers and readers': person({ 'org-a': ['team-publishers', 'team-readers'] }),
  'person in readers': person({ 'org-a': ['team-readers'] }),
  'person of the admin group': person({}, true),
  'person of no team': person({}),
  'person in another organization’s owners': person({ 'org-b': ['team-owners'] }),
  nobody: undefined
}

/** A person signed in through the identity provider, in these teams of these organizations. */
function person(teams: Record<string, string[]>, siteAdmin = false): Caller {
  const memberships = Object.entries(teams).flatMap(([organizationId, ids]) => ids.map((teamId) => ({ organizationId, teamId })))
  return { kind: 'user', userId: 'user-alice', username: 'alice', siteAdmin, memberships }
}

describe('who may do what', () => {
  it('has a rule, and an expectation here, for every action', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...ACTIONS].sort())
  })

  describe.each(ACTIONS)('%s', (action) => {
    it.each(Object.keys(CALLERS) as Who[])('by %s', (who) => {
      expect(authorize(CALLERS[who], action, org)).toBe(EXPECTED[action].includes(who))
    })
  })

  it('gives a team the terraform login of its own members, and no other team’s', () => {
    const readers = CALLERS['plain team']
    expect(authorize(readers, 'approve terraform login', org, { teamId: 'team-readers' })).toBe(true)
    expect(authorize(readers, 'approve terraform login', org, { teamId: 'team-publishers' })).toBe(false)
    expect(authorize(CALLERS['other organization’s owners'], 'approve terraform login', org, { teamId: 'team-owners' })).toBe(false)
  })

  it('gives a person the terraform login of each of their teams, and no other team’s', () => {
    const both = CALLERS['person in publishers and readers']
    expect(authorize(both, 'approve terraform login', org, { teamId: 'team-readers' })).toBe(true)
    expect(authorize(both, 'approve terraform login', org, { teamId: 'team-publishers' })).toBe(true)
    expect(authorize(both, 'approve terraform login', org, { teamId: 'team-owners' })).toBe(false)
  })

  it('gives nothing in an organization to a person whose team is gone', () => {
    const removed = person({ 'org-a': ['team-deleted'] })
    for (const action of ACTIONS.filter((name) => !['read installation gate', 'manage own tokens'].includes(name))) expect(authorize(removed, action, org)).toBe(false)
  })

  it('gives nothing in an organization to a team whose record is gone', () => {
    const removed: Caller = { kind: 'team', organizationId: 'org-a', teamId: 'team-deleted' }
    // Reading the installation's gate is anyone's, in no organization.
    for (const action of ACTIONS.filter((name) => name !== 'read installation gate')) expect(authorize(removed, action, org)).toBe(false)
  })

  it('gives a terraform login token exactly what its team may do', async () => {
    const d = await domain()
    try {
      await d.services.organizations.create(ADMIN, { name: 'login-org', email: 'ops@example.com' })
      const readers = await d.team('login-org', 'readers')
      const teamId = readers.kind === 'team' ? readers.teamId : ''
      const verifier = randomBytes(32).toString('base64url')
      const redirect = new URL(
        await d.services.terraformLogin.authorize(readers, {
          clientId: TERRAFORM_CLIENT_ID,
          redirectUri: 'http://localhost:10000/login',
          codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
          codeChallengeMethod: 'S256',
          state: 'state',
          organization: 'login-org',
          teamId
        })
      )
      const token = await d.services.terraformLogin.exchange({
        grant_type: 'authorization_code',
        client_id: TERRAFORM_CLIENT_ID,
        code: redirect.searchParams.get('code')!,
        redirect_uri: 'http://localhost:10000/login',
        code_verifier: verifier
      })
      const caller = await d.services.authenticator.authenticate(token)
      expect(caller).toEqual({ kind: 'team', organizationId: readers.kind === 'team' ? readers.organizationId : '', teamId })
      const record = await d.services.organizations.read(ADMIN, 'login-org')
      for (const action of ACTIONS) expect(authorize(caller, action, record)).toBe(authorize(readers, action, record))
    } finally {
      await d.close()
    }
  })
})
