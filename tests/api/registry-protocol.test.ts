import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NETWORK_MODULE } from '../helpers/archives.js'
import {
  createModule,
  createOrganization,
  createTeamWithToken,
  createVersion,
  publish,
  startTestServer,
  upload,
  type ApiResponse,
  type TestServer
} from '../helpers/server.js'

const PREFIX = '/api/registry/v1/modules'
const MICROSECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

let test: TestServer
let networkArchive: Buffer
beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  await createOrganization(test, 'beta')
  networkArchive = (await publish(test, 'acme', 'network', 'aws', '1.0.0', NETWORK_MODULE)).archive
  await publish(test, 'acme', 'network', 'aws', '1.1.0', { ...NETWORK_MODULE, 'README.md': '# Network\n\nVersion one point one.\n', 'CHANGELOG.md': '# Changelog\n\n## 1.1.0\n\n* A README of its own.\n' })
  await publish(test, 'acme', 'network', 'aws', '2.0.0-beta.1', NETWORK_MODULE)
  await publish(test, 'acme', 'network', 'google', '1.0.0', { 'main.tf': 'resource "google_compute_network" "n" {}\n' })
  await publish(test, 'acme', 'storage', 'aws', '0.1.0', { 'main.tf': 'resource "aws_s3_bucket" "b" {}\n' })
  await publish(test, 'beta', 'hidden', 'aws', '1.0.0', { 'main.tf': '' })
  // Neither a module without versions nor a failed version is published.
  await createModule(test, 'acme', 'unpublished', 'aws')
  const failed = await createVersion(test, 'acme', 'network', 'aws', '0.9.0')
  await upload(failed.links.upload, 'not an archive')
})
afterAll(async () => {
  await test.close()
})

const get = (path: string, token?: string | null) => test.api('GET', `${PREFIX}${path}`, { token })

