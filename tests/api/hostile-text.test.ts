import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash, randomUUID } from 'node:crypto'
import { makeSigningKey, providerRelease, putFile } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { ociRequest } from '../helpers/oci.js'

/**
 * Input the attack of "Security round 3" found answered with a 500: each gets a 4xx in the face's
 * own format, on the file store and on PostgreSQL alike (this suite runs on both).
 */
let test: TestServer
let owners: string

beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  owners = (await createTeamWithToken(test, 'acme', 'publishers', true)).token
})
afterAll(() => test.close())

describe('NUL characters and lone surrogates', () => {
  it('in a path or query are a 400 in the route’s own format', async () => {
    for (const path of ['/organizations/%00', '/organizations/acme/registry-modules/private/acme/%00/aws/versions', '/api/registry/v1/modules/acme/%00/aws/versions']) {
      const response = await test.api('GET', path)
      expect(response.status, path).toBe(400)
      expect(response.body.errors[0].detail ?? response.body.errors[0], path).toMatch(/NUL character or a lone UTF-16 surrogate/)
    }
    const query = await test.api('GET', '/api/registry/private/v2/gpg-keys?filter[namespace]=%00')
    expect(query.status).toBe(400)
  })

  it('in a body are a 422 that points at the value, and nothing is written', async () => {
    const writes: Array<[string, string, unknown, string]> = [
      ['PATCH', '/organizations/acme', doc('organizations', { 'owners-team-saml-role-id': 'ad\u0000mins' }), '/data/attributes/owners-team-saml-role-id'],
      ['PATCH', '/organizations/acme', doc('organizations', { email: 'a\ud800@example.com' }), '/data/attributes/email'],
      ['POST', '/organizations/acme/teams', doc('teams', { name: 'x\udc00' }), '/data/attributes/name'],
      ['POST', '/api/registry/private/v2/gpg-keys', doc('gpg-keys', { namespace: 'acme', 'ascii-armor': '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n-----END PGP PUBLIC KEY BLOCK-----\n\u0000' }), '/data/attributes/ascii-armor']
    ]
    for (const [method, path, body, pointer] of writes) {
      const response = await test.api(method, path, { body })
      expect(response.status, `${method} ${path}`).toBe(422)
      expect(response.body.errors[0].source, `${method} ${path}`).toEqual({ pointer })
    }
    expect((await test.api('GET', '/organizations/acme')).body.data.attributes['owners-team-saml-role-id']).toBeNull()
  })

  it('in a team token’s description or a deprecation reason are refused too', async () => {
    const teams = (await test.api('GET', '/organizations/acme/teams')).body.data as Array<{ id: string }>
    const token = await test.api('POST', `/teams/${teams[0]!.id}/authentication-token`, { body: doc('authentication-tokens', { description: 'ci\u0000' }) })
    expect(token.status).toBe(422)
    const created = await test.api('POST', '/organizations/acme/registry-modules', { body: doc('registry-modules', { name: 'network', provider: 'aws' }) })
    expect(created.status).toBe(201)
    const version = await test.api('POST', '/organizations/acme/registry-modules/private/acme/network/aws/versions', { body: doc('registry-module-versions', { version: '1.0.0' }) })
    expect(version.status).toBe(201)
    const deprecate = await test.api('PATCH', '/organizations/acme/registry-modules/private/acme/network/aws/versions/1.0.0', {
      body: doc('registry-module-versions', { deprecation: { reason: 'old\u0000' } })
    })
    expect(deprecate.status).toBeGreaterThanOrEqual(400)
    expect(deprecate.status).toBeLessThan(500)
  })
})

describe('a module whose own files hold a NUL', () => {
  it('publishes alike on every store, the character read as U+FFFD', async () => {
    const { entry } = await publish(test, 'acme', 'nul', 'aws', '1.0.0', { 'main.tf': 'variable "x" {\n  description = "fine"\n}\n', 'README.md': '# Nul\n\nBefore\u0000after.\n' })
    expect(entry.status).toBe('ok')
    const detail = await test.api('GET', '/api/registry/v1/modules/acme/nul/aws/1.0.0')
    expect(detail.body.root.readme).toContain('Before\ufffdafter.')
  })
})

