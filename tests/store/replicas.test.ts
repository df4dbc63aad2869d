import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash, randomUUID } from 'node:crypto'
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { inject } from 'vitest'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { publishProviderWithDocs } from '../helpers/provider-docs.js'
import { postgresDatabases } from '../helpers/postgres.js'
import { createModule, createOrganization, doc, publish, startTestServer, testDatabase, type TestServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'
import { Browser, startOpenIdProvider, type TestOpenIdProvider } from '../helpers/openid-provider.js'
import { HOMEPORT_CLI } from '../helpers/cli.js'

const POSTGRES = process.env.HOMEPORT_TEST_STORE === 'postgres'
const ONLY = POSTGRES ? '' : ' (skipped: PostgreSQL only, in the postgres run)'
const ADMIN = 'replica-admin-token-0123456789abcdef'
/** No database: the data directory's own files, even in the postgres run. */
const FILE_STORE = ''
const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

describe.skipIf(!POSTGRES)(`two Homeports on one PostgreSQL database${ONLY}`, () => {
  let first: TestServer
  let second: TestServer
  beforeAll(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'homeport-replica-'))
    first = await startTestServer({ dataDir, adminToken: ADMIN })
    // Its own data directory (admin token, caches), the same database and admin token.
    second = await startTestServer({ database: await testDatabase(dataDir), adminToken: ADMIN })
    await createOrganization(first, 'shared')
    await createModule(first, 'shared', 'busy', 'aws')
  })
  afterAll(async () => {
    await second.close()
    await first.close()
  })

  it('fifty clients across both create versions of one module: no update lost, exactly one winner per version', async () => {
    const versions = Array.from({ length: 50 }, (_, index) => `3.0.${index % 25}`)
    const responses = await Promise.all(
      versions.map((version, index) =>
        (index % 2 ? second : first).api('POST', '/organizations/shared/registry-modules/private/shared/busy/aws/versions', { body: doc('registry-module-versions', { version }) })
      )
    )
    for (const response of responses) expect([201, 422]).toContain(response.status)
    expect(responses.filter((response) => response.status === 201)).toHaveLength(25)
    for (const replica of [first, second]) {
      const module = await replica.api('GET', '/organizations/shared/registry-modules/private/shared/busy/aws')
      expect(new Set(module.body.data.attributes['version-statuses'].map((entry: { version: string }) => entry.version)).size).toBe(25)
    }
  })

  it('hears the other’s writes: a version published through one is offered by the other’s protocol at once', async () => {
    const versions = (replica: TestServer) => replica.api('GET', '/api/registry/v1/modules/shared/network/aws/versions')
    await publish(first, 'shared', 'network', 'aws', '1.0.0', NETWORK_MODULE)
    expect((await versions(second)).body.modules[0].versions.map((entry: { version: string }) => entry.version)).toEqual(['1.0.0'])
    await publish(first, 'shared', 'network', 'aws', '1.1.0', NETWORK_MODULE)
    // The second's cached answer is dropped when it hears of the write (NOTIFY): within moments.
    await eventually(async () => expect((await versions(second)).body.modules[0].versions.length).toBe(2))
    // The archive uploaded through one downloads through the other.
    const download = await second.api('GET', '/api/registry/v1/modules/shared/network/aws/1.1.0/download')
    const archive = await second.fetch(new URL(download.headers.get('x-terraform-get')!, second.url))
    expect(archive.status).toBe(200)
  })

  it('lists a module created through one at once through the other, whose listing was kept', async () => {
    const names = async (replica: TestServer) => (await replica.api('GET', '/organizations/shared/registry-modules')).body.data.map((module: { attributes: { name: string } }) => module.attributes.name)
    expect(await names(second)).not.toContain('listed')
    await createModule(first, 'shared', 'listed', 'aws')
    expect(await names(second)).toContain('listed')
  })

  it('orders the list by downloads through one by the downloads counted through the other, once their counts are written', async () => {
    const byDownloads = async (replica: TestServer) =>
      (await replica.api('GET', '/organizations/shared/registry-modules?sort=-downloads')).body.data.map(({ attributes }: { attributes: { name: string; downloads: number } }) => `${attributes.name} ${attributes.downloads}`)
    await publish(first, 'shared', 'popular', 'aws', '1.0.0', NETWORK_MODULE)
    // Listed through the second, and kept there, before any download.
    expect(await byDownloads(second)).toContain('popular 0')
    for (let download = 0; download < 5; download++) expect((await first.api('GET', '/api/registry/v1/modules/shared/popular/aws/1.0.0/download')).status).toBe(204)
    // The first writes its counts every 2 s; the second hears the write (NOTIFY) and orders its list again.
    await eventually(async () => expect((await byDownloads(second))[0]).toBe('popular 5'))
  })

  it('finds the same modules through either: each replica’s search index follows the other’s writes', async () => {
    const found = async (replica: TestServer, q: string) => (await replica.api('GET', `/search?q=${q}`)).body.data.filter((hit: { attributes: { kind: string } }) => hit.attributes.kind === 'module').map((hit: { attributes: { address: string } }) => hit.attributes.address)
    // Both indexes built, then a module published through the first, found by its README's words and as typed.
    expect(await found(second, 'sidecar')).toEqual([])
    await publish(first, 'shared', 'sidecar', 'aws', '1.0.0', { ...NETWORK_MODULE, 'README.md': '# Sidecar\n\nRuns an envoy sidecar beside each task.\n' })
    for (const replica of [first, second]) await eventually(async () => expect(await found(replica, 'envo')).toEqual([expect.stringMatching(/\/shared\/sidecar\/aws$/)]))
    // Deleted through the second: gone from the first's answers too.
    expect((await second.api('DELETE', '/organizations/shared/registry-modules/private/shared/sidecar/aws')).status).toBe(204)
    await eventually(async () => expect(await found(first, 'envoy')).toEqual([]))
  })

  it('refuses a Homeport backup, in words, and points at pg_dump', async () => {
    const backup = await first.api('GET', '/api/homeport/v1/backup')
    expect(backup.status).toBe(403)
    expect(backup.body.errors[0].detail).toBe('This Homeport keeps its registry in PostgreSQL: back it up with pg_dump (see docs/operations/postgresql.md), not with a Homeport backup.')
  })

  it('completes terraform login through either: a code approved through one is exchanged once, through the other', async () => {
    const owners = ((await first.api('GET', '/organizations/shared/teams')).body.data as Array<{ id: string; attributes: { name: string } }>).find((team) => team.attributes.name === 'owners')!
    const verifier = `${randomUUID()}-${randomUUID()}`
    const redirectUri = 'http://localhost:10007/login'
    const approved = await first.api('POST', '/oauth-authorizations', {
      body: doc('oauth-authorizations', {
        'client-id': 'terraform-cli',
        'redirect-uri': redirectUri,
        'code-challenge': createHash('sha256').update(verifier).digest('base64url'),
        'code-challenge-method': 'S256',
        state: 'state',
        organization: 'shared',
        'team-id': owners.id
      })
    })
    const code = new URL(approved.body.data.attributes['redirect-url'] as string).searchParams.get('code')!
    const exchange = (replica: TestServer) =>
      replica.fetch(`${replica.url}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'terraform-cli', code, redirect_uri: redirectUri, code_verifier: verifier }).toString()
      })
    const [one, other] = await Promise.all([exchange(second), exchange(first)])
    expect([one.status, other.status].sort()).toEqual([200, 400])
    const token = ((await (one.status === 200 ? one : other).json()) as { access_token: string }).access_token
    expect((await first.api('GET', '/organizations/shared', { token })).status).toBe(200)
  })
})

describe.skipIf(!POSTGRES)(`homeport migrate${ONLY}`, () => {
  const databases = () => postgresDatabases(inject('postgresUrl'))
  const homeport = (...args: string[]) => run(process.execPath, [...HOMEPORT_CLI, ...args], { cwd: ROOT })

  it('carries a laptop registry to PostgreSQL and back, checked, and refuses a target that is not empty', async () => {
    const laptop = await mkdtemp(join(tmpdir(), 'homeport-laptop-'))
    const source = await startTestServer({ dataDir: laptop, database: FILE_STORE, adminToken: ADMIN })
    await createOrganization(source, 'carried')
    await publish(source, 'carried', 'network', 'aws', '1.0.0', NETWORK_MODULE)
    const before = (await source.api('GET', '/organizations/carried/registry-modules/private/carried/network/aws')).body.data.attributes
    // A provider with its docs: their outlines are records, their markdown archives.
    const docs = await publishProviderWithDocs(source, 'carried')
    await source.stop()

    const database = await databases().create()
    const { stdout } = await homeport('migrate', '--from', laptop, '--to', database)
    // The version's archive and the zip made of it for OCI clients; the provider's SHA256SUMS, signature and zip; each doc.
    expect(stdout).toMatch(new RegExp(`Migrated \\d+ records and ${2 + 3 + docs.docs.length} archives from .* to postgres://homeport@.*, and checked them\\.`))
    const team = await startTestServer({ dataDir: laptop, database, adminToken: ADMIN })
    try {
      expect((await team.api('GET', '/organizations/carried/registry-modules/private/carried/network/aws')).body.data.attributes).toEqual(before)
      expect((await team.api('GET', '/api/registry/v1/providers/carried/widget/1.0.0')).body).toEqual(docs)
      const one = docs.docs[0]!
      expect((await team.api('GET', `/api/registry/v2/provider-docs/${one.id}`)).body.data.attributes.path).toBe(one.path)
      const download = await team.api('GET', '/api/registry/v1/modules/carried/network/aws/1.0.0/download')
      expect((await team.fetch(new URL(download.headers.get('x-terraform-get')!, team.url))).status).toBe(200)
      const zip = await team.fetch(`${team.url}/v2/modules/carried/network/aws/manifests/1.0.0`, { headers: { Authorization: `Bearer ${ADMIN}` } })
      expect(zip.status).toBe(200)
    } finally {
      await team.stop()
    }
    await expect(homeport('migrate', '--from', laptop, '--to', database)).rejects.toMatchObject({ stderr: expect.stringContaining('The target already holds a registry') })

    const back = await mkdtemp(join(tmpdir(), 'homeport-back-'))
    await homeport('migrate', '--from', database, '--to', back)
    const again = await startTestServer({ dataDir: back, database: FILE_STORE, adminToken: ADMIN })
    try {
      expect((await again.api('GET', '/organizations/carried/registry-modules/private/carried/network/aws')).body.data.attributes).toEqual(before)
      expect((await again.api('GET', '/api/registry/v1/providers/carried/widget/1.0.0')).body).toEqual(docs)
    } finally {
      await again.close()
      await databases().drop(database)
      await rm(laptop, { recursive: true, force: true })
    }
  }, 120_000)
})

