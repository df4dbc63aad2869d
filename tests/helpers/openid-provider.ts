import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateKeyPairSync } from 'node:crypto'
import Provider, { type Configuration } from 'oidc-provider'
import { request } from 'undici'

/** A person the test provider knows: their claims, `groups` among them (changed between sign-ins by the tests). */
export interface TestPerson {
  sub: string
  preferred_username?: string
  name?: string
  email?: string
  groups?: string[]
}

export interface TestOpenIdProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** The people, by the name typed on the login page; a test changes their groups between sign-ins. */
  people: Map<string, TestPerson>
  /** While true, the provider publishes a key other than the one it signs with: every ID token is mis-signed to whoever checks. */
  publishOtherKey: boolean
  close(): Promise<void>
}

export const TEST_CLIENT_ID = 'homeport-test'
export const TEST_CLIENT_SECRET = 'homeport-test-secret-0123456789'

/**
 * A real OpenID Provider (panva's `oidc-provider`, certified) on a port the OS picks, as the tests'
 * identity provider: the authorization code flow with PKCE, its own login page (a form that takes a
 * username; no password, as devInteractions would accept any anyway, but through the same interaction
 * API a real login page uses), consent given at once, and the `groups` claim in the ID token. It
 * accepts Homeport's callback on any loopback port (the test server's port is known only after it
 * starts). Runs on Node 20 with the warning its authors print (they support 22 and later).
 */
export async function startOpenIdProvider(people: TestPerson[]): Promise<TestOpenIdProvider> {
  const known = new Map(people.map((person) => [person.preferred_username ?? person.email ?? person.sub, person]))
  const server: Server = createServer()
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const other = { ...generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' }
  const configuration: Configuration = {
    clients: [{ client_id: TEST_CLIENT_ID, client_secret: TEST_CLIENT_SECRET, redirect_uris: ['http://127.0.0.1/auth/oidc/callback'], response_types: ['code'], grant_types: ['authorization_code'] }],
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'email', 'groups'],
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ['test-provider-cookie-key'] },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' }] as never },
    // ID tokens last a minute: a test moves Homeport's clock past that (and past the 30 s a client allows for skew).
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 60, Interaction: 600, Session: 600, Grant: 600 },
    findAccount: (_ctx, sub) => {
      const person = [...known.values()].find((candidate) => candidate.sub === sub)
      return person ? { accountId: sub, claims: () => ({ ...person, groups: person.groups ?? [] }) } : undefined
    }
  }
  const provider = new Provider(issuer, configuration)
  // Homeport's callback on whatever loopback port it got.
  provider.Client.prototype.redirectUriAllowed = function (uri: string) {
    return /^http:\/\/127\.0\.0\.1:\d+\/auth\/oidc\/callback$/.test(uri)
  }
  const callback = provider.callback()
  const test: TestOpenIdProvider = {
    issuer,
    clientId: TEST_CLIENT_ID,
    clientSecret: TEST_CLIENT_SECRET,
    people: known,
    publishOtherKey: false,
    close: () => new Promise<void>((closed) => (server.closeAllConnections(), server.close(() => closed())))
  }
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (test.publishOtherKey && req.url === '/jwks') {
      res.setHeader('Content-Type', 'application/jwk-set+json')
      return void res.end(JSON.stringify({ keys: [other] }))
    }
    const interaction = /^\/interaction\/([^/?]+)(\/login)?/.exec(req.url ?? '')
    if (!interaction) return void callback(req, res)
    void interact(provider, known, req, res, Boolean(interaction[2])).catch((error: Error) => {
      res.statusCode = 500
      res.end(error.message)
    })
  })
  return test
}

