import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createOrganization, createTeamWithToken, startTestServer, type TestServer } from '../helpers/server.js'
import { openMemoryStore } from '../../src-main/server/store/memory/memory-store.js'
import { UpstreamRegistry } from '../../src-main/server/domain/upstream/upstream.js'
import { nameSegment, namespaceSegment, providerSegment, upstreamPath } from '../../src-main/server/domain/upstream/upstream-path.js'

/**
 * The server fetches from its upstream registry, and only from there: a caller's path segments
 * never become a URL of their own, the upstream token goes to the upstream's origin alone, and
 * no upstream answer is read past a bound.
 */
const UPSTREAM_TOKEN = 'upstream-secret-token'

interface Seen {
  path: string
  headers: IncomingHttpHeaders
}

/** A plain HTTP service on this machine's loopback that records what reaches it. */
async function listen(handler: (path: string, res: import('node:http').ServerResponse) => void): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    seen.push({ path: req.url!, headers: req.headers })
    handler(req.url!, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

let victim: Awaited<ReturnType<typeof listen>>
let upstream: Awaited<ReturnType<typeof listen>>
let homeport: TestServer
let reader: string

const json = (res: import('node:http').ServerResponse, body: unknown) => {
  res.writeHead(200, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify(body))
}

beforeAll(async () => {
  victim = await listen((_path, res) => json(res, { versions: [{ version: '6.6.6', protocols: ['5.0'], platforms: [] }] }))
  upstream = await listen((path, res) => {
    if (path === '/.well-known/terraform.json') return json(res, { 'providers.v1': '/v1/providers/', 'modules.v1': '/v1/modules/' })
    if (path === '/v1/providers/acme/huge/versions') {
      // 64 MB of JSON, streamed without a length: read whole, it would take the server's memory.
      res.writeHead(200, { 'Content-Type': 'application/json' })
      const chunk = Buffer.alloc(1024 * 1024, 0x20)
      res.write('{"versions":[')
      let sent = 0
      const more = () => {
        while (sent < 64) {
          sent++
          if (!res.write(chunk)) return void res.once('drain', more)
        }
        res.end(']}')
      }
      res.on('error', () => undefined)
      return more()
    }
    if (path === '/v1/providers/acme/pointer/1.0.0/download/linux/amd64') {
      // A package whose signed files are somewhere else: the token must not follow.
      return json(res, {
        protocols: ['5.0'], os: 'linux', arch: 'amd64', filename: 'terraform-provider-pointer_1.0.0_linux_amd64.zip',
        download_url: `${victim.url}/zip`, shasums_url: `${victim.url}/terraform-provider-pointer_1.0.0_SHA256SUMS`, shasums_signature_url: `${victim.url}/sig`,
        shasum: 'a'.repeat(64), signing_keys: { gpg_public_keys: [] }
      })
    }
    if (path === '/v1/providers/acme/escape/1.0.0/download/linux/amd64') {
      return json(res, {
        protocols: ['5.0'], os: 'linux', arch: 'amd64', filename: '../../../../tmp/escaped.zip',
        download_url: '/zip', shasums_url: '/sums', shasums_signature_url: '/sig', shasum: 'a'.repeat(64), signing_keys: { gpg_public_keys: [] }
      })
    }
    res.writeHead(404, { 'Content-Type': 'application/json' })
    res.end('{"errors":["not found"]}')
  })
  homeport = await startTestServer({ upstream: upstream.url, upstreamToken: UPSTREAM_TOKEN, upstreamMaxAgeMs: 0 })
  await createOrganization(homeport, 'acme')
  reader = (await createTeamWithToken(homeport, 'acme', 'readers')).token
})
afterAll(async () => {
  await homeport.close()
  victim.server.close()
  upstream.server.close()
})

describe('requests to the upstream registry', () => {
  it('never fetch a URL a caller writes into a provider path segment', async () => {
    const target = encodeURIComponent(`${victim.url}/ssrf`)
    for (const path of [
      `/api/registry/public/v1/providers/${target}/null/versions`,
      `/api/registry/public/v1/providers/${target}/null/1.0.0/download/linux/amd64`,
      `/api/registry/public/v1/providers/hashicorp/null/${target}/download/linux/amd64`,
      `/api/registry/public/v1/providers/hashicorp/null/1.0.0/download/${target}/amd64`,
      `/api/registry/public/v1/providers/hashicorp/null/1.0.0/download/linux/${encodeURIComponent('..%2F..%2Fx')}`,
      `/api/registry/public/v1/providers/${encodeURIComponent('//127.0.0.1')}/null/versions`
    ]) {
      const response = await homeport.api('GET', path, { token: reader })
      expect(response.status, path).toBe(422)
      expect(response.body.errors[0], path).toMatch(/is not a valid (namespace|provider type|version|os|arch) in the registry protocol/)
    }
    expect(victim.seen).toEqual([])
    expect(upstream.seen.filter((request) => request.path.includes('ssrf'))).toEqual([])
  })

  it('never fetch a URL a caller writes into a public module path segment', async () => {
    const target = encodeURIComponent(`${victim.url}/ssrf`)
    for (const path of [`/api/registry/public/v1/modules/${target}/vpc/aws/versions`, `/api/registry/public/v1/modules/hashicorp/vpc/aws/${target}/download`]) {
      const response = await homeport.api('GET', path, { token: reader })
      expect(response.status, path).toBeGreaterThanOrEqual(400)
      expect(response.status, path).toBeLessThan(500)
    }
    expect(victim.seen).toEqual([])
  })

  it('send the upstream token to the upstream’s own origin only, not where its answers point', async () => {
    const response = await homeport.api('GET', '/api/registry/public/v1/providers/acme/pointer/1.0.0/download/linux/amd64', { token: reader })
    expect(response.status).toBe(503)
    const asked = upstream.seen.find((request) => request.path === '/v1/providers/acme/pointer/1.0.0/download/linux/amd64')
    expect(asked?.headers.authorization).toBe(`Bearer ${UPSTREAM_TOKEN}`)
    expect(victim.seen.map((request) => request.path)).toContain('/terraform-provider-pointer_1.0.0_SHA256SUMS')
    for (const request of victim.seen) expect(request.headers.authorization).toBeUndefined()
  })

  it('refuse an upstream package whose file name is a path, before fetching anything', async () => {
    victim.seen.length = 0
    const response = await homeport.api('GET', '/api/registry/public/v1/providers/acme/escape/1.0.0/download/linux/amd64', { token: reader })
    expect(response.status).toBe(503)
    expect(response.body.errors[0]).toMatch(/is not a file name Homeport takes/)
    expect(upstream.seen.filter((request) => ['/zip', '/sums', '/sig'].includes(request.path))).toEqual([])
    expect(await homeport.server.services.store.providerMirror.all()).toEqual([])
  })

  it('read an upstream answer only up to a bound, and say so with a 502', async () => {
    const before = process.memoryUsage().rss
    const response = await homeport.api('GET', '/api/registry/public/v1/providers/acme/huge/versions', { token: reader })
    expect(response.status).toBe(502)
    expect(response.body.errors[0]).toMatch(/larger than 8388608 bytes, the most Homeport reads of it/)
    // The 64 MB were never held: the server stopped reading at the bound.
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024)
  })
})

describe('the upstream, when one of its paths hangs', () => {
  it('goes on answering every other path: one hung answer takes nothing offline', async () => {
    const flaky = await listen((path, res) => {
      if (path === '/.well-known/terraform.json') return json(res, { 'providers.v1': '/v1/providers/', 'modules.v1': '/v1/modules/' })
      if (path.startsWith('/v1/modules/slow/')) return // never answers
      json(res, { modules: [{ versions: [{ version: '1.0.0' }] }] })
    })
    const store = await openMemoryStore()
    try {
      const registry = new UpstreamRegistry(store, { url: flaky.url, timeoutMs: 200 })
      const path = (namespace: string) => upstreamPath(namespaceSegment(namespace), nameSegment('vpc'), providerSegment('aws'), 'versions')
      await expect(registry.get(path('slow'))).rejects.toThrow(/cannot be reached/)
      const answer = await registry.get(path('fast'))
      expect(answer).toMatchObject({ status: 200, stale: false })
      expect(flaky.seen.map((request) => request.path)).toContain('/v1/modules/fast/vpc/aws/versions')
    } finally {
      await store.close()
      flaky.server.closeAllConnections()
      flaky.server.close()
    }
  })
})
