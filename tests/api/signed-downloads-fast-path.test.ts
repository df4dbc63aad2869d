import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { signedLocations } from '../../src-main/server/api/app.js'
import { RateLimiter } from '../../src-main/server/http/rate-limit.js'
import { serveSignedFile, type SignedFastPathDeps } from '../../src-main/server/http/signed-files.js'
import type { Caller } from '../../src-main/server/domain/core/access.js'
import { makeSigningKey, providerRelease, publishProvider } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, publish, startTestServer, type TestServer } from '../helpers/server.js'

/** What the stand-in for Koa answers: a request the fast path passed on. */
const PASSED_ON = 599

/**
 * A server that answers with serveSignedFile alone, over a real Homeport's services, and passes
 * everything else to a stand-in for Koa: which requests the fast path takes is then plain to see.
 */
async function fastPathOnly(test: TestServer, limiter: RateLimiter, callers: Record<string, Caller> = {}): Promise<{ url: string; server: Server }> {
  const deps: SignedFastPathDeps = {
    locations: signedLocations(test.server.services),
    limiter,
    allowedHosts: new Set(['127.0.0.1', 'localhost']),
    callerOf: (token) => callers[token]
  }
  const passOn = (res: ServerResponse) => {
    res.writeHead(PASSED_ON)
    res.end()
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const answered = serveSignedFile(req, res, deps, 'http')
    if (answered === false) passOn(res)
    else void answered.then((done) => done || passOn(res))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

describe('signed downloads answered before Koa', () => {
  let test: TestServer
  let archive: Buffer
  /** The archive's signed location on Homeport, and its path. */
  let location: string
  let path: string
  let zipPath: string
  let zip: Buffer

  beforeAll(async () => {
    test = await startTestServer()
    await createOrganization(test, 'acme')
    ;({ archive } = await publish(test, 'acme', 'network', 'aws', '1.0.0', {
      'main.tf': 'variable "cidr" {\n  type        = string\n  description = "The VPC\'s CIDR block."\n}\n',
      'README.md': '# network\n\nA VPC with public and private subnets.\n'
    }))
    location = (await test.api('GET', '/api/registry/v1/modules/acme/network/aws/1.0.0/download')).headers.get('x-terraform-get')!
    path = new URL(location).pathname
    const key = await makeSigningKey()
    const release = await providerRelease('widget', '0.1.0', ['linux_amd64'], key, { binaryBytes: 300 * 1024 })
    await publishProvider(test, 'acme', release, key)
    const download = await test.api('GET', '/api/registry/v1/providers/acme/widget/0.1.0/download/linux/amd64')
    zipPath = new URL(download.body.download_url as string).pathname
    zip = release.zips.get('terraform-provider-widget_0.1.0_linux_amd64.zip')!.bytes
  })
  afterAll(async () => {
    await test.close()
  })

  it('answers exactly as Koa does: the same status, headers and bytes', async () => {
    // A token the fast path has not seen sends the same request through Koa, which serves it too.
    const headersOf = (response: Response) => Object.fromEntries([...response.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)))
    for (const [url, init] of [
      [location, {}],
      [location, { method: 'HEAD' }],
      [location, { headers: { Range: 'bytes=10-99' } }],
      [`${test.url}${zipPath}`, {}],
      [`${test.url}${zipPath}`, { headers: { Range: 'bytes=-1000' } }]
    ] as const) {
      const fast = await fetch(url, init)
      const koa = await fetch(url, { ...init, headers: { ...('headers' in init ? init.headers : {}), Authorization: 'Bearer hp1.not-a-token' } })
      expect(fast.status).toBe(koa.status)
      expect(headersOf(fast)).toEqual(headersOf(koa))
      expect(Buffer.from(await fast.arrayBuffer()).equals(Buffer.from(await koa.arrayBuffer()))).toBe(true)
    }
    const whole = await fetch(location)
    expect(whole.headers.get('content-disposition')).toBe('attachment; filename="network-aws-1.0.0.tar.gz"')
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff')
    expect(Buffer.from(await whole.arrayBuffer()).equals(archive)).toBe(true)
  })

  it('serves module archives and provider files, whole, in a range, and to HEAD', async () => {
    const { url, server } = await fastPathOnly(test, new RateLimiter(0))
    try {
      const whole = await fetch(`${url}${path}`)
      expect(whole.status).toBe(200)
      expect(Buffer.from(await whole.arrayBuffer()).equals(archive)).toBe(true)
      const ranged = await fetch(`${url}${zipPath}`, { headers: { Range: 'bytes=100-199999' } })
      expect(ranged.status).toBe(206)
      expect(ranged.headers.get('content-range')).toBe(`bytes 100-199999/${zip.length}`)
      expect(Buffer.from(await ranged.arrayBuffer()).equals(zip.subarray(100, 200_000))).toBe(true)
      const head = await fetch(`${url}${zipPath}`, { method: 'HEAD' })
      expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, String(zip.length), ''])
    } finally {
      server.close()
    }
  })

  it('passes on to Koa whatever it cannot answer plainly: every refusal, other methods, odd spellings, foreign hosts and sites', async () => {
    const { url, server } = await fastPathOnly(test, new RateLimiter(0))
    const tampered = path.replace(/\.([\w-])([\w-]{42})\//, (_m, first: string, rest: string) => `.${first === 'A' ? 'B' : 'A'}${rest}/`)
    try {
      const status = async (target: string, init: RequestInit = {}) => (await fetch(`${url}${target}`, init)).status
      expect(await status(path)).toBe(200)
      expect(await status(tampered)).toBe(PASSED_ON)
      expect(await status('/api/registry/downloads/garbage/x.tar.gz')).toBe(PASSED_ON)
      expect(await status(path, { method: 'POST' })).toBe(PASSED_ON)
      expect(await status(`${path}?x=1`)).toBe(PASSED_ON)
      expect(await status(path.replace('.tar.gz', '%2Etar.gz'))).toBe(PASSED_ON)
      expect(await status(`${path}/more`)).toBe(PASSED_ON)
      expect(await status(path, { headers: { Range: `bytes=${archive.length}-` } })).toBe(PASSED_ON)
      expect(await status(path, { headers: { 'Sec-Fetch-Site': 'cross-site' } })).toBe(PASSED_ON)
      expect(await status('/api/registry/v1/modules/acme/network/aws/versions')).toBe(PASSED_ON)
      // A Host the server does not answer to (DNS rebinding): Koa refuses it.
      const rebound = await new Promise<number>((resolve, reject) => {
        const request = getWithHost(`${url}${path}`, 'rebound.example')
        request.once('response', (response) => resolve(response.statusCode!)).once('error', reject)
      })
      expect(rebound).toBe(PASSED_ON)
    } finally {
      server.close()
    }
  })

  it('takes a token only when Koa authenticated it, and counts the caller’s rate as Koa does', async () => {
    const alice: Caller = { kind: 'team', organizationId: 'org-a', teamId: 'team-alice' }
    const limiter = new RateLimiter(2)
    const { url, server } = await fastPathOnly(test, limiter, { 'hp1.alice': alice })
    try {
      const status = async (token?: string) => (await fetch(`${url}${path}`, token ? { headers: { Authorization: `Bearer ${token}` } } : {})).status
      expect(await status('hp1.unknown')).toBe(PASSED_ON)
      // Anonymous requests share their address's allowance; Alice has her own.
      expect([await status(), await status(), await status()]).toEqual([200, 200, PASSED_ON])
      expect([await status('hp1.alice'), await status('hp1.alice'), await status('hp1.alice')]).toEqual([200, 200, PASSED_ON])
      // A request passed on unanswered took nothing from the allowance: Koa counts it.
      const fresh = new RateLimiter(1)
      const other = await fastPathOnly(test, fresh)
      try {
        expect((await fetch(`${other.url}/api/registry/downloads/garbage/x.tar.gz`)).status).toBe(PASSED_ON)
        expect((await fetch(`${other.url}${path}`)).status).toBe(200)
      } finally {
        other.server.close()
      }
    } finally {
      server.close()
    }
  })

  it('knows a token Koa authenticated on a download, so that its next downloads go the fast way, until the next write', async () => {
    const team = await createTeamWithToken(test, 'acme', 'downloaders')
    const authenticate = vi.spyOn(test.server.services.authenticator, 'authenticate')
    const authenticated = () => authenticate.mock.calls.filter(([token]) => token === team.token).length
    const download = async () => {
      const response = await fetch(location, { headers: { Authorization: `Bearer ${team.token}` } })
      expect(Buffer.from(await response.arrayBuffer()).equals(archive)).toBe(true)
    }
    try {
      await download()
      expect(authenticated()).toBe(1)
      await download()
      await download()
      expect(authenticated()).toBe(1)
      // A write (a revocation is one) makes Koa authenticate the token again.
      await createOrganization(test, 'written')
      await download()
      expect(authenticated()).toBe(2)
    } finally {
      authenticate.mockRestore()
    }
  })
})

