import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrganization, createTeamWithToken, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { Browser, startOpenIdProvider, type TestOpenIdProvider } from '../helpers/openid-provider.js'
import { seal, unseal } from '../../src-main/server/http/sealed.js'
import { ociRequest } from '../helpers/oci.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

/**
 * Single sign-on against a real OpenID Provider (oidc-provider, in tests/helpers): a person signs in
 * through its login page, their groups make them members of teams by name, and their session and
 * tokens act with those teams' rights on the API, as any caller's through the one authorization table.
 */
describe('single sign-on (OpenID Connect)', () => {
  let idp: TestOpenIdProvider
  let test: TestServer

  beforeAll(async () => {
    idp = await startOpenIdProvider([
      { sub: 'sub-alice', preferred_username: 'alice', name: 'Alice Example', email: 'alice@example.test', groups: ['acme/platform', 'acme/nonexistent', 'unrelated'] },
      { sub: 'sub-bob', email: 'bob@example.test', groups: [] },
      { sub: 'sub-carol', preferred_username: 'carol', groups: ['homeport-admins'] }
    ])
    test = await startTestServer({ oidcIssuer: idp.issuer, oidcClientId: idp.clientId, oidcClientSecret: idp.clientSecret, oidcAdminGroup: 'homeport-admins', oidcName: 'Test IdP' })
    await createOrganization(test, 'acme')
    await createOrganization(test, 'globex')
    await createTeamWithToken(test, 'acme', 'platform', true)
    await publish(test, 'acme', 'network', 'aws', '1.0.0', { 'main.tf': 'variable "cidr" {}\n' })
    await publish(test, 'globex', 'secret', 'aws', '1.0.0', { 'main.tf': 'variable "key" {}\n' })
  })
  afterAll(async () => {
    await test?.close()
    await idp?.close()
  })

  /** A browser that signed in as `username`, through the provider's login page. */
  async function signedIn(username: string): Promise<{ browser: Browser; landed: { status: number; url: string } }> {
    const browser = new Browser()
    const landed = await browser.visit(`${test.url}/auth/oidc/login?return_to=/organizations/acme`, username, new RegExp(`^${test.url}/organizations`))
    return { browser, landed }
  }

  /** A request to the API with the browser's cookies, as the GUI's page sends it. */
  async function asPage(browser: Browser, method: string, path: string, body?: unknown) {
    const response = await browser.fetch(`${test.url}/api/v2${path}`, {
      method,
      headers: { Accept: 'application/vnd.api+json', 'Sec-Fetch-Site': 'same-origin', ...(body ? { 'Content-Type': 'application/vnd.api+json' } : {}) },
      body: body ? JSON.stringify(body) : undefined
    })
    return { status: response.status, body: response.status === 204 ? undefined : await response.json() }
  }

  it('offers the provider by name on the sign-in page', async () => {
    expect(await (await fetch(`${test.url}/auth/sign-in-options`)).json()).toEqual({ singleSignOn: { name: 'Test IdP', url: '/auth/oidc/login' } })
  })

  it('signs a person in through the provider: a session cookie, HTTP-only and same-site, and back to the page they came from', async () => {
    const browser = new Browser()
    const start = await browser.fetch(`${test.url}/auth/oidc/login?return_to=/organizations/acme`)
    expect(start.status).toBe(303)
    const authorization = new URL(start.headers.get('location')!)
    expect(authorization.origin).toBe(idp.issuer)
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${test.url}/auth/oidc/callback`)
    expect(authorization.searchParams.get('state')).toBeTruthy()
    expect(authorization.searchParams.get('nonce')).toBeTruthy()
    const callback = await browser.visit(authorization.href, 'alice', /\/auth\/oidc\/callback/)
    // The provider is another site: the browser says so (Sec-Fetch-Site), and the callback lets that navigation in.
    const landed = await browser.fetch(callback.url, { headers: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' } })
    expect(landed.status).toBe(303)
    expect(landed.headers.get('location')).toBe('/organizations/acme')
    const cookie = landed.headers.getSetCookie().find((line) => line.startsWith('homeport-session='))!
    expect(cookie).toMatch(/; path=\//)
    expect(cookie).toMatch(/; expires=/)
    expect(cookie).toMatch(/; samesite=lax/)
    expect(cookie).toMatch(/; httponly/)
    // Plain HTTP on loopback here; behind HTTPS (--tls, or an https:// --base-url) it is Secure too.
    expect(cookie).not.toMatch(/; secure/)
  })

  it('makes the person a member of the teams their groups name, exactly, and answers account/details as a user', async () => {
    const { browser } = await signedIn('alice')
    const account = await asPage(browser, 'GET', '/account/details')
    expect(account.body.data).toMatchObject({ type: 'users', attributes: { username: 'alice', email: 'alice@example.test', 'is-service-account': false, 'is-site-admin': false } })
    const teams = await asPage(browser, 'GET', '/account/teams')
    expect(teams.body.data.map((team: { attributes: { name: string; 'organization-name': string } }) => `${team.attributes['organization-name']}/${team.attributes.name}`)).toEqual(['acme/platform'])
    const organizations = await asPage(browser, 'GET', '/organizations')
    expect(organizations.body.data.map((org: { id: string }) => org.id)).toEqual(['acme'])
    expect((await asPage(browser, 'GET', '/organizations/acme/registry-modules')).status).toBe(200)
    expect((await asPage(browser, 'GET', '/organizations/globex/registry-modules')).status).toBe(404)
    // The platform team manages modules, so its person publishes; organization settings are the owners'.
    expect((await asPage(browser, 'POST', '/organizations/acme/registry-modules', doc('registry-modules', { name: 'dns', provider: 'aws', 'registry-name': 'private' }))).status).toBe(201)
    expect((await asPage(browser, 'PATCH', '/organizations/acme', doc('organizations', { email: 'x@example.test' }))).status).toBe(404)
  })

  it('lets a person of no mapped group sign in, to see no organization', async () => {
    const { browser } = await signedIn('bob@example.test')
    const account = await asPage(browser, 'GET', '/account/details')
    expect(account.body.data.attributes.username).toBe('bob@example.test')
    expect((await asPage(browser, 'GET', '/organizations')).body.data).toEqual([])
  })

  it('gives the site admin’s rights only to the group the site admin named', async () => {
    const carol = await signedIn('carol')
    expect((await asPage(carol.browser, 'GET', '/account/details')).body.data.attributes['is-site-admin']).toBe(true)
    expect((await asPage(carol.browser, 'POST', '/organizations', doc('organizations', { name: 'initech', email: 'ops@example.test' }))).status).toBe(201)
    const alice = await signedIn('alice')
    expect((await asPage(alice.browser, 'POST', '/organizations', doc('organizations', { name: 'hooli', email: 'ops@example.test' }))).status).not.toBe(201)
  })

  it('makes user tokens that act with the person’s teams, and stop when the last team’s group is gone', async () => {
    const alice = idp.people.get('alice')!
    const { browser } = await signedIn('alice')
    const userId = (await asPage(browser, 'GET', '/account/details')).body.data.id as string
    const made = await asPage(browser, 'POST', `/users/${userId}/authentication-tokens`, doc('authentication-tokens', { description: 'laptop' }))
    expect(made.status).toBe(201)
    const token = made.body.data.attributes.token as string
    expect((await test.api('GET', '/account/details', { token })).body.data.attributes.username).toBe('alice')
    expect((await test.api('GET', '/organizations/acme/registry-modules', { token })).status).toBe(200)
    expect((await test.api('GET', '/organizations/globex/registry-modules', { token })).status).toBe(404)
    // The registry protocol, through the same table: its organization's modules listed, another's not.
    expect((await test.api('GET', '/api/registry/v1/modules/acme/network/aws/versions', { token })).status).toBe(200)
    expect((await test.api('GET', '/api/registry/v1/modules/globex/secret/aws/versions', { token })).status).toBe(404)
    expect((await asPage(browser, 'GET', `/users/${userId}/authentication-tokens`)).body.data.map((entry: { attributes: { description: string } }) => entry.attributes.description)).toEqual(['laptop'])
    // Nobody else reads or deletes them, the site admin included.
    expect((await test.api('GET', `/users/${userId}/authentication-tokens`)).status).toBe(404)
    expect((await test.api('DELETE', `/authentication-tokens/${made.body.data.id}`)).status).toBe(404)

    const groups = alice.groups
    alice.groups = ['unrelated']
    try {
      await signedIn('alice')
      expect((await test.api('GET', '/organizations/acme/registry-modules', { token })).status).toBe(401)
      const trail = await test.api('GET', '/organizations/acme/audit-trail')
      expect(trail.status).toBe(200)
      const names = trail.body.data.map((event: { resource: { meta: { name: string } } }) => event.resource.meta.name)
      expect(names).toContain('alice in team acme/platform (the group is gone)')
      expect(names).toContain('alice in team acme/platform (group acme/platform)')
    } finally {
      alice.groups = groups
    }
    await signedIn('alice')
    expect((await test.api('GET', '/organizations/acme/registry-modules', { token })).status).toBe(200)
    const second = await signedIn('alice')
    expect((await asPage(second.browser, 'DELETE', `/authentication-tokens/${made.body.data.id}`)).status).toBe(204)
    expect((await test.api('GET', '/account/details', { token })).status).toBe(401)
  })

  it('sends terraform login’s browser through the provider, and gives Terraform a token of the person’s, acting with their teams', async () => {
    const verifier = randomBytes(32).toString('base64url')
    const query = new URLSearchParams({
      client_id: 'terraform-cli',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      redirect_uri: 'http://localhost:10000/login',
      response_type: 'code',
      state: 'terraform-state'
    })
    const browser = new Browser()
    // Terraform opens the authorization page; with no session, the browser signs in first and comes back to it.
    const page = await browser.visit(`${test.url}/oauth/authorize?${query}`, 'alice', new RegExp(`^${test.url}/authorize\\?`))
    expect(new URL(page.url).searchParams.get('state')).toBe('terraform-state')
    const approval = await asPage(
      browser,
      'POST',
      '/oauth-authorizations',
      doc('oauth-authorizations', { 'client-id': 'terraform-cli', 'redirect-uri': query.get('redirect_uri'), 'code-challenge': query.get('code_challenge'), 'code-challenge-method': 'S256', state: 'terraform-state' })
    )
    expect(approval.status).toBe(201)
    const code = new URL(approval.body.data.attributes['redirect-url'] as string).searchParams.get('code')!
    const exchanged = await fetch(`${test.url}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'terraform-cli', code, code_verifier: verifier, redirect_uri: 'http://localhost:10000/login' })
    })
    expect(exchanged.status).toBe(200)
    const token = ((await exchanged.json()) as { access_token: string }).access_token
    expect((await test.api('GET', '/account/details', { token })).body.data.attributes.username).toBe('alice')
    expect((await test.api('GET', '/api/registry/v1/modules/acme/network/aws/versions', { token })).status).toBe(200)
    expect((await test.api('GET', '/api/registry/v1/modules/globex/secret/aws/versions', { token })).status).toBe(404)
    // The code was used: once only.
    const again = await fetch(`${test.url}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'terraform-cli', code, code_verifier: verifier, redirect_uri: 'http://localhost:10000/login' })
    })
    expect(again.status).toBe(400)
  })

  it('lets a person’s token through every face by the same table: OCI (as the Basic password) and MCP', async () => {
    const { browser } = await signedIn('alice')
    const userId = (await asPage(browser, 'GET', '/account/details')).body.data.id as string
    const token = (await asPage(browser, 'POST', `/users/${userId}/authentication-tokens`, doc('authentication-tokens', { description: 'faces' }))).body.data.attributes.token as string
    const basic = `Basic ${Buffer.from(`alice:${token}`).toString('base64')}`
    const granted = await ociRequest(test, '/v2/token?service=homeport.localhost&scope=repository:modules/acme/network/aws:pull', { token: null, headers: { Authorization: basic } })
    expect(granted.status).toBe(200)
    const bearer = granted.json().token as string
    expect((await ociRequest(test, '/v2/modules/acme/network/aws/tags/list', { token: bearer })).json().tags).toContain('1.0.0')
    expect((await ociRequest(test, '/v2/modules/globex/secret/aws/tags/list', { token: bearer })).status).toBe(404)

    const client = new Client({ name: 'homeport-tests', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
    try {
      const found = await client.callTool({ name: 'search_modules', arguments: { query: '' } })
      const addresses = (found.structuredContent as { modules: Array<{ address: string }> }).modules.map((module) => module.address)
      expect(addresses.some((address) => address.endsWith('acme/network/aws'))).toBe(true)
      expect(addresses.some((address) => address.includes('globex'))).toBe(false)
    } finally {
      await client.close()
    }
  })

  it('acts with a session only for the page itself, and ends it at sign-out', async () => {
    const { browser } = await signedIn('alice')
    const change = (site: string) =>
      browser.fetch(`${test.url}/api/v2/organizations/acme/registry-modules`, {
        method: 'POST',
        headers: { 'Sec-Fetch-Site': site, 'Content-Type': 'application/vnd.api+json' },
        body: JSON.stringify(doc('registry-modules', { name: `from-${site}`, provider: 'aws', 'registry-name': 'private' }))
      })
    // Another site's request is refused at the door (http/doors.ts); a sibling site's carries no session.
    expect((await change('cross-site')).status).toBe(403)
    expect((await change('same-site')).status).toBe(401)
    expect((await change('same-origin')).status).toBe(201)
    const out = await browser.fetch(`${test.url}/auth/sign-out`, { method: 'POST', headers: { 'Sec-Fetch-Site': 'same-origin' } })
    expect(out.status).toBe(204)
    expect(browser.cookie('127.0.0.1', 'homeport-session')).toBeUndefined()
    expect((await asPage(browser, 'GET', '/account/details')).status).toBe(401)
  })

  describe('refuses a sign-in that does not check out, with a page that says why and no session', () => {
    /** A sign-in taken as far as the provider's redirect back, not followed. */
    async function untilCallback(browser: Browser): Promise<URL> {
      const start = await browser.fetch(`${test.url}/auth/oidc/login`)
      return new URL((await browser.visit(start.headers.get('location')!, 'alice', /\/auth\/oidc\/callback/)).url)
    }

    async function refused(browser: Browser, url: string, status: number, words: RegExp) {
      const response = await browser.fetch(url)
      expect(response.status).toBe(status)
      expect(response.headers.get('content-type')).toMatch(/text\/html/)
      expect(await response.text()).toMatch(words)
      expect(response.headers.getSetCookie().some((line) => line.startsWith('homeport-session=') && !line.startsWith('homeport-session=;'))).toBe(false)
    }

    it('a wrong state', async () => {
      const browser = new Browser()
      const callback = await untilCallback(browser)
      callback.searchParams.set('state', 'not-the-state')
      await refused(browser, callback.href, 400, /refused/)
    })

    it('a callback with no sign-in started in this browser, and another site’s request to anything but the callback', async () => {
      const callback = await untilCallback(new Browser())
      await refused(new Browser(), callback.href, 400, /not started in this browser/)
      const stranger = new Browser()
      const navigation = { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' }
      expect((await stranger.fetch(`${test.url}/auth/oidc/callback`, { headers: navigation })).status).toBe(400)
      expect((await stranger.fetch(`${test.url}/auth/oidc/login`, { headers: navigation })).status).toBe(403)
      expect((await stranger.fetch(`${test.url}/auth/oidc/callback`, { headers: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors' } })).status).toBe(403)
      expect((await stranger.fetch(`${test.url}/auth/oidc/callback`, { method: 'POST', headers: navigation })).status).toBe(403)
    })

    it('a code used already', async () => {
      const browser = new Browser()
      const callback = await untilCallback(browser)
      const checks = browser.cookie('127.0.0.1', 'homeport-sign-in')!
      expect((await browser.fetch(callback.href)).status).toBe(303)
      // The same callback again, with the same checks (as an attacker who saw both would send it): the provider refuses the code.
      browser.setCookie('127.0.0.1', 'homeport-sign-in', checks)
      await refused(browser, callback.href, 400, /refused: .*(invalid_grant|grant request is invalid)/)
    })

    it('an ID token whose nonce is not the sign-in’s', async () => {
      const browser = new Browser()
      const callback = await untilCallback(browser)
      // The sign-in's own checks, opened with the installation's key, with only the nonce changed.
      const key = test.server.services.store.installation().signingKey
      const pending = unseal(key, 'oidc sign-in', browser.cookie('127.0.0.1', 'homeport-sign-in')!, Date.now()) as Record<string, string>
      browser.setCookie('127.0.0.1', 'homeport-sign-in', seal(key, 'oidc sign-in', { ...pending, nonce: 'another-nonce' }, Date.now() + 60_000))
      await refused(browser, callback.href, 400, /refused: .*nonce/)
    })

    it('an ID token that has expired, or is signed by a key the provider does not publish', async () => {
      let now = Date.now()
      const moved = await startTestServer({ oidcIssuer: idp.issuer, oidcClientId: idp.clientId, oidcClientSecret: idp.clientSecret, clock: () => now })
      try {
        const browser = new Browser()
        const start = await browser.fetch(`${moved.url}/auth/oidc/login`)
        const callback = await browser.visit(start.headers.get('location')!, 'alice', /\/auth\/oidc\/callback/)
        // Past the ID token's minute (and the 30 s allowed for skew), within the sign-in's 10 minutes.
        now += 5 * 60_000
        await refused(browser, callback.url, 400, /ID token has expired/)
        now = Date.now()
        idp.publishOtherKey = true
        const again = new Browser()
        const restart = await again.fetch(`${moved.url}/auth/oidc/login`)
        const misSigned = await again.visit(restart.headers.get('location')!, 'alice', /\/auth\/oidc\/callback/)
        await refused(again, misSigned.url, 400, /refused: .*signature/)
      } finally {
        idp.publishOtherKey = false
        await moved.close()
      }
    })

    it('an error from the provider', async () => {
      const browser = new Browser()
      await browser.fetch(`${test.url}/auth/oidc/login`)
      await refused(browser, `${test.url}/auth/oidc/callback?error=access_denied&error_description=The+user+said+no`, 400, /access_denied.*The user said no/)
    })
  })

  it('says so when the provider is down, or is not the issuer it was named as', async () => {
    const down = await startTestServer({ oidcIssuer: 'http://127.0.0.1:9', oidcClientId: 'x', oidcClientSecret: 'y' })
    const mismatch = await startTestServer({ oidcIssuer: idp.issuer.replace('127.0.0.1', 'localhost'), oidcClientId: idp.clientId, oidcClientSecret: idp.clientSecret })
    try {
      for (const [server, words] of [[down, /did not answer/], [mismatch, /did not answer its discovery document.*issuer/]] as const) {
        const response = await fetch(`${server.url}/auth/oidc/login`, { redirect: 'manual' })
        expect(response.status).toBe(502)
        expect(await response.text()).toMatch(words)
      }
    } finally {
      await down.close()
      await mismatch.close()
    }
  })
})
