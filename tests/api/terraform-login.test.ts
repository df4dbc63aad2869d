import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash, randomUUID } from 'node:crypto'
import { createOrganization, createTeamWithToken, doc, startTestServer, type TestServer } from '../helpers/server.js'

let test: TestServer
let teams: Record<string, string>

beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  const list = (await test.api('GET', '/organizations/acme/teams')).body.data as Array<{ id: string; attributes: { name: string } }>
  teams = Object.fromEntries(list.map((team) => [team.attributes.name, team.id]))
  const readers = await test.api('POST', '/organizations/acme/teams', { body: doc('teams', { name: 'readers' }) })
  teams.readers = readers.body.data.id as string
})
afterAll(() => test.close())

/** What Terraform's login.v1 client does, with PKCE: the verifier, its S256 challenge, the state and its callback. */
function terraformRequest(port = 10005) {
  const verifier = `${randomUUID()}.${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`
  return {
    verifier,
    challenge: createHash('sha256').update(verifier).digest('base64url'),
    state: randomUUID(),
    redirectUri: `http://localhost:${port}/login`
  }
}

/** The browser's part: the signed-in GUI user approves, for `team`; the URL Terraform's listener gets. */
async function approve(request: ReturnType<typeof terraformRequest>, team: string, token = test.adminToken, extra: Record<string, unknown> = {}) {
  return test.api('POST', '/oauth-authorizations', {
    token,
    body: doc('oauth-authorizations', {
      'client-id': 'terraform-cli',
      'redirect-uri': request.redirectUri,
      'code-challenge': request.challenge,
      'code-challenge-method': 'S256',
      state: request.state,
      organization: 'acme',
      'team-id': team,
      ...extra
    })
  })
}

async function exchange(fields: Record<string, string>) {
  const response = await test.fetch(`${test.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': 'Terraform/1.11.4' },
    body: new URLSearchParams(fields).toString()
  })
  return { status: response.status, body: (await response.json()) as Record<string, string> }
}

describe('terraform login (login.v1)', () => {
  it('is advertised in discovery, and its authorization page is the GUI’s', async () => {
    const discovery = await test.api('GET', '/.well-known/terraform.json', { token: null })
    expect(discovery.body['login.v1']).toEqual({ client: 'terraform-cli', grant_types: ['authz_code'], authz: '/oauth/authorize', token: '/oauth/token', ports: [10000, 10010] })
    const page = await test.fetch(`${test.url}/oauth/authorize?client_id=terraform-cli&state=abc`, { redirect: 'manual' })
    expect(page.status).toBe(302)
    expect(page.headers.get('location')).toBe('/authorize?client_id=terraform-cli&state=abc')
    // Terraform's fallback prompt points at HCP's tokens page: it leads to the GUI's.
    const tokens = await test.fetch(`${test.url}/app/settings/tokens?source=terraform-login`, { redirect: 'manual' })
    expect(tokens.headers.get('location')).toBe('/terraform')
  })

  it('exchanges an approved code, once, for a token with the chosen team’s rights, listed and revocable', async () => {
    const request = terraformRequest()
    const approved = await approve(request, teams.readers!)
    expect(approved.status).toBe(201)
    const callback = new URL(approved.body.data.attributes['redirect-url'] as string)
    expect(`${callback.origin}${callback.pathname}`).toBe(request.redirectUri)
    expect(callback.searchParams.get('state')).toBe(request.state)
    const form = { grant_type: 'authorization_code', client_id: 'terraform-cli', code: callback.searchParams.get('code')!, code_verifier: request.verifier, redirect_uri: request.redirectUri }

    expect(await exchange({ ...form, code_verifier: `${request.verifier}x` })).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'The code verifier does not match the code challenge (PKCE).' } })
    expect((await exchange(form)).body.error_description).toMatch(/unknown, used already, or expired/)
    // The wrong verifier used the code up: a new approval, then the right verifier.
    const again = new URL((await approve(request, teams.readers!)).body.data.attributes['redirect-url'] as string)
    const issued = await exchange({ ...form, code: again.searchParams.get('code')! })
    expect(issued.status).toBe(200)
    expect(issued.body).toEqual({ access_token: expect.stringMatching(/^hp1\./), token_type: 'bearer' })
    expect((await exchange({ ...form, code: again.searchParams.get('code')! })).body.error).toBe('invalid_grant')

    const token = issued.body.access_token!
    expect((await test.api('GET', '/organizations/acme', { token })).status).toBe(200)
    // A readers team's token: it may not publish.
    expect((await test.api('POST', '/organizations/acme/registry-modules', { token, body: doc('registry-modules', { name: 'x', provider: 'aws' }) })).status).toBe(404)
    const account = await test.api('GET', '/account/details', { token })
    expect(account.body.data).toMatchObject({ type: 'users', attributes: { username: 'api-team_readers', 'is-service-account': true } })

    const listed = await test.api('GET', '/organizations/acme/authentication-tokens')
    expect(listed.body.data).toEqual([
      expect.objectContaining({ type: 'authentication-tokens', attributes: expect.objectContaining({ 'team-name': 'readers', 'approved-by': 'the site admin', description: 'Terraform CLI (terraform login)' }) })
    ])
    const id = listed.body.data[0].id as string
    expect((await test.api('DELETE', `/authentication-tokens/${id}`)).status).toBe(204)
    expect((await test.api('GET', '/organizations/acme', { token })).status).toBe(401)
  })

  it('answers account details for the site admin, and 401 for a token that is not one', async () => {
    expect((await test.api('GET', '/account/details')).body.data.attributes).toMatchObject({ username: 'site-admin', 'is-site-admin': true })
    expect((await test.api('GET', '/account/details', { token: 'hp1.nothing' })).status).toBe(401)
  })

  it('sends a code only to Terraform on this machine, for a team the approver may hand out', async () => {
    const away = await approve({ ...terraformRequest(), redirectUri: 'https://evil.example/login' }, teams.readers!)
    expect(away.status).toBe(422)
    expect(away.body.errors[0].detail).toMatch(/must be Terraform's own listener on this machine/)
    const plain = await approve({ ...terraformRequest(), challenge: 'plain-text' }, teams.readers!)
    expect(plain.body.errors[0].source.pointer).toBe('/data/attributes/code-challenge')
    const { token: publisherToken } = await createTeamWithToken(test, 'acme', 'publishers', true)
    // A team hands out its own rights, not the owners'.
    expect((await approve(terraformRequest(), teams.owners!, publisherToken)).status).toBe(404)
    const own = (await test.api('GET', '/organizations/acme/teams')).body.data.find((team: { attributes: { name: string } }) => team.attributes.name === 'publishers').id as string
    expect((await approve(terraformRequest(), own, publisherToken)).status).toBe(201)
    // The team list says which teams the caller may hand out, so the approval page offers only those.
    const grantable = async (token: string) =>
      ((await test.api('GET', '/organizations/acme/teams', { token })).body.data as Array<{ attributes: { name: string; permissions: Record<string, boolean> } }>)
        .filter((team) => team.attributes.permissions['can-approve-terraform-login'])
        .map((team) => team.attributes.name)
        .sort()
    expect(await grantable(publisherToken)).toEqual(['publishers'])
    expect(await grantable(test.adminToken)).toEqual(['owners', 'publishers', 'readers'])
    expect((await exchange({ grant_type: 'password', client_id: 'terraform-cli' })).body.error).toBe('unsupported_grant_type')
  })
})