describe('service discovery', () => {
  it('names the module registry, the provider registry, the API and terraform login', async () => {
    const response = await fetch(`${test.url}/.well-known/terraform.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await response.json()).toEqual({
      'modules.v1': '/api/registry/v1/modules/',
      'providers.v1': '/api/registry/v1/providers/',
      'tfe.v2': '/api/v2/',
      'tfe.v2.1': '/api/v2/',
      'tfe.v2.2': '/api/v2/',
      'login.v1': { client: 'terraform-cli', grant_types: ['authz_code'], authz: '/oauth/authorize', token: '/oauth/token', ports: [10000, 10010] }
    })
  })
})

describe('authentication', () => {
  it('needs a bearer token and answers {"errors": [...]}', async () => {
    const none = await get('/acme/network/aws/versions', null)
    expect(none.status).toBe(401)
    expect(none.body).toEqual({ errors: [expect.stringMatching(/API token/)], code: 'unauthorized' })
    expect((await get('/acme/network/aws/versions', 'hp1.wrong')).status).toBe(401)
  })

  it('answers 404 for a module the caller cannot see, and for an unknown one', async () => {
    const outsider = await createTeamWithToken(test, 'beta', 'protocol-outsiders')
    const hidden = await get('/acme/network/aws/versions', outsider.token)
    expect(hidden.status).toBe(404)
    expect(hidden.body.errors).toHaveLength(1)
    expect((await get('/acme/nothing/aws/versions')).status).toBe(404)
    expect((await get('/acme/network/aws/9.9.9')).status).toBe(404)
    expect((await get('/acme/network/aws/1.0.0/extra/path')).status).toBe(404)
    const member = await createTeamWithToken(test, 'acme', 'protocol-readers')
    expect((await get('/acme/network/aws/versions', member.token)).status).toBe(200)
  })
})

describe('list and search', () => {
  const ids = (body: { modules: Array<{ id: string }> }) => body.modules.map((module) => module.id)

  it('lists the latest published version of each module, every field filled', async () => {
    const response = await get('')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(ids(response.body)).toEqual(['acme/network/aws/1.1.0', 'acme/network/google/1.0.0', 'acme/storage/aws/0.1.0', 'beta/hidden/aws/1.0.0'])
    expect(response.body.meta).toEqual({ limit: 15, current_offset: 0 })
    const [network] = response.body.modules
    expect(network).toEqual({
      id: 'acme/network/aws/1.1.0',
      owner: '',
      namespace: 'acme',
      name: 'network',
      version: '1.1.0',
      provider: 'aws',
      description: 'Version one point one.',
      source: '',
      published_at: expect.stringMatching(MICROSECONDS),
      downloads: expect.any(Number),
      verified: false
    })
  })

  it('filters by namespace, provider and verified', async () => {
    expect(ids((await get('/acme')).body)).toEqual(['acme/network/aws/1.1.0', 'acme/network/google/1.0.0', 'acme/storage/aws/0.1.0'])
    expect(ids((await get('/acme?provider=google')).body)).toEqual(['acme/network/google/1.0.0'])
    expect(ids((await get('?verified=true')).body)).toEqual([])
    expect(ids((await get('?verified=yes')).body)).toHaveLength(4)
    expect((await get('/nobody')).status).toBe(404)
  })

  it('searches with q, which it requires', async () => {
    expect((await get('/search')).status).toBe(400)
    expect((await get('/search')).body.errors[0]).toMatch(/q=/)
    expect(ids((await get('/search?q=stor')).body)).toEqual(['acme/storage/aws/0.1.0'])
    expect(ids((await get('/search?q=network&provider=aws')).body)).toEqual(['acme/network/aws/1.1.0'])
    expect(ids((await get('/search?q=aws&namespace=beta')).body)).toEqual(['beta/hidden/aws/1.0.0'])
    expect(ids((await get('/search?q=aws&namespace=nobody')).body)).toEqual([])
  })

  it('pages with offset and limit, clamping the limit and naming next and previous only where they exist', async () => {
    const first = await get('?limit=2')
    expect(ids(first.body)).toHaveLength(2)
    expect(first.body.meta).toEqual({ limit: 2, current_offset: 0, next_offset: 2, next_url: `${PREFIX}?limit=2&offset=2` })
    const second = await get('?limit=2&offset=2')
    expect(ids(second.body)).toEqual(['acme/storage/aws/0.1.0', 'beta/hidden/aws/1.0.0'])
    expect(second.body.meta).toEqual({ limit: 2, current_offset: 2, prev_offset: 0 })
    expect((await get('?limit=5000')).body.meta.limit).toBe(100)
    for (const query of ['?limit=0', '?limit=-1', '?offset=-1', '?limit=abc', '?offset=1.5']) {
      const response = await get(query)
      expect(response.status, query).toBe(400)
      expect(response.body.errors[0]).toMatch(/whole number/)
    }
  })
})

describe('versions', () => {
  it('lists the published versions with what Terraform needs to choose one', async () => {
    const response = await get('/acme/network/aws/versions')
    expect(response.status).toBe(200)
    expect(response.body.modules).toHaveLength(1)
    const [module] = response.body.modules
    expect(module.source).toBe('acme/network/aws')
    expect(module.versions.map((v: { version: string }) => v.version)).toEqual(['2.0.0-beta.1', '1.1.0', '1.0.0'])
    const [newest] = module.versions
    expect(newest.root.providers).toEqual([{ name: 'aws', namespace: 'hashicorp', source: 'hashicorp/aws', version: '>= 5.0' }])
    expect(newest.root.dependencies).toEqual([{ name: 'labels', source: 'cloudposse/label/null', version: '0.25.0' }])
    expect(newest.submodules).toEqual([
      { path: 'modules/subnet', providers: [{ name: 'aws', namespace: 'hashicorp', source: 'hashicorp/aws', version: '' }], dependencies: [] }
    ])
  })

  it('finds a module with no published version, with none', async () => {
    const response = await get('/acme/unpublished/aws/versions')
    expect(response.status).toBe(200)
    expect(response.body.modules[0].versions).toEqual([])
  })
})

describe('module detail', () => {
  it('gives the latest version of each provider', async () => {
    const response = await get('/acme/network')
    expect(response.status).toBe(200)
    expect(response.body.meta).toEqual({ limit: 15, current_offset: 0 })
    expect(response.body.modules.map((m: { id: string }) => m.id)).toEqual(['acme/network/aws/1.1.0', 'acme/network/google/1.0.0'])
    expect((await get('/acme/nothing')).status).toBe(404)
  })

  it('gives the latest stable version of a provider in full', async () => {
    const response = await get('/acme/network/aws')
    expect(response.status).toBe(200)
    const detail = response.body
    expect(detail.id).toBe('acme/network/aws/1.1.0')
    expect(detail.providers).toEqual(['aws', 'google'])
    expect(detail.versions).toEqual(['2.0.0-beta.1', '1.1.0', '1.0.0'])
    expect(detail.root.path).toBe('')
    expect(detail.root.readme).toContain('Version one point one.')
    expect(detail.root.empty).toBe(false)
    expect(detail.root.inputs).toContainEqual({ name: 'region', type: 'string', description: 'AWS region', default: '"us-east-1"', required: false })
    expect(detail.root.inputs).toContainEqual({ name: 'cidr_block', type: 'string', description: expect.stringContaining('CIDR'), default: '', required: true })
    expect(detail.root.outputs).toContainEqual({ name: 'vpc_id', description: 'The VPC id' })
    expect(detail.root.resources).toEqual([
      { name: 'this', type: 'aws_subnet' },
      { name: 'this', type: 'aws_vpc' }
    ])
    expect(detail.root.dependencies).toEqual([{ name: 'labels', source: 'cloudposse/label/null', version: '0.25.0' }])
    expect(detail.root.required_core).toEqual(['>= 1.5'])
    expect(detail.submodules.map((part: { path: string }) => part.path)).toEqual(['modules/subnet'])
    expect(detail.submodules[0].readme).toContain('# Subnet')
    expect(detail.examples.map((part: { path: string }) => part.path)).toEqual(['examples/basic'])
    // Homeport's own: the change log the version ships, for the GUI's Changelog tab; "" for a version without one.
    expect(detail.changelog).toBe('# Changelog\n\n## 1.1.0\n\n* A README of its own.\n')
    expect((await get('/acme/network/aws/1.0.0')).body.changelog).toBe('')
  })

  it('gives a specific version, in the form Terraform or a person writes it', async () => {
    for (const version of ['1.0.0', 'v1.0.0', '2.0.0-beta.1']) {
      const response = await get(`/acme/network/aws/${version}`)
      expect(response.status, version).toBe(200)
    }
    expect((await get('/acme/network/aws/1.0.0')).body.id).toBe('acme/network/aws/1.0.0')
    // A version whose ingest failed is not published.
    expect((await get('/acme/network/aws/0.9.0')).status).toBe(404)
  })
})

describe('downloads', () => {
  it('answers 204 with the location in X-Terraform-Get and X-Registry-Get', async () => {
    const response = await get('/acme/network/aws/1.0.0/download')
    expect(response.status).toBe(204)
    expect(response.body).toBe('')
    const location = response.headers.get('x-terraform-get')!
    expect(response.headers.get('x-registry-get')).toBe(location)
    // Absolute, on the origin the client called: Terraform resolves either, other clients take it as it is.
    expect(location.startsWith(`${test.url}/api/registry/downloads/`)).toBe(true)
    expect(location).toMatch(/\/api\/registry\/downloads\/[^/]+\/network-aws-1\.0\.0\.tar\.gz$/)
    // Asked by another of its names (the answer cached for the first meanwhile), it answers on that one.
    const other = test.url.replace('127.0.0.1', 'localhost')
    const again = await fetch(`${other}${PREFIX}/acme/network/aws/1.0.0/download`, { headers: { Authorization: `Bearer ${test.adminToken}` } })
    expect(again.headers.get('x-terraform-get')!.startsWith(`${other}/api/registry/downloads/`)).toBe(true)
  })

  it('serves the archive at that location to HEAD and GET without a token, never gzip-encoded', async () => {
    const location = (await get('/acme/network/aws/1.0.0/download')).headers.get('x-terraform-get')!
    const url = new URL(location, `${test.url}${PREFIX}/acme/network/aws/1.0.0/download`).toString()
    const head = await fetch(url, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(networkArchive.length))
    expect(head.headers.get('content-encoding')).toBeNull()
    const response = await fetch(url, { headers: { 'Accept-Encoding': 'gzip' } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-encoding')).toBeNull()
    expect(Buffer.from(await response.arrayBuffer()).equals(networkArchive)).toBe(true)
  })

  it('refuses a tampered or foreign location', async () => {
    const location = (await get('/acme/network/aws/1.0.0/download')).headers.get('x-terraform-get')!
    // The signature's first character changed (any of base64url's, "-" too: 1 in 64 signatures begins with it).
    const tampered = location.replace(/\.([\w-])([\w-]{42})\//, (_m, first: string, rest: string) => `.${first === 'A' ? 'B' : 'A'}${rest}/`)
    expect(tampered).not.toBe(location)
    const response = await fetch(tampered)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ errors: [expect.stringMatching(/invalid or has expired/)], code: 'not-found' })
    expect((await fetch(`${test.url}/api/registry/downloads/garbage/x.tar.gz`)).status).toBe(404)
    // One spelling per location: the same expiry with a leading zero is not that location.
    expect((await fetch(location)).status).toBe(200)
    const padded = location.replace(/(modver-\w+)\.(\d+)\./, '$1.0$2.')
    expect(padded).not.toBe(location)
    expect((await fetch(padded)).status).toBe(404)
  })

  it('redirects the latest download to the versioned one', async () => {
    const response = await fetch(`${test.url}${PREFIX}/acme/network/aws/download`, {
      headers: { Authorization: `Bearer ${test.adminToken}` },
      redirect: 'manual'
    })
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe(`${PREFIX}/acme/network/aws/1.1.0/download`)
  })

  it('counts downloads in the summary', async () => {
    const summaryPath = '/api/registry/v2/modules/acme/storage/aws/downloads/summary'
    const before = await test.api('GET', summaryPath)
    expect(before.status).toBe(200)
    expect(before.body).toEqual({
      data: { type: 'module-downloads-summary', id: 'acme/storage/aws', attributes: { week: 0, month: 0, year: 0, total: 0 } }
    })
    // Read (and kept in the answer cache) before the downloads: the counts must still agree after them.
    expect((await get('/acme/storage/aws')).body.downloads).toBe(0)
    expect((await get('/acme/storage')).body.modules[0].downloads).toBe(0)
    for (let i = 0; i < 3; i++) expect((await get('/acme/storage/aws/0.1.0/download')).status).toBe(204)
    const after = await test.api('GET', summaryPath)
    expect(after.body.data.attributes).toEqual({ week: 3, month: 3, year: 3, total: 3 })
    expect((await get('/acme/storage')).body.modules[0].downloads).toBe(3)
    expect((await get('/acme/storage/aws')).body.downloads).toBe(3)
    // Per day, for the GUI's chart: the last 30 days, today last.
    const daily = (await test.api('GET', '/api/registry/v2/modules/acme/storage/aws/downloads/daily')).body.data.attributes.days as Array<{ date: string; count: number }>
    expect(daily).toHaveLength(30)
    expect(daily.at(-1)).toEqual({ date: new Date().toISOString().slice(0, 10), count: 3 })
    expect(daily.slice(0, -1).every((day) => day.count === 0)).toBe(true)
    // Counts survive a restart.
    await test.restart()
    expect((await test.api('GET', summaryPath)).body.data.attributes.total).toBe(3)
    expect((await test.api('GET', '/api/registry/v2/modules/acme/nothing/aws/downloads/summary')).status).toBe(404)
  })
})

describe('rate limiting', () => {
  it('answers 429 with Retry-After past the limit, per token', async () => {
    const limited = await startTestServer({ rateLimitPerMinute: 5 })
    try {
      const statuses: number[] = []
      let retryAfter: string | null = null
      for (let i = 0; i < 6; i++) {
        const response = await limited.api('GET', `${PREFIX}`)
        statuses.push(response.status)
        if (response.status === 429) {
          retryAfter = response.headers.get('retry-after')
          expect(response.body.errors[0]).toMatch(/Too many requests/)
        }
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
      expect(Number(retryAfter)).toBeGreaterThan(0)
      // Another client has its own allowance; the management API answers in its own format.
      const other = await limited.api('GET', '/organizations', { token: 'hp1.another-client' })
      expect(other.status).toBe(401)
      const api = await limited.api('GET', '/organizations')
      expect(api.status).toBe(429)
      expect(api.body.errors[0].status).toBe('429')
    } finally {
      await limited.close()
    }
  })

  it('keys on who the caller is: bogus tokens share their address’s allowance, a padded token its own', async () => {
    const limited = await startTestServer({ rateLimitPerMinute: 5 })
    try {
      // A fresh random token each time is not a fresh allowance: unknown tokens count against the address.
      const bogus: number[] = []
      for (let i = 0; i < 6; i++) bogus.push((await limited.api('GET', PREFIX, { token: `hp1.bogus-${i}-${Math.random()}` })).status)
      expect(bogus).toEqual([401, 401, 401, 401, 401, 429])
      expect((await limited.api('GET', '/api/v2/ping', { token: null })).status).toBe(429)

      // A valid token is its caller's bucket, however the header spells it.
      const owners = await limited.api('GET', '/organizations')
      expect(owners.status).toBe(200)
      const spellings = [`Bearer ${limited.adminToken}`, `Bearer    ${limited.adminToken}   `, `bearer ${limited.adminToken}`, `BEARER\t${limited.adminToken}`]
      const statuses: number[] = []
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${limited.url}${PREFIX}`, { headers: { Authorization: spellings[i % spellings.length]! } })
        statuses.push(response.status)
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429])
    } finally {
      await limited.close()
    }
  })
})