describe.skipIf(!POSTGRES)(`single sign-on across two Homeports on one database${ONLY}`, () => {
  let idp: TestOpenIdProvider
  let first: TestServer
  let second: TestServer
  beforeAll(async () => {
    idp = await startOpenIdProvider([{ sub: 'sub-alice', preferred_username: 'alice', groups: ['sso/platform'] }])
    const oidc = { oidcIssuer: idp.issuer, oidcClientId: idp.clientId, oidcClientSecret: idp.clientSecret, adminToken: ADMIN }
    const dataDir = await mkdtemp(join(tmpdir(), 'homeport-replica-sso-'))
    first = await startTestServer({ dataDir, ...oidc })
    second = await startTestServer({ database: await testDatabase(dataDir), ...oidc })
    await createOrganization(first, 'sso')
    await first.api('POST', '/organizations/sso/teams', { body: doc('teams', { name: 'platform' }) })
    await publish(first, 'sso', 'network', 'aws', '1.0.0', NETWORK_MODULE)
  })
  afterAll(async () => {
    await second?.close()
    await first?.close()
    await idp?.close()
  })

  it('finishes on one replica a sign-in started on the other, and the session and a person’s token work on both; a token deleted on one is refused by the other at once', async () => {
    const browser = new Browser()
    const start = await browser.fetch(`${first.url}/auth/oidc/login`)
    const callback = new URL((await browser.visit(start.headers.get('location')!, 'alice', /\/auth\/oidc\/callback/)).url)
    // The provider sends the browser back to whichever replica the load balancer picks: the other one here.
    const landed = await browser.fetch(`${second.url}${callback.pathname}${callback.search}`)
    expect(landed.status).toBe(303)
    const page = (server: TestServer, method: string, path: string, body?: unknown) =>
      browser.fetch(`${server.url}/api/v2${path}`, { method, headers: { 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/vnd.api+json' }, body: body ? JSON.stringify(body) : undefined })
    const account = (await (await page(first, 'GET', '/account/details')).json()) as { data: { id: string; attributes: { username: string } } }
    expect(account.data.attributes.username).toBe('alice')
    expect((await page(second, 'GET', '/organizations/sso')).status).toBe(200)

    const made = (await (await page(first, 'POST', `/users/${account.data.id}/authentication-tokens`, doc('authentication-tokens', { description: 'replicas' }))).json()) as { data: { id: string; attributes: { token: string } } }
    const token = made.data.attributes.token
    const versions = (server: TestServer) => server.api('GET', '/api/registry/v1/modules/sso/network/aws/versions', { token })
    // Read through the protocol on the second, twice: the answer to the token is kept there for the fast path.
    expect((await versions(second)).status).toBe(200)
    expect((await versions(second)).status).toBe(200)
    expect((await second.api('GET', '/account/details', { token })).status).toBe(200)
    expect((await page(first, 'DELETE', `/authentication-tokens/${made.data.id}`)).status).toBe(204)
    expect((await second.api('GET', '/account/details', { token })).status).toBe(401)
    expect((await versions(second)).status).toBe(401)

    // Signed out on one, signed out on both.
    expect((await browser.fetch(`${second.url}/auth/sign-out`, { method: 'POST', headers: { 'Sec-Fetch-Site': 'same-origin' } })).status).toBe(204)
    expect((await page(first, 'GET', '/account/details')).status).toBe(401)
  })
})
