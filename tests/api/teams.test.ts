import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrganization, createTeamWithToken, doc, ownersToken, startTestServer, type TestServer } from '../helpers/server.js'

let test: TestServer
beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  await createOrganization(test, 'other')
})
afterAll(async () => {
  await test.close()
})

describe('teams', () => {
  it('gives every new organization an owners team that manages modules', async () => {
    const response = await test.api('GET', '/organizations/acme/teams')
    expect(response.status).toBe(200)
    expect(response.body.data).toHaveLength(1)
    const owners = response.body.data[0]
    expect(owners.type).toBe('teams')
    expect(owners.id).toMatch(/^team-/)
    expect(owners.attributes.name).toBe('owners')
    expect(owners.attributes['organization-access']).toEqual({ 'manage-modules': true })
    expect(owners.relationships.organization.data).toEqual({ id: 'acme', type: 'organizations' })
    expect(response.body.meta.pagination['total-count']).toBe(1)
  })

  it('creates, shows and deletes a team', async () => {
    const created = await test.api('POST', '/organizations/acme/teams', {
      body: doc('teams', { name: 'publishers', 'organization-access': { 'manage-modules': true } })
    })
    expect(created.status).toBe(201)
    expect(created.body.data.attributes['organization-access']['manage-modules']).toBe(true)
    const id = created.body.data.id as string
    const shown = await test.api('GET', `/teams/${id}`)
    expect(shown.body.data).toEqual(created.body.data)
    expect((await test.api('DELETE', `/teams/${id}`)).status).toBe(204)
    expect((await test.api('GET', `/teams/${id}`)).status).toBe(404)
  })

  it('refuses a duplicate or invalid team name, and deleting the owners team', async () => {
    const duplicate = await test.api('POST', '/organizations/acme/teams', { body: doc('teams', { name: 'Owners' }) })
    expect(duplicate.status).toBe(422)
    expect(duplicate.body.errors[0].source.pointer).toBe('/data/attributes/name')
    const invalid = await test.api('POST', '/organizations/acme/teams', { body: doc('teams', { name: 'a b' }) })
    expect(invalid.status).toBe(422)
    const wrongAccess = await test.api('POST', '/organizations/acme/teams', {
      body: doc('teams', { name: 'x', 'organization-access': { 'manage-modules': 'yes' } })
    })
    expect(wrongAccess.status).toBe(422)
    expect(wrongAccess.body.errors[0].source.pointer).toBe('/data/attributes/organization-access/manage-modules')
    const owners = (await test.api('GET', '/organizations/acme/teams')).body.data[0].id as string
    const deleteOwners = await test.api('DELETE', `/teams/${owners}`)
    expect(deleteOwners.status).toBe(422)
  })
})

