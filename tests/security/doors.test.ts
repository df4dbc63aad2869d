import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request as httpsRequest } from 'node:https'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { allowedHosts } from '../../src-main/server/http/doors.js'
import { parseServeOptions } from '../../src-main/server/boot/options.js'
import { exited, spawnServer } from '../helpers/process.js'
import { createOrganization, startTestServer, upload, type TestServer } from '../helpers/server.js'
import { rawRequest, type RawAnswer } from '../helpers/raw-request.js'

let test: TestServer
let port: number
beforeAll(async () => {
  test = await startTestServer()
  port = Number(new URL(test.url).port)
  await createOrganization(test, 'acme')
})
afterAll(async () => {
  await test.close()
})

/** A request to the test server with exactly these headers (tests/helpers/raw-request.ts). */
function raw(method: string, path: string, headers: Record<string, string | string[]>, body?: string): Promise<RawAnswer> {
  return rawRequest(test.url, method, path, headers, body)
}

describe('the local server’s doors', () => {
  const auth = () => ({ Authorization: `Bearer ${test.adminToken}` })

  it('answers to loopback names only: a rebound DNS name is refused', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost']) {
      expect((await raw('GET', '/api/v2/organizations', { ...auth(), Host: host })).status, host).toBe(200)
    }
    for (const path of ['/api/v2/organizations', '/', '/api/registry/v1/modules']) {
      const response = await raw('GET', path, { ...auth(), Host: `evil.example:${port}` })
      expect(response.status, path).toBe(403)
      expect(response.body).toMatch(/does not answer to the host/)
    }
    const protocol = await raw('GET', '/api/registry/v1/modules', { ...auth(), Host: 'evil.example' })
    expect(JSON.parse(protocol.body)).toEqual({ errors: [expect.stringMatching(/does not answer to the host/)], code: expect.any(String) })
  })

  it('refuses a Host header that is not exactly host[:port], and never builds a link from one', async () => {
    for (const host of [`127.0.0.1:abc`, 'localhost:99999', 'localhost:0', `localhost:${port}@evil.example`, 'localhost:80@evil.example', 'local host', '[::1', '[evil]:80', 'localhost:']) {
      for (const path of ['/api/v2/organizations', '/api/registry/v1/modules', '/']) {
        const response = await raw('GET', path, { ...auth(), Host: host })
        expect(response.status, `${host} ${path}`).toBe(400)
        expect(response.body, host).toMatch(/is not a host name with an optional port/)
      }
    }
    // A version's upload link is built from the Host header: a smuggled host must not reach it.
    const created = await raw(
      'POST',
      '/api/v2/organizations/acme/registry-modules',
      { ...auth(), Host: `localhost:${port}@evil.example`, 'Content-Type': 'application/vnd.api+json' },
      JSON.stringify({ data: { type: 'registry-modules', attributes: { name: 'smuggled', provider: 'aws' } } })
    )
    expect(created.status).toBe(400)
    expect(created.body).not.toContain('evil.example/')
    for (const host of [`[::1]:${port}`, `LOCALHOST:${port}`, '127.0.0.1']) {
      expect((await raw('GET', '/api/v2/organizations', { ...auth(), Host: host })).status, host).toBe(200)
    }
  })

  it('keeps the same doors on the fast path: an answer already cached is not served past them', async () => {
    const path = '/api/registry/v1/modules/acme'
    const good = { ...auth(), Host: `127.0.0.1:${port}` }
    for (let i = 0; i < 3; i++) expect((await raw('GET', path, good)).status).toBe(200)
    expect((await raw('GET', path, { ...auth(), Host: `evil.example:${port}` })).status).toBe(403)
    expect((await raw('GET', path, { ...auth(), Host: `localhost:80@evil.example` })).status).toBe(400)
    expect((await raw('GET', path, { ...good, Origin: 'https://evil.example' })).status).toBe(403)
    expect((await raw('GET', path, { ...good, 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403)
    // Sent twice, a header reads as Koa reads it (the two joined), not as its first line alone.
    const sameSite = `http://127.0.0.1:${port}`
    expect((await raw('GET', path, { ...good, Origin: sameSite })).status).toBe(200)
    expect((await raw('GET', path, { ...good, Origin: [sameSite, sameSite] })).status).toBe(403)
    expect((await raw('GET', path, { Host: `127.0.0.1:${port}`, Authorization: 'Bearer hp1.not-a-token' })).status).toBe(401)
  })

  it('refuses browser requests from other sites, and a cross-site form POST changes nothing', async () => {
    const before = await readdir(join(test.dataDir, 'organizations'))
    const form = await raw(
      'POST',
      '/api/v2/organizations',
      { ...auth(), Host: `127.0.0.1:${port}`, Origin: 'https://evil.example', 'Content-Type': 'application/json' },
      JSON.stringify({ data: { type: 'organizations', attributes: { name: 'evil', email: 'a@b.example' } } })
    )
    expect(form.status).toBe(403)
    expect(await readdir(join(test.dataDir, 'organizations'))).toEqual(before)
    const fetchMetadata = await raw('GET', '/api/v2/organizations', { ...auth(), Host: `127.0.0.1:${port}`, 'Sec-Fetch-Site': 'cross-site' })
    expect(fetchMetadata.status).toBe(403)
    const opaque = await raw('GET', '/api/v2/organizations', { ...auth(), Host: `127.0.0.1:${port}`, Origin: 'null' })
    expect(opaque.status).toBe(403)
    const sameOrigin = await raw('GET', '/api/v2/organizations', { ...auth(), Host: `127.0.0.1:${port}`, Origin: `http://127.0.0.1:${port}` })
    expect(sameOrigin.status).toBe(200)
  })

  it('sends no CORS headers, so no other site can read an answer', async () => {
    const preflight = await raw('OPTIONS', '/api/v2/organizations', {
      Host: `127.0.0.1:${port}`,
      'Access-Control-Request-Method': 'GET'
    })
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
    const response = await raw('GET', '/api/v2/ping', { Host: `127.0.0.1:${port}` })
    expect(response.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('refuses to listen off loopback with no base URL and no names: links would come from any Host header', () => {
    expect(() => parseServeOptions(['--host', '0.0.0.0'], {})).toThrow(/--base-url <the URL clients use> or --allowed-hosts/)
    expect(parseServeOptions(['--host', '0.0.0.0', '--base-url', 'https://registry.example.com'], {}).host).toBe('0.0.0.0')
    expect(parseServeOptions(['--host', '0.0.0.0'], { HOMEPORT_ALLOWED_HOSTS: 'box.lan' }).allowedHosts).toEqual(['box.lan'])
  })

  it('computes the hosts to answer to from how the server listens', () => {
    expect(allowedHosts('127.0.0.1', undefined, [])).toEqual(new Set(['localhost', '127.0.0.1', '::1', '[::1]']))
    expect(allowedHosts('127.0.0.1', 'https://registry.example.com/homeport', ['lan-box'])).toEqual(
      new Set(['localhost', '127.0.0.1', '::1', '[::1]', 'lan-box', 'registry.example.com'])
    )
    expect(allowedHosts('0.0.0.0', 'https://registry.example.com', [])).toEqual(new Set(['0.0.0.0', 'registry.example.com']))
    expect(allowedHosts('0.0.0.0', undefined, ['box.lan'])).toEqual(new Set(['box.lan', '0.0.0.0']))
    expect(allowedHosts('127.0.0.1', undefined, [], 'Registry.Acme.Internal:4443')).toEqual(new Set(['localhost', '127.0.0.1', '::1', '[::1]', 'registry.acme.internal']))
  })

  it('answers discovery over HTTPS by the registry hostname its certificate covers', async () => {
    const secure = await startTestServer({ tls: true, registryHostname: 'registry.acme.internal' })
    try {
      const securePort = Number(new URL(secure.url).port)
      const ca = await readFile(secure.server.tls!.trustPath, 'utf8')
      // As Terraform resolving registry.acme.internal to this machine: SNI, certificate check and Host all by that name.
      const discovery = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpsRequest(
          { host: '127.0.0.1', port: securePort, servername: 'registry.acme.internal', ca, path: '/.well-known/terraform.json', headers: { Host: `registry.acme.internal:${securePort}` } },
          (res) => {
            let text = ''
            res.on('data', (chunk: Buffer) => (text += chunk.toString()))
            res.on('end', () => resolve({ status: res.statusCode!, body: text }))
          }
        )
        req.on('error', reject)
        req.end()
      })
      expect(discovery.status).toBe(200)
      expect(JSON.parse(discovery.body)).toMatchObject({ 'modules.v1': expect.any(String), 'providers.v1': expect.any(String) })
    } finally {
      await secure.close()
    }
  })
})

describe('what the server writes to its log', () => {
  it('never holds a token or an upload link', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'homeport-logs-'))
    const token = 'log-test-admin-token-0123456789'
    const server = await spawnServer(['--port', '0', '--data-dir', dataDir], { HOMEPORT_ADMIN_TOKEN: token })
    try {
      const api = (method: string, path: string, body?: unknown, bearer = token) =>
        fetch(`${server.url}/api/v2${path}`, {
          method,
          headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/vnd.api+json' },
          body: body === undefined ? undefined : JSON.stringify(body)
        })
      await api('POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'acme', email: 'a@b.example' } } })
      await api('POST', '/organizations/acme/registry-modules', { data: { type: 'registry-modules', attributes: { name: 'x', provider: 'aws' } } })
      const version = (await (
        await api('POST', '/organizations/acme/registry-modules/private/acme/x/aws/versions', {
          data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } }
        })
      ).json()) as { data: { links: { upload: string } } }
      const link = version.data.links.upload
      await upload(link, 'not an archive')
      await upload(link, 'twice')
      await api('GET', '/organizations', undefined, 'hp1.a-wrong-token-that-must-not-be-logged')
      server.child.kill('SIGTERM')
      await exited(server.child)
      const output = server.output()
      expect(output).not.toContain(token)
      expect(output).not.toContain(link.split('/').pop())
      expect(output).not.toContain('a-wrong-token-that-must-not-be-logged')
    } finally {
      server.child.kill('SIGKILL')
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