/** The provider's login page (a username), and consent given at once, through its interaction API. */
async function interact(provider: Provider, people: Map<string, TestPerson>, req: IncomingMessage, res: ServerResponse, submitted: boolean): Promise<void> {
  const details = await provider.interactionDetails(req, res)
  if (details.prompt.name === 'login') {
    if (!submitted) {
      res.setHeader('Content-Type', 'text/html; charset=utf-8')
      res.end(`<!doctype html><html lang="en"><head><title>Test identity provider</title></head><body><main><h1>Sign in to the test identity provider</h1>
<form method="post" action="/interaction/${details.uid}/login"><label for="username">Username</label><input id="username" name="username" autofocus><button type="submit">Continue</button></form></main></body></html>`)
      return
    }
    const form = new URLSearchParams(await text(req))
    const person = people.get(form.get('username') ?? '')
    if (!person) {
      res.statusCode = 400
      res.end('unknown username')
      return
    }
    await provider.interactionFinished(req, res, { login: { accountId: person.sub } }, { mergeWithLastSubmission: false })
    return
  }
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string })
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] }
  if (missing.missingOIDCScope) grant!.addOIDCScope(missing.missingOIDCScope.join(' '))
  if (missing.missingOIDCClaims) grant!.addOIDCClaims(missing.missingOIDCClaims)
  await provider.interactionFinished(req, res, { consent: { grantId: await grant!.save() } }, { mergeWithLastSubmission: true })
}

function text(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/**
 * A browser's part in a sign-in, for tests that do not need Chromium: follows redirects by hand, keeps
 * cookies per host (as a browser does, whatever the port), and submits the provider's login form.
 */
export class Browser {
  private readonly cookies = new Map<string, Map<string, string>>()

  /** Requests `url`, following redirects (the provider's login form submitted as `username`) until an answer that is not one; `stopAt` ends it early at a URL that matches. */
  async visit(url: string, username: string, stopAt?: RegExp): Promise<{ status: number; url: string; body: string; headers: Headers }> {
    let current = url
    let method = 'GET'
    let body: string | undefined
    for (let hop = 0; hop < 20; hop++) {
      if (stopAt?.test(current)) return { status: 0, url: current, body: '', headers: new Headers() }
      const response = await this.fetch(current, { method, body, headers: body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {} })
      const location = response.headers.get('location')
      if (response.status >= 300 && response.status < 400 && location) {
        current = new URL(location, current).href
        method = 'GET'
        body = undefined
        continue
      }
      const text = await response.text()
      const form = /<form method="post" action="([^"]+)"/.exec(text)
      if (response.status === 200 && form && text.includes('name="username"')) {
        current = new URL(form[1]!, current).href
        method = 'POST'
        body = new URLSearchParams({ username }).toString()
        continue
      }
      return { status: response.status, url: current, body: text, headers: response.headers }
    }
    throw new Error(`too many redirects from ${url}`)
  }

  /**
   * A request with this browser's cookies for the host, keeping those it sets. Sent with undici's
   * `request`, not `fetch`, which would put its own `Sec-Fetch-Mode: cors` over a browser's headers.
   */
  async fetch(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
    const { hostname } = new URL(url)
    const jar = this.cookies.get(hostname) ?? new Map<string, string>()
    this.cookies.set(hostname, jar)
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
    const answer = await request(url, { method: (init.method ?? 'GET'), body: init.body, headers: { ...init.headers, ...(cookie ? { Cookie: cookie } : {}) } })
    const headers = new Headers()
    for (const [name, value] of Object.entries(answer.headers)) for (const each of Array.isArray(value) ? value : [value ?? '']) headers.append(name, each)
    const bytes = await answer.body.arrayBuffer()
    const response = new Response([204, 205, 304].includes(answer.statusCode) ? null : bytes, { status: answer.statusCode, headers })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      const name = pair.slice(0, at).trim()
      const value = pair.slice(at + 1).trim()
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') jar.delete(name)
      else jar.set(name, value)
    }
    return response
  }

  cookie(host: string, name: string): string | undefined {
    return this.cookies.get(host)?.get(name)
  }

  setCookie(host: string, name: string, value: string): void {
    const jar = this.cookies.get(host) ?? new Map<string, string>()
    jar.set(name, value)
    this.cookies.set(host, jar)
  }
}