describe('a provider release’s signature', () => {
  it('that is an OpenPGP marker packet is refused as not a signature, with a 422', async () => {
    const key = await makeSigningKey('Acme Providers')
    const release = await providerRelease('tool', '1.0.0', ['linux_amd64'], key)
    expect((await test.api('POST', '/api/registry/private/v2/gpg-keys', { body: doc('gpg-keys', { namespace: 'acme', 'ascii-armor': key.publicArmor }), token: owners })).status).toBe(201)
    expect((await test.api('POST', '/organizations/acme/registry-providers', { body: doc('registry-providers', { name: 'tool', namespace: 'acme', 'registry-name': 'private' }), token: owners })).status).toBe(201)
    const version = await test.api('POST', '/organizations/acme/registry-providers/private/acme/tool/versions', { body: doc('registry-provider-versions', { version: '1.0.0', 'key-id': key.keyId, protocols: ['5.0'] }), token: owners })
    expect((await putFile(version.body.data.links['shasums-upload'], release.shasums, test.fetch)).status).toBe(200)
    // Tag 10, "PGP": a packet every OpenPGP parser skips, leaving no signature at all.
    const marker = await putFile(version.body.data.links['shasums-sig-upload'], Buffer.from([0xa8, 0x03, 0x50, 0x47, 0x50]), test.fetch)
    expect(marker.status).toBe(422)
    expect(JSON.stringify(marker.body)).toMatch(/not a detached OpenPGP signature: it holds no signature packet/)
  })
})

describe('terraform login', () => {
  const verifier = `${randomUUID()}.123456789`
  const approve = async (redirectUri: string) => {
    const teams = (await test.api('GET', '/organizations/acme/teams')).body.data as Array<{ id: string }>
    return test.api('POST', '/oauth-authorizations', {
      body: doc('oauth-authorizations', {
        'client-id': 'terraform-cli', 'redirect-uri': redirectUri, 'code-challenge': createHash('sha256').update(verifier).digest('base64url'),
        'code-challenge-method': 'S256', state: 's', organization: 'acme', 'team-id': teams[0]!.id
      })
    })
  }

  it('sends a code to Terraform’s own /login listener only', async () => {
    for (const redirectUri of ['http://localhost:10000/evil', 'http://localhost:10000/oauth/callback?next=x', 'http://localhost:10000/login?next=x', 'http://localhost:10000/login#x', 'http://localhost:10000/login/']) {
      const response = await approve(redirectUri)
      expect(response.status, redirectUri).toBe(422)
      expect(response.body.errors[0].source, redirectUri).toEqual({ pointer: '/data/attributes/redirect-uri' })
    }
  })

  it('refuses a token request whose code is sent twice, as an OAuth error and not a 500', async () => {
    const response = await test.fetch(`${test.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&client_id=terraform-cli&code=a&code=b&code_verifier=v&redirect_uri=http%3A%2F%2Flocalhost%3A10000%2Flogin'
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 'invalid_request', error_description: 'The field code is sent more than once.' })
  })
})

describe('input the attack of "Security round 4" found answered with a 500', () => {
  it('a JSON body nested 100,000 deep is a 400 on every JSON route, and a document of 64 levels is read', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    for (const [method, path] of [
      ['POST', '/api/v2/organizations'],
      ['PATCH', '/api/v2/organizations/acme'],
      ['POST', '/api/registry/private/v2/gpg-keys'],
      ['POST', '/api/v2/bundles']
    ] as const) {
      const response = await test.fetch(`${test.url}${path}`, { method, headers: { Authorization: `Bearer ${test.adminToken}`, 'Content-Type': 'application/vnd.api+json' }, body: deep })
      expect(response.status, path).toBe(400)
      expect(JSON.stringify(await response.json()), path).toMatch(/nests deeper than 64 levels/)
    }
    const nested = (depth: number): unknown => (depth === 0 ? 'x' : { a: nested(depth - 1) })
    const fine = await test.api('PATCH', '/organizations/acme', { body: { data: { type: 'organizations', attributes: { email: 'a@example.com' } }, deep: nested(58) } })
    expect(fine.status).toBe(200)
  })

  it('an OCI reference or digest that is not percent-encoding is OCI’s 404, for GET and HEAD', async () => {
    for (const path of ['/v2/modules/acme/net/aws/manifests/%E0%A4%A', '/v2/modules/acme/net/aws/manifests/%', '/v2/modules/acme/net/aws/blobs/%zz']) {
      for (const method of ['GET', 'HEAD']) {
        const response = await ociRequest(test, path, { method })
        expect(response.status, `${method} ${path}`).toBe(404)
        if (method === 'GET') expect((await response.json()).errors[0].code, path).toMatch(/^(MANIFEST_UNKNOWN|BLOB_UNKNOWN)$/)
      }
    }
  })
})