describe('the rate limiter’s verdict on a request', () => {
  it('is taken once, whichever path asks: a fast path that passes a request on after taking it does not make Koa take again', () => {
    const limiter = new RateLimiter(1)
    const from = (address: string) => ({ socket: { remoteAddress: address } }) as IncomingMessage
    const request = from('127.0.0.1')
    expect(limiter.verdictOn(request, undefined).allowed).toBe(true)
    expect(limiter.verdictOn(request, undefined).allowed).toBe(true)
    expect(limiter.verdictOn(from('127.0.0.1'), undefined)).toMatchObject({ allowed: false })
    // Another caller from the same address, or another address, has a bucket of its own.
    expect(limiter.verdictOn(from('127.0.0.1'), { kind: 'site-admin' }).allowed).toBe(true)
    expect(limiter.verdictOn(from('127.0.0.2'), undefined).allowed).toBe(true)
    expect(limiter.headers).toEqual({ 'X-RateLimit-Limit': '1' })
    // Without a limit, nothing is taken, and nothing is kept on the request.
    const unlimited = new RateLimiter(0)
    const untouched = from('127.0.0.1')
    for (let i = 0; i < 3; i++) expect(unlimited.verdictOn(untouched, undefined).allowed).toBe(true)
    expect(Object.getOwnPropertySymbols(untouched)).toEqual([])
    expect(unlimited.headers).toEqual({})
  })
})

/** A GET with a Host header of one's choosing (fetch sets its own). */
function getWithHost(url: string, host: string) {
  const target = new URL(url)
  const sent = request({ host: target.hostname, port: target.port, path: target.pathname, headers: { Host: host } })
  sent.end()
  return sent
}