describe('module sharing in the self-hosted edition', () => {
  it('lets a consumer organization read a producer’s modules, and no one else', async () => {
    const selfHosted = await startTestServer({ edition: 'self-hosted' })
    try {
      for (const org of ['producer', 'consumer', 'stranger']) await createOrganization(selfHosted, org)
      await publish(selfHosted, 'producer', 'shared', 'aws', '1.0.0', { 'main.tf': '' })
      const consumer = await createTeamWithToken(selfHosted, 'consumer', 'readers')
      const stranger = await createTeamWithToken(selfHosted, 'stranger', 'readers')
      const path = `${PREFIX}/producer/shared/aws/versions`
      expect((await selfHosted.api('GET', path, { token: consumer.token })).status).toBe(404)
      await selfHosted.api('PATCH', '/admin/organizations/producer/relationships/module-consumers', {
        body: { data: [{ type: 'organizations', id: 'consumer' }] }
      })
      expect((await selfHosted.api('GET', path, { token: consumer.token })).status).toBe(200)
      expect((await selfHosted.api('GET', PREFIX, { token: consumer.token })).body.modules.map((m: { id: string }) => m.id)).toEqual([
        'producer/shared/aws/1.0.0'
      ])
      expect((await selfHosted.api('GET', path, { token: stranger.token })).status).toBe(404)
      // Sharing opens the protocol only, not the producer's management API.
      expect((await selfHosted.api('GET', '/organizations/producer/registry-modules', { token: consumer.token })).status).toBe(404)
    } finally {
      await selfHosted.close()
    }
  })
})

