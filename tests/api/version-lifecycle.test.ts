import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrganization, createTeamWithToken, createVersion, createModule, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'

let test: TestServer
let publisher: string
let early: string
let late: string
const MODULE = '/organizations/lifecycle/registry-modules/private/lifecycle/net/aws'
const PROTOCOL = '/api/registry/v1/modules/lifecycle/net/aws'

beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'lifecycle')
  for (const version of ['1.0.0', '1.1.0', '2.0.0']) await publish(test, 'lifecycle', 'net', 'aws', version, { 'main.tf': `output "v" {\n  value = "${version}"\n}\n` })
  publisher = (await createTeamWithToken(test, 'lifecycle', 'publishers', true)).token
  early = (await createTeamWithToken(test, 'lifecycle', 'early-adopters')).token
  late = (await createTeamWithToken(test, 'lifecycle', 'newcomers')).token
})
afterAll(() => test.close())

const change = (version: string, attributes: Record<string, unknown>, token = publisher) =>
  test.api('PATCH', `${MODULE}/${version}`, { token, body: doc('module-versions', attributes) })
const listed = async (token: string) =>
  ((await test.api('GET', `${PROTOCOL}/versions`, { token })).body.modules[0].versions as Array<{ version: string; deprecation: unknown }>)

describe('deprecating and revoking module versions', () => {
  it('deprecates a version with a reason and a link, records who and when, and shows it in the API and the protocol', async () => {
    const deprecated = await change('1.1.0', { deprecation: { 'deprecated-status': 'Deprecated', reason: 'Leaks the bucket policy; use 2.0.0.', link: 'https://example.com/advisory/42' } })
    expect(deprecated.status).toBe(200)
    expect(deprecated.body.data.attributes.deprecation).toEqual({
      'deprecated-status': 'Deprecated',
      reason: 'Leaks the bucket policy; use 2.0.0.',
      link: 'https://example.com/advisory/42',
      'deprecated-by': 'team publishers',
      'deprecated-at': expect.stringMatching(/^\d{4}-\d\d-\d\dT/)
    })
    expect((await test.api('GET', MODULE)).body.data.attributes['deprecated-versions']).toEqual(['1.1.0'])
    const versions = await listed(early)
    expect(versions.find((entry) => entry.version === '1.1.0')!.deprecation).toEqual({ reason: 'Leaks the bucket policy; use 2.0.0.', link: 'https://example.com/advisory/42' })
    expect(versions.find((entry) => entry.version === '2.0.0')!.deprecation).toBeNull()
    expect((await test.api('GET', `${PROTOCOL}/1.1.0`, { token: early })).body.deprecation).toMatchObject({ reason: 'Leaks the bucket policy; use 2.0.0.' })
  })

  it('revokes only a deprecated version; existing users keep it, nobody new is offered it', async () => {
    const notYet = await change('2.0.0', { revocation: { status: 'Revoked', message: 'Broken' } })
    expect(notYet.status).toBe(422)
    expect(notYet.body.errors[0]).toMatchObject({ detail: 'Deprecate version 2.0.0 before revoking it.', source: { pointer: '/data/attributes/revocation/status' } })

    // The early adopters' pinned configuration installed 1.1.0 before it was revoked.
    expect((await test.api('GET', `${PROTOCOL}/1.1.0/download`, { token: early })).status).toBe(204)
    const revoked = await change('1.1.0', { revocation: { status: 'Revoked', message: 'Deleted data in production.', link: 'https://example.com/incident/7' } })
    expect(revoked.status).toBe(200)
    expect(revoked.body.data.attributes.revocation).toMatchObject({ status: 'Revoked', message: 'Deleted data in production.', 'revoked-by': 'team publishers', 'existing-consumers': 1 })
    expect((await test.api('GET', MODULE)).body.data.attributes['revoked-versions']).toEqual(['1.1.0'])

    expect((await listed(early)).map((entry) => entry.version)).toContain('1.1.0')
    expect((await test.api('GET', `${PROTOCOL}/1.1.0/download`, { token: early })).status).toBe(204)
    expect((await listed(late)).map((entry) => entry.version).sort()).toEqual(['1.0.0', '2.0.0'])
    const refused = await test.api('GET', `${PROTOCOL}/1.1.0/download`, { token: late })
    expect(refused.status).toBe(404)
    expect(refused.body.errors[0]).toBe('version 1.1.0 of net/aws was revoked by its publisher (Deleted data in production. See https://example.com/incident/7); choose another version.')
  })

  it('reverts a revocation to a deprecation, and a deprecation to nothing, in that order', async () => {
    const early = await change('1.1.0', { deprecation: { 'deprecated-status': 'Undeprecated' } })
    expect(early.body.errors[0].detail).toBe('Version 1.1.0 is revoked: revert the revocation before the deprecation.')
    const unrevoked = await change('1.1.0', { revocation: { status: 'Unrevoked' } })
    expect(unrevoked.body.data.attributes.revocation).toBeNull()
    expect(unrevoked.body.data.attributes.deprecation).not.toBeNull()
    expect((await listed(late)).map((entry) => entry.version)).toContain('1.1.0')
    const undeprecated = await change('1.1.0', { deprecation: { 'deprecated-status': 'Undeprecated' } })
    expect(undeprecated.body.data.attributes.deprecation).toBeNull()
    expect((await test.api('GET', MODULE)).body.data.attributes['deprecated-versions']).toEqual([])
  })

  it('is for publishers, on published versions, with a reason and an http(s) link', async () => {
    expect((await change('1.0.0', { deprecation: { 'deprecated-status': 'Deprecated', reason: 'x' } }, early)).status).toBe(404)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ deprecation: { 'deprecated-status': 'Deprecated', reason: ' ' } }, '/data/attributes/deprecation/reason'],
      [{ deprecation: { 'deprecated-status': 'Deprecated', reason: 'x', link: 'javascript:alert(1)' } }, '/data/attributes/deprecation/link'],
      // A link of 900,000 characters would go to every terraform init with every versions list.
      [{ deprecation: { 'deprecated-status': 'Deprecated', reason: 'x', link: `https://example.com/${'a'.repeat(900_000)}` } }, '/data/attributes/deprecation/link'],
      // Terraform prints the reason to a terminal: no escape sequences, hyperlinks, carriage returns or backspaces.
      [{ deprecation: { 'deprecated-status': 'Deprecated', reason: 'Use 2.0.0\u001b[2J' } }, '/data/attributes/deprecation/reason'],
      [{ deprecation: { 'deprecated-status': 'Deprecated', reason: '\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007' } }, '/data/attributes/deprecation/reason'],
      [{ deprecation: { 'deprecated-status': 'Deprecated', reason: 'safe\rhidden' } }, '/data/attributes/deprecation/reason'],
      [{ deprecation: { 'deprecated-status': 'Deprecated', reason: 'back\bspace' } }, '/data/attributes/deprecation/reason'],
      [{ deprecation: { 'deprecated-status': 'Deprecated', reason: 'c1 \u009b2J' } }, '/data/attributes/deprecation/reason'],
      [{ deprecation: { 'deprecated-status': 'Maybe' } }, '/data/attributes/deprecation/deprecated-status'],
      [{ deprecation: { 'deprecated-status': 'Deprecated', reason: 'x' }, revocation: { status: 'Revoked' } }, '/data/attributes'],
      [{}, '/data/attributes']
    ]
    for (const [attributes, pointer] of cases) {
      const response = await change('1.0.0', attributes)
      expect(response.status, JSON.stringify(attributes)).toBe(422)
      expect(response.body.errors[0].source.pointer).toBe(pointer)
    }
    await createModule(test, 'lifecycle', 'pending', 'aws')
    await createVersion(test, 'lifecycle', 'pending', 'aws', '0.1.0')
    const unpublished = await test.api('PATCH', '/organizations/lifecycle/registry-modules/private/lifecycle/pending/aws/0.1.0', {
      body: doc('module-versions', { deprecation: { 'deprecated-status': 'Deprecated', reason: 'never mind' } })
    })
    expect(unpublished.body.errors[0].detail).toMatch(/is not published \(it is pending\)/)
  })
})
