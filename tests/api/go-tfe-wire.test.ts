import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeSigningKey, type SigningKey } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, doc, startTestServer, type TestServer } from '../helpers/server.js'

/**
 * What go-tfe's own integration tests found missing: an empty list has no page (HCP says
 * `total-pages: 0`), and a token says who made it (`created-by`, a user: go-tfe reads it).
 */
let test: TestServer
let key: SigningKey

beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'empty')
  key = await makeSigningKey('Empty Org')
})
afterAll(async () => {
  await test.close()
})

const EMPTY = { 'current-page': 1, 'prev-page': null, 'next-page': null, 'total-pages': 0, 'total-count': 0 }

describe('an empty list', () => {
  it.each([
    ['registry modules', '/organizations/empty/registry-modules'],
    ['registry providers', '/organizations/empty/registry-providers'],
    ['GPG keys', '/api/registry/private/v2/gpg-keys?filter%5Bnamespace%5D=empty']
  ])('of %s has no page', async (_what, path) => {
    const answer = await test.api('GET', path)
    expect(answer.status).toBe(200)
    expect(answer.body.data).toEqual([])
    expect(answer.body.meta.pagination).toMatchObject(EMPTY)
  })

  it('of a provider’s versions, and of a version’s platforms, has no page either', async () => {
    const provider = '/organizations/empty/registry-providers/private/empty/widget'
    expect((await test.api('POST', '/organizations/empty/registry-providers', { body: doc('registry-providers', { name: 'widget', namespace: 'empty', 'registry-name': 'private' }) })).status).toBe(201)
    const versions = await test.api('GET', `${provider}/versions`)
    expect(versions.body.meta.pagination).toMatchObject(EMPTY)
    expect((await test.api('POST', '/api/registry/private/v2/gpg-keys', { body: doc('gpg-keys', { namespace: 'empty', 'ascii-armor': key.publicArmor }) })).status).toBe(201)
    expect((await test.api('POST', `${provider}/versions`, { body: doc('registry-provider-versions', { version: '1.0.0', 'key-id': key.keyId, protocols: ['5.0'] }) })).status).toBe(201)
    const platforms = await test.api('GET', `${provider}/versions/1.0.0/platforms`)
    expect(platforms.body.data).toEqual([])
    expect(platforms.body.meta.pagination).toMatchObject(EMPTY)
    // Its links still name page 1, which exists and is empty.
    expect(new URL(platforms.body.links.last as string).searchParams.get('page[number]')).toBe('1')
  })
})

describe('a token made through the API', () => {
  it('says who made it: the account of the caller, as account/details names it', async () => {
    const made = await test.api('POST', '/organizations/empty/authentication-token')
    expect(made.status).toBe(201)
    const admin = await test.api('GET', '/account/details')
    expect(made.body.data.relationships['created-by']).toEqual({ data: { id: admin.body.data.id, type: 'users' } })
    // Read again, it says the same; an organization token that rotates itself is its own maker.
    expect((await test.api('GET', '/organizations/empty/authentication-token')).body.data.relationships['created-by'].data.id).toBe(admin.body.data.id)
    const self = made.body.data.attributes.token as string
    const rotated = await test.api('POST', '/organizations/empty/authentication-token', { token: self })
    const itself = await test.api('GET', '/account/details', { token: rotated.body.data.attributes.token as string })
    expect(rotated.body.data.relationships['created-by'].data.id).toBe(itself.body.data.id)
  })

  it('of a team says the same', async () => {
    const { id: teamId } = await createTeamWithToken(test, 'empty', 'readers')
    const made = await test.api('POST', `/teams/${teamId}/authentication-token`)
    expect(made.body.data.relationships['created-by'].data).toMatchObject({ type: 'users', id: 'user-site-admin' })
  })
})