describe('team tokens and what they may do', () => {
  let owners: { id: string; token: string }
  let publishers: { id: string; token: string }
  let readers: { id: string; token: string }
  let outsider: { id: string; token: string }

  beforeAll(async () => {
    owners = await ownersToken(test, 'acme')
    publishers = await createTeamWithToken(test, 'acme', 'token-publishers', true)
    readers = await createTeamWithToken(test, 'acme', 'token-readers', false)
    outsider = await createTeamWithToken(test, 'other', 'outsiders', true)
  })

  it('shows a token once, and stores only its hash', async () => {
    const response = await test.api('POST', `/teams/${readers.id}/authentication-token`, {
      body: doc('authentication-tokens', { description: 'ci' })
    })
    expect(response.status).toBe(201)
    expect(response.body.data.type).toBe('authentication-tokens')
    expect(response.body.data.attributes.description).toBe('ci')
    const token = response.body.data.attributes.token as string
    expect(token.length).toBeGreaterThan(40)
    expect(JSON.stringify(await test.server.services.store.organizations.all())).not.toContain(token)
    const team = await test.api('GET', `/teams/${readers.id}`)
    expect(JSON.stringify(team.body)).not.toContain(token)
    // The new token replaced the old one.
    expect((await test.api('GET', '/organizations/acme', { token: readers.token })).status).toBe(401)
    readers.token = token
    expect((await test.api('GET', '/organizations/acme', { token })).status).toBe(200)
  })

  it('adds tokens to a team with HCP’s multiple team tokens, each described, listed and revoked alone', async () => {
    const made = await test.api('POST', `/teams/${readers.id}/authentication-tokens`, { body: doc('authentication-tokens', { description: 'terraform on the build box' }) })
    expect(made.status).toBe(201)
    expect(made.body.data.attributes).toMatchObject({ description: 'terraform on the build box', 'expired-at': null })
    const token = made.body.data.attributes.token as string
    // It acts as the team, and the team's own token still works beside it.
    expect((await test.api('GET', '/organizations/acme', { token })).body.data.attributes.permissions['can-create-module']).toBe(false)
    expect((await test.api('GET', '/organizations/acme', { token: readers.token })).status).toBe(200)
    expect((await test.api('GET', '/organizations/other', { token })).status).toBe(404)
    const listed = (await test.api('GET', '/organizations/acme/authentication-tokens')).body.data.find((entry: { id: string }) => entry.id === made.body.data.id)
    expect(listed.attributes).toMatchObject({ description: 'terraform on the build box', 'team-name': 'token-readers', 'approved-by': 'the site admin' })
    expect(JSON.stringify(await test.server.services.store.organizations.all())).not.toContain(token)
    // Only owners add one; revoking it stops it alone.
    expect((await test.api('POST', `/teams/${readers.id}/authentication-tokens`, { token: publishers.token, body: doc('authentication-tokens', {}) })).status).toBe(404)
    expect((await test.api('DELETE', `/authentication-tokens/${made.body.data.id as string}`)).status).toBe(204)
    expect((await test.api('GET', '/organizations/acme', { token })).status).toBe(401)
    expect((await test.api('GET', '/organizations/acme', { token: readers.token })).status).toBe(200)
  })

  it('lets a team read its own organization only, and lists only it', async () => {
    const list = await test.api('GET', '/organizations', { token: readers.token })
    expect(list.body.data.map((org: { id: string }) => org.id)).toEqual(['acme'])
    expect((await test.api('GET', '/organizations/other', { token: readers.token })).status).toBe(404)
    expect((await test.api('GET', '/organizations/other/entitlement-set', { token: readers.token })).status).toBe(404)
    expect((await test.api('GET', '/organizations/acme/entitlement-set', { token: readers.token })).status).toBe(200)
    expect((await test.api('GET', `/teams/${outsider.id}`, { token: readers.token })).status).toBe(404)
  })

  it('computes the organization permissions from the caller', async () => {
    const asReader = (await test.api('GET', '/organizations/acme', { token: readers.token })).body.data.attributes.permissions
    expect(asReader).toMatchObject({ 'can-update': false, 'can-destroy': false, 'can-create-module': false, 'can-traverse': true })
    const asPublisher = (await test.api('GET', '/organizations/acme', { token: publishers.token })).body.data.attributes.permissions
    expect(asPublisher).toMatchObject({ 'can-update': false, 'can-create-module': true })
    const asOwner = (await test.api('GET', '/organizations/acme', { token: owners.token })).body.data.attributes.permissions
    expect(asOwner).toMatchObject({ 'can-update': true, 'can-destroy': true, 'can-create-module': true, 'can-create-team': true })
  })

  it('lets only owners update the organization or manage teams', async () => {
    for (const token of [readers.token, publishers.token, outsider.token]) {
      const update = await test.api('PATCH', '/organizations/acme', { token, body: doc('organizations', { email: 'x@y.example' }) })
      expect(update.status).toBe(404)
      const team = await test.api('POST', '/organizations/acme/teams', { token, body: doc('teams', { name: 'sneaky' }) })
      expect(team.status).toBe(404)
      expect((await test.api('POST', `/teams/${readers.id}/authentication-token`, { token })).status).toBe(404)
      expect((await test.api('DELETE', '/organizations/acme', { token })).status).toBe(404)
    }
    const update = await test.api('PATCH', '/organizations/acme', {
      token: owners.token,
      body: doc('organizations', { email: 'owners@acme.example' })
    })
    expect(update.status).toBe(200)
    expect(update.body.data.attributes.email).toBe('owners@acme.example')
  })

  it('revokes a token with DELETE', async () => {
    const team = await createTeamWithToken(test, 'acme', 'short-lived')
    expect((await test.api('GET', '/organizations/acme', { token: team.token })).status).toBe(200)
    expect((await test.api('DELETE', `/teams/${team.id}/authentication-token`)).status).toBe(204)
    expect((await test.api('GET', '/organizations/acme', { token: team.token })).status).toBe(401)
    expect((await test.api('DELETE', `/teams/${team.id}/authentication-token`)).status).toBe(404)
  })

  it('stops the tokens of a destroyed organization from working', async () => {
    await createOrganization(test, 'short-org')
    const team = await ownersToken(test, 'short-org')
    expect((await test.api('DELETE', '/organizations/short-org', { token: team.token })).status).toBe(204)
    expect((await test.api('GET', '/organizations', { token: team.token })).status).toBe(401)
  })
})

describe('changing a team’s access', () => {
  it('gives a team Manage modules and takes it away (owners only), and its token follows at once', async () => {
    await createOrganization(test, 'access-org')
    const { id, token } = await createTeamWithToken(test, 'access-org', 'later-publishers')
    const create = () => test.api('POST', '/organizations/access-org/registry-modules', { token, body: doc('registry-modules', { name: `m-${Date.now()}`, provider: 'aws' }) })
    expect((await create()).status).toBe(404)
    const granted = await test.api('PATCH', `/teams/${id}`, { body: doc('teams', { 'organization-access': { 'manage-modules': true } }) })
    expect(granted.status).toBe(200)
    expect(granted.body.data.attributes['organization-access']).toEqual({ 'manage-modules': true })
    expect((await create()).status).toBe(201)
    await test.api('PATCH', `/teams/${id}`, { body: doc('teams', { 'organization-access': { 'manage-modules': false } }) })
    expect((await create()).status).toBe(404)
    // Not by the team itself, and the owners team keeps its access.
    expect((await test.api('PATCH', `/teams/${id}`, { token, body: doc('teams', { 'organization-access': { 'manage-modules': true } }) })).status).toBe(404)
    const owners = ((await test.api('GET', '/organizations/access-org/teams')).body.data as Array<{ id: string; attributes: { name: string; permissions: Record<string, boolean> } }>).find((team) => team.attributes.name === 'owners')!
    expect(owners.attributes.permissions['can-update-organization-access']).toBe(false)
    expect((await test.api('PATCH', `/teams/${owners.id}`, { body: doc('teams', { 'organization-access': { 'manage-modules': false } }) })).status).toBe(422)
  })
})