describe('deleted versions', () => {
  it('disappear from the protocol at once', async () => {
    await publish(test, 'acme', 'fleeting', 'aws', '1.0.0', { 'main.tf': '' })
    await publish(test, 'acme', 'fleeting', 'aws', '1.1.0', { 'main.tf': '' })
    expect((await test.api('DELETE', '/organizations/acme/registry-modules/private/acme/fleeting/aws/1.1.0')).status).toBe(204)
    const versions = await get('/acme/fleeting/aws/versions')
    expect(versions.body.modules[0].versions.map((v: { version: string }) => v.version)).toEqual(['1.0.0'])
    expect((await get('/acme/fleeting/aws/1.1.0/download')).status).toBe(404)
  })
})

describe('the answer cache', () => {
  it('serves repeated questions fast, but never past a write: a revoked token stops at once', async () => {
    const team = await createTeamWithToken(test, 'acme', 'cache-readers')
    for (let i = 0; i < 3; i++) expect((await get('/acme/network/aws/versions', team.token)).status).toBe(200)
    expect((await test.api('DELETE', `/teams/${team.id}/authentication-token`)).status).toBe(204)
    expect((await get('/acme/network/aws/versions', team.token)).status).toBe(401)
  })

  it('keeps neither the answer nor the token of a request whose token is revoked while it is being answered', async () => {
    const team = await createTeamWithToken(test, 'acme', 'slow-readers')
    const { authenticator } = test.server.services
    const authenticate = authenticator.authenticate.bind(authenticator)
    let revoked: Promise<ApiResponse> | undefined
    // The token is authenticated, then revoked before the answer is computed.
    authenticator.authenticate = async (token, now) => {
      const caller = await authenticate(token, now)
      if (token === team.token) {
        authenticator.authenticate = authenticate
        revoked = test.api('DELETE', `/teams/${team.id}/authentication-token`)
        expect((await revoked).status).toBe(204)
      }
      return caller
    }
    try {
      expect((await get('/acme/network/aws/versions', team.token)).status).toBe(200)
    } finally {
      authenticator.authenticate = authenticate
    }
    expect(revoked).toBeDefined()
    expect((await get('/acme/network/aws/versions', team.token)).status).toBe(401)
  })

  it('shows a new version at once, and counts downloads served from the cache', async () => {
    const before = (await get('/acme/storage/aws/versions')).body.modules[0].versions.length
    await publish(test, 'acme', 'storage', 'aws', '0.2.0', { 'main.tf': '' })
    expect((await get('/acme/storage/aws/versions')).body.modules[0].versions.length).toBe(before + 1)
    const summary = async () => (await test.api('GET', '/api/registry/v2/modules/acme/storage/aws/downloads/summary')).body.data.attributes.total as number
    const start = await summary()
    for (let i = 0; i < 5; i++) expect((await get('/acme/storage/aws/0.2.0/download')).status).toBe(204)
    expect(await summary()).toBe(start + 5)
  })
})
