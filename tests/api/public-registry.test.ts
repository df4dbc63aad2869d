import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { createModule, createOrganization, createTeamWithToken, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { TerraformClient } from '../helpers/terraform-client.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM, initPublicProvider } from '../helpers/terraform-binary.js'
import { eventually } from '../helpers/eventually.js'

const PUBLIC = '/api/registry/public/v1/modules'

/**
 * The upstream is a second Homeport started by the test, standing in for the public registry:
 * it publishes `community/network/aws` (its namespace is its organization).
 */
let upstream: TestServer
let upstreamToken: string
let homeport: TestServer
let work: string

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-public-'))
  upstream = await startTestServer()
  await createOrganization(upstream, 'community')
  await publish(upstream, 'community', 'network', 'aws', '1.0.0', NETWORK_MODULE)
  await publish(upstream, 'community', 'network', 'aws', '1.1.0', NETWORK_MODULE)
  await publish(upstream, 'community', 'uncached', 'aws', '1.0.0', { 'main.tf': '' })
  for (const version of ['1.0.0', '2.0.0']) await publish(upstream, 'community', 'subnets', 'aws', version, { 'main.tf': `output "v" {\n  value = "${version}"\n}\n` })
  await publish(upstream, 'community', 'gateways', 'aws', '1.0.0', { 'main.tf': 'output "ok" {\n  value = true\n}\n' })
  upstreamToken = (await createTeamWithToken(upstream, 'community', 'mirror')).token

  // Revalidate every time, so the test sees the cache take over when the upstream goes.
  homeport = await startTestServer({ upstream: upstream.url, upstreamToken, upstreamMaxAgeMs: 0 })
  await createOrganization(homeport, 'acme')
  await createModule(homeport, 'acme', 'network', 'aws', { 'registry-name': 'public', namespace: 'community' })
  await createModule(homeport, 'acme', 'uncached', 'aws', { 'registry-name': 'public', namespace: 'community' })
  await createModule(homeport, 'acme', 'subnets', 'aws', { 'registry-name': 'public', namespace: 'community' })
  await createModule(homeport, 'acme', 'gateways', 'aws', { 'registry-name': 'public', namespace: 'community' })
})
afterAll(async () => {
  await homeport.close()
  await upstream.close()
  await rm(work, { recursive: true, force: true })
})

const get = (path: string, token?: string) => homeport.api('GET', `${PUBLIC}${path}`, { token })

describe('proxying curated public modules', () => {
  it('passes the upstream’s versions, version and latest through', async () => {
    const versions = await get('/community/network/aws/versions')
    expect(versions.status).toBe(200)
    expect(versions.body.modules[0].versions.map((v: { version: string }) => v.version)).toEqual(['1.1.0', '1.0.0'])
    const latest = await get('/community/network/aws')
    expect(latest.body.id).toBe('community/network/aws/1.1.0')
    expect(latest.body.root.inputs.length).toBeGreaterThan(0)
    const version = await get('/community/network/aws/1.0.0')
    expect(version.body.id).toBe('community/network/aws/1.0.0')
    expect((await get('/community/network/aws/7.0.0')).status).toBe(404)
  })

  it('serves only modules the caller’s organization curates, and only the three operations', async () => {
    await createOrganization(homeport, 'other')
    const other = await createTeamWithToken(homeport, 'other', 'readers')
    expect((await get('/community/network/aws/versions', other.token)).status).toBe(404)
    expect((await get('/community/elsewhere/aws/versions')).status).toBe(404)
    const list = await get('')
    expect(list.status).toBe(404)
    expect(list.body.errors[0]).toMatch(/three operations/)
    expect((await get('/search?q=network')).status).toBe(404)
  })

  it('pulls a version through on its download while the upstream answers: mirrored on the spot, then served', async () => {
    const client = new TerraformClient({
      hosts: { 'public.homeport.localhost': { 'modules.v1': `${homeport.url}${PUBLIC}/` } },
      credentials: { 'public.homeport.localhost': homeport.adminToken }
    })
    const installed = await client.install('public.homeport.localhost/community/subnets/aws', '~> 1.0', join(work, 'pulled'))
    expect(installed.version).toBe('1.0.0')
    const record = await homeport.api('GET', '/organizations/acme/registry-modules/public/community/subnets/aws')
    expect(record.body.data.attributes['version-statuses']).toEqual([{ version: '1.0.0', status: 'ok' }])
    // Asked again, it is served from here: no second copy.
    expect((await get('/community/subnets/aws/1.0.0/download')).status).toBe(204)
    expect((await homeport.api('GET', '/organizations/acme/registry-modules/public/community/subnets/aws')).body.data.attributes['version-statuses']).toHaveLength(1)
    // A version the upstream lacks is not found, in words.
    const missing = await get('/community/subnets/aws/9.9.9/download')
    expect(missing.status).toBe(404)
    expect(missing.body.errors[0]).toMatch(/9\.9\.9 is not mirrored here, and the public registry cannot mirror it now/)
  })
})

