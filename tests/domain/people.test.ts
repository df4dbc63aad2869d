import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PeopleService, SESSION_TTL_MS, type SignedInIdentity } from '../../src-main/server/domain/people/people.js'
import { NotFoundError } from '../../src-main/server/domain/core/errors.js'
import type { Caller } from '../../src-main/server/domain/core/access.js'
import { ADMIN, domain, type Domain } from './domain.js'

const ALICE: SignedInIdentity = { issuer: 'https://idp.example.test', subject: 'sub-alice', username: 'alice', displayName: 'Alice', email: 'alice@example.test', groups: ['acme/platform'] }

describe('people signed in through the identity provider', () => {
  let d: Domain
  let now: number
  let people: PeopleService
  beforeEach(async () => {
    d = await domain()
    now = Date.parse('2026-11-28T12:00:00Z')
    people = new PeopleService(d.services.store, d.services.auditTrail, { adminGroup: 'homeport-admins', clock: () => now })
    await d.services.organizations.create(ADMIN, { name: 'acme', email: 'ops@example.test' })
    await d.team('acme', 'platform', true)
  })
  afterEach(() => d.close())

  const callerOf = async (session: string): Promise<Caller> => (await d.services.authenticator.authenticateSession(session, now))!

  it('makes a person at their first sign-in, one record however many sign-ins race, with their groups’ teams', async () => {
    const signIns = await Promise.all([people.signIn(ALICE), people.signIn(ALICE), people.signIn(ALICE)])
    expect(new Set(signIns.map(({ user }) => user.id)).size).toBe(1)
    expect(await d.services.store.users.ids()).toHaveLength(1)
    const caller = await callerOf(signIns[0].session)
    expect(caller).toMatchObject({ kind: 'user', username: 'alice', siteAdmin: false })
    const { teams } = await people.person(caller, signIns[0].user.id)
    expect(teams.map((team) => `${team.organizationName}/${team.teamName}`)).toEqual(['acme/platform'])
    const trail = await d.services.auditTrail.listInstallation(ADMIN)
    expect(trail.filter((event) => event.resource.type === 'user').map((event) => event.resource.name)).toEqual(['alice, at their first sign-in'])
  })

  it('takes a team away at the sign-in whose groups no longer name it: the person’s tokens stop, their session stays and shows nothing', async () => {
    const first = await people.signIn(ALICE)
    const { token } = await people.createToken(await callerOf(first.session), first.user.id, { description: 'laptop' })
    expect(await d.services.authenticator.authenticate(token, now)).toMatchObject({ kind: 'user', memberships: [{ teamId: expect.stringMatching(/^team-/) }] })
    const second = await people.signIn({ ...ALICE, groups: [] })
    expect(await d.services.authenticator.authenticate(token, now)).toBeUndefined()
    expect(await callerOf(second.session)).toMatchObject({ kind: 'user', memberships: [] })
    const { events } = await d.services.auditTrail.list(ADMIN, 'acme')
    expect(events.filter((event) => event.resource.type === 'team-membership').map((event) => event.action)).toEqual(['destroy', 'create'])
  })

  it('ends a session after its time, and gives the site admin’s rights only through the named group', async () => {
    const { session } = await people.signIn({ ...ALICE, groups: ['homeport-admins'] })
    expect(await callerOf(session)).toMatchObject({ siteAdmin: true })
    now += SESSION_TTL_MS + 1
    expect(await d.services.authenticator.authenticateSession(session, now)).toBeUndefined()
    const nobody = new PeopleService(d.services.store, d.services.auditTrail, { clock: () => now })
    const again = await nobody.signIn({ ...ALICE, groups: ['homeport-admins'] })
    expect(await callerOf(again.session)).toMatchObject({ siteAdmin: false })
  })

  it('keeps a person’s tokens theirs: nobody else, the site admin included, reads, makes or deletes one', async () => {
    const alice = await people.signIn(ALICE)
    const bob = await people.signIn({ ...ALICE, subject: 'sub-bob', username: 'bob' })
    const { record } = await people.createToken(await callerOf(alice.session), alice.user.id, { description: null })
    for (const other of [await callerOf(bob.session), ADMIN]) {
      await expect(people.tokens(other, alice.user.id)).rejects.toBeInstanceOf(NotFoundError)
      await expect(people.createToken(other, alice.user.id, { description: null })).rejects.toBeInstanceOf(NotFoundError)
      await expect(people.revokeToken(other, record.id)).rejects.toBeInstanceOf(NotFoundError)
    }
    expect(await people.tokens(await callerOf(alice.session), alice.user.id)).toHaveLength(1)
  })
})
