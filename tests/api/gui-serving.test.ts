import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { rawRequest } from '../helpers/raw-request.js'

let renderer: string
let test: TestServer
beforeAll(async () => {
  renderer = await mkdtemp(join(tmpdir(), 'homeport-renderer-'))
  await mkdir(join(renderer, 'assets'))
  await writeFile(join(renderer, 'index.html'), '<!doctype html><title>Homeport</title>')
  await writeFile(join(renderer, 'assets', 'index-abc.js'), 'console.log(1)')
  test = await startTestServer({ rendererDir: renderer })
})
afterAll(async () => {
  await test.close()
  await rm(renderer, { recursive: true, force: true })
})

describe('serving the GUI', () => {
  it('serves the page with a strict Content-Security-Policy and no sniffing', async () => {
    const response = await fetch(`${test.url}/`)
    expect(response.status).toBe(200)
    const csp = response.headers.get('content-security-policy')!
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('unsafe-eval')
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).toContain("object-src 'none'")
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('cache-control')).toBe('max-age=0')
  })

  it('answers the GUI’s own paths with the page, and caches hashed assets for good', async () => {
    // Every path the GUI's router has, a reload or a shared link included, with its search parameters.
    for (const path of ['/orgs/acme', '/orgs/acme/modules?q=vpc&provider=aws', '/orgs/acme/modules/private/acme/vpc/aws/1.2.3+build.1?part=modules%2Fsubnet&tab=inputs', '/terraform', '/authorize?client_id=terraform-cli']) {
      const page = await fetch(`${test.url}${path}`)
      expect(page.status, path).toBe(200)
      expect(await page.text()).toContain('<title>Homeport</title>')
    }
    const asset = await fetch(`${test.url}/assets/index-abc.js`)
    expect(asset.headers.get('cache-control')).toContain('immutable')
    expect((await fetch(`${test.url}/assets/missing.js`)).status).toBe(404)
  })

  it('never answers an API path with the page', async () => {
    for (const path of ['/api/registry/v1/unknown/x/y/z/w/v', '/api/v2/nothing', '/.well-known/other.json', '/archivist/v1/object']) {
      const response = await fetch(`${test.url}${path}`)
      expect(response.status, path).toBeGreaterThanOrEqual(400)
      expect(await response.text(), path).not.toContain('<title>Homeport</title>')
    }
  })

  it('opens another site’s link (chat, the identity provider’s dashboard) as the GUI’s page, whatever its path, and lets nothing else from another site in', async () => {
    const host = new URL(test.url).host
    const fromAnotherSite = { Host: host, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' }
    // A module page, a search, an API path and a download location: each the static page, no router reached.
    for (const path of ['/orgs/acme/modules/private/acme/vpc/aws/1.2.3?tab=inputs', '/search?q=vpc', '/api/v2/organizations', '/api/registry/v1/modules/acme/vpc/aws/1.2.3/download']) {
      const page = await rawRequest(test.url, 'GET', path, { ...fromAnotherSite, Authorization: `Bearer ${test.adminToken}` })
      expect(page.status, path).toBe(200)
      expect(page.headers['content-security-policy'], path).toContain("frame-ancestors 'none'")
      expect(page.body, path).toContain('<title>Homeport</title>')
    }
    // Not a page of its own (a frame, a script, a fetch), not a GET, or with another site's Origin: refused as before.
    const refusals: Array<[string, string, Record<string, string>]> = [
      ['GET', '/orgs/acme', { ...fromAnotherSite, 'Sec-Fetch-Dest': 'iframe' }],
      ['GET', '/api/v2/organizations', { ...fromAnotherSite, 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'script' }],
      ['GET', '/api/v2/organizations', { ...fromAnotherSite, 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' }],
      ['POST', '/api/v2/organizations', fromAnotherSite],
      ['GET', '/orgs/acme', { ...fromAnotherSite, Origin: 'https://evil.example' }]
    ]
    for (const [method, path, headers] of refusals) {
      const refused = await rawRequest(test.url, method, path, headers, method === 'POST' ? '{}' : undefined)
      expect(refused.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(403)
      expect(refused.body).toMatch(/Requests from other web sites are refused/)
    }
  })
})