describe('pulling through with the real terraform', () => {
  it(`pulls a public module through for the real terraform and the air-gapped configuration${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    // An unmodified configuration: the public module by its public address, a version not mirrored yet.
    const mainTf = 'module "gateways" {\n  source  = "community/gateways/aws"\n  version = "1.0.0"\n}\n'
    const { stdout } = await initPublicProvider(homeport, join(work, 'real-pull'), join(work, 'real-pull-terraform'), mainTf)
    expect(stdout).toContain('Downloading registry.terraform.io/community/gateways/aws 1.0.0 for gateways...')
    const record = await homeport.api('GET', '/organizations/acme/registry-modules/public/community/gateways/aws')
    expect(record.body.data.attributes['version-statuses'].map((entry: { version: string }) => entry.version)).toContain('1.0.0')
  }, 120_000)
})

describe('mirroring and working offline', () => {
  const mirrorPath = '/organizations/acme/registry-modules/public/community/network/aws/mirror'

  it('mirrors a version, archive and documentation, into the curation record', async () => {
    const response = await homeport.api('POST', mirrorPath, { body: doc('registry-module-versions', { version: '1.1.0' }) })
    expect(response.status).toBe(201)
    expect(response.body.data.attributes).toMatchObject({ version: '1.1.0', source: 'mirror', status: 'reg_ingressing' })
    const settled = await homeport.api('GET', '/organizations/acme/registry-modules/public/community/network/aws')
    expect(settled.body.data.attributes['version-statuses']).toEqual([{ version: '1.1.0', status: expect.stringMatching(/reg_ingressing|ok/) }])
    await eventually(async () => {
      const read = await homeport.api('GET', '/organizations/acme/registry-modules/public/community/network/aws')
      expect(read.body.data.attributes['version-statuses'][0].status).toBe('ok')
    })
    const again = await homeport.api('POST', mirrorPath, { body: doc('registry-module-versions', { version: '1.1.0' }) })
    expect(again.status).toBe(422)
    const missing = await homeport.api('POST', mirrorPath, { body: doc('registry-module-versions', { version: '9.9.9' }) })
    expect(missing.status).toBe(503)
    expect(missing.body.errors[0].detail).toMatch(/has no community\/network\/aws\/9\.9\.9/)
  })

  it('refuses to mirror for a team without Manage modules, and for private modules', async () => {
    const reader = await createTeamWithToken(homeport, 'acme', 'mirror-readers')
    const asReader = await homeport.api('POST', mirrorPath, { token: reader.token, body: doc('registry-module-versions', { version: '1.0.0' }) })
    expect(asReader.status).toBe(404)
    const privatePath = '/organizations/acme/registry-modules/public/acme/network/aws/mirror'
    expect((await homeport.api('POST', privatePath, { body: doc('registry-module-versions', { version: '1.0.0' }) })).status).toBe(404)
  })

  it('keeps answering from its cache, and installing mirrored versions, once the upstream is gone', async () => {
    const client = new TerraformClient({
      hosts: { 'public.homeport.localhost': { 'modules.v1': `${homeport.url}${PUBLIC}/` } },
      credentials: { 'public.homeport.localhost': homeport.adminToken }
    })
    // Asked while online (and so in the cache): subnets has 1.0.0 and 2.0.0 upstream; 1.0.0 alone was pulled through.
    expect((await get('/community/subnets/aws/versions')).body.modules[0].versions).toHaveLength(2)
    await upstream.stop()
    try {
      // Offline, only what is mirrored is offered: Terraform never picks a version it cannot install.
      const subnets = await get('/community/subnets/aws/versions')
      expect(subnets.headers.get('x-homeport-upstream')).toBe('offline; mirrored versions')
      expect(subnets.body.modules[0].versions.map((v: { version: string }) => v.version)).toEqual(['1.0.0'])
      const unmirrored = await get('/community/subnets/aws/2.0.0/download')
      expect(unmirrored.status).toBe(404)
      expect(unmirrored.body.errors[0]).toMatch(/2\.0\.0 is not mirrored here, and the public registry cannot mirror it now .*Available here: 1\.0\.0/)

      const versions = await get('/community/network/aws/versions')
      expect(versions.status).toBe(200)
      expect(versions.headers.get('x-homeport-upstream')).toMatch(/offline/)
      expect(versions.body.modules[0].versions.map((v: { version: string }) => v.version)).toEqual(['1.1.0'])
      expect((await get('/community/network/aws')).body.id).toBe('community/network/aws/1.1.0')

      const installed = await client.install('public.homeport.localhost/community/network/aws', '~> 1.1', join(work, 'offline'))
      expect(installed.version).toBe('1.1.0')

      const uncached = await get('/community/uncached/aws/versions')
      expect(uncached.status).toBe(503)
      expect(uncached.body.errors[0]).toMatch(/cannot be reached[\s\S]*offline/)
      expect(uncached.headers.get('retry-after')).toBe('30')
    } finally {
      await upstream.restart()
    }
  })

  it('serves mirrored versions alone when the upstream is gone and nothing was cached', async () => {
    await homeport.stop()
    await rm(join(homeport.dataDir, 'upstream-cache'), { recursive: true, force: true })
    await homeport.restart()
    await upstream.stop()
    try {
      const versions = await get('/community/network/aws/versions')
      expect(versions.status).toBe(200)
      expect(versions.headers.get('x-homeport-upstream')).toBe('offline; mirrored versions')
      expect(versions.body.modules[0].versions.map((v: { version: string }) => v.version)).toEqual(['1.1.0'])
      const detail = await get('/community/network/aws/1.1.0')
      expect(detail.status).toBe(200)
      expect(detail.body.root.inputs.map((input: { name: string }) => input.name)).toContain('region')
    } finally {
      await upstream.restart()
    }
  })
})
