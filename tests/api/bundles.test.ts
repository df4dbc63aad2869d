import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeSigningKey, providerRelease, publishProvider, type ProviderRelease, type SigningKey } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, doc, publish, settledVersion, startTestServer, type TestServer } from '../helpers/server.js'
import { TerraformClient } from '../helpers/terraform-client.js'
import { eventually } from '../helpers/eventually.js'

/**
 * Bundles of private modules and providers, through the API alone (the GUI's path): made in one
 * Homeport's organization `acme`, imported into another, where the same sources then install.
 */
let source: TestServer
let target: TestServer
let key: SigningKey
let release: ProviderRelease

const CONFIGURATION = {
  'main.tf': `terraform {
  required_providers {
    tool = {
      source  = "homeport.localhost/acme/tool"
      version = ">= 1.0"
    }
  }
}

module "network" {
  source  = "homeport.localhost/acme/network/aws//modules/subnet"
  version = "~> 1.0"
}
`
}

beforeAll(async () => {
  source = await startTestServer({ upstream: 'http://127.0.0.1:9' })
  target = await startTestServer({ upstream: 'http://127.0.0.1:9' })
  await createOrganization(source, 'acme')
  await publish(source, 'acme', 'network', 'aws', '1.0.0', { 'main.tf': 'variable "cidr" {\n  type = string\n}\n', 'modules/subnet/main.tf': 'output "id" {\n  value = "subnet"\n}\n' })
  key = await makeSigningKey('Acme Providers')
  release = await providerRelease('tool', '1.0.0', ['linux_amd64', 'darwin_arm64'], key)
  await publishProvider(source, 'acme', release, key)
}, 60_000)
afterAll(async () => {
  await source.close()
  await target.close()
})

/** Starts a bundle and follows it until it is ready or failed. */
async function makeBundle(attributes: Record<string, unknown>, token?: string) {
  const started = await source.api('POST', '/bundles', { body: doc('bundles', { organization: 'acme', platforms: ['linux_amd64'], ...attributes }), token })
  if (started.status !== 202) return started
  return eventually(async () => {
    const job = await source.api('GET', `/bundles/${started.body.data.id}`, { token })
    if (!['ready', 'failed'].includes(job.body.data.attributes.status)) throw new Error(`the bundle did not finish (${job.body.data.attributes.status})`)
    return job
  })
}

async function importBundle(bytes: Uint8Array<ArrayBuffer>, token = target.adminToken) {
  const response = await target.fetch(`${target.url}/api/v2/admin/bundle-imports`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-tar' }, body: bytes })
  return { status: response.status, body: (await response.json()) as { data?: { attributes: Record<string, unknown> }; errors?: Array<{ detail: string }> } }
}

describe('bundles through the API', () => {
  let bundle: Uint8Array<ArrayBuffer>

  it('makes a bundle of private modules (a part of one) and private providers, with progress, to download once ready', async () => {
    const job = await makeBundle({ configuration: CONFIGURATION })
    expect(job.status).toBe(200)
    const { attributes } = job.body.data
    expect(attributes.status).toBe('ready')
    expect(attributes.problems).toEqual([])
    expect(attributes.steps).toEqual(expect.arrayContaining(['Fetching homeport.localhost/acme/network/aws 1.0.0', 'Fetching homeport.localhost/acme/tool 1.0.0 for linux_amd64']))
    expect(attributes.manifest.modules).toMatchObject([{ hostname: 'homeport.localhost', namespace: 'acme', name: 'network', provider: 'aws', version: '1.0.0', registry: 'private' }])
    expect(attributes.manifest.providers).toMatchObject([{ namespace: 'acme', type: 'tool', version: '1.0.0', registry: 'private', keys: [{ keyId: key.keyId }] }])
    const download = await source.fetch(`${source.url}${job.body.data.links.download}`, { headers: { Authorization: `Bearer ${source.adminToken}` } })
    expect(download.status).toBe(200)
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="acme-\d{4}-\d{2}-\d{2}\.hpbundle"$/)
    bundle = new Uint8Array(await download.arrayBuffer())
    expect(bundle.length).toBe(attributes.size)
  })

  it('imports it into another Homeport: the organization, module and provider, installable by the same sources', async () => {
    const imported = await importBundle(bundle)
    expect(imported.status).toBe(201)
    expect(imported.body.data!.attributes).toMatchObject({
      'created-organizations': ['acme'],
      modules: [{ source: 'homeport.localhost/acme/network/aws', version: '1.0.0', outcome: 'added' }],
      providers: [{ source: 'homeport.localhost/acme/tool', version: '1.0.0', platforms: ['linux_amd64'], outcome: 'added' }]
    })
    expect((await settledVersion(target, 'acme', 'network', 'aws', '1.0.0')).entry.status).toBe('ok')
    const client = new TerraformClient({
      hosts: { 'homeport.localhost': { 'modules.v1': `${target.url}/api/registry/v1/modules/`, 'providers.v1': `${target.url}/api/registry/v1/providers/` } },
      credentials: { 'homeport.localhost': target.adminToken }
    })
    const installDir = await mkdtemp(join(tmpdir(), 'homeport-bundle-api-'))
    onTestFinished(() => rm(installDir, { recursive: true, force: true }))
    const installed = await client.installProvider('homeport.localhost/acme/tool', '>= 1.0', 'linux_amd64', installDir)
    expect(installed).toMatchObject({ version: '1.0.0', signedBy: key.keyId })
    const again = await importBundle(bundle)
    expect(again.body.data!.attributes).toMatchObject({ 'created-organizations': [], modules: [{ outcome: 'present' }], providers: [{ outcome: 'present' }] })
  })

  it('lists what it cannot resolve instead of writing a bundle', async () => {
    const job = await makeBundle({ modules: [{ source: 'homeport.localhost/acme/missing/aws' }, { source: 'example.com/x/y/z' }], providers: [{ source: 'homeport.localhost/acme/tool', version: '>= 2.0' }] })
    expect(job.body.data.attributes.status).toBe('failed')
    expect(job.body.data.attributes.problems).toEqual([
      { what: 'module "module 1" in the list', reason: expect.stringMatching(/^homeport\.localhost\/acme\/missing\/aws: /) },
      { what: 'module "module 2" in the list', reason: 'example.com is neither this Homeport (homeport.localhost) nor a public registry it mirrors' },
      { what: 'provider homeport.localhost/acme/tool', reason: 'no version meets ">= 2.0"; available: 1.0.0' }
    ])
    expect(job.body.data.links.download).toBeUndefined()
  })

  it('refuses bad requests with the reason', async () => {
    const bad = (attributes: Record<string, unknown>) => source.api('POST', '/bundles', { body: doc('bundles', { organization: 'acme', ...attributes }) })
    expect((await bad({ platforms: ['linux'], modules: [{ source: 'a/b/c' }] })).body.errors[0].detail).toBe('"linux" is not a platform (<os>_<arch>, like linux_amd64).')
    expect((await bad({ platforms: ['linux_amd64'] })).body.errors[0].detail).toMatch(/^Give a configuration/)
    expect((await bad({ configuration: { '../main.tf': '' } })).status).toBe(422)
    expect((await bad({ modules: 'vpc' })).status).toBe(422)
    expect((await source.api('POST', '/bundles', { body: doc('bundles', { modules: [{ source: 'a/b/c' }] }) })).status).toBe(422)
  })

  it('takes Manage modules to make a bundle; each job is its maker’s; only the site admin imports', async () => {
    const reader = await createTeamWithToken(source, 'acme', 'readers')
    expect((await makeBundle({ modules: [{ source: 'homeport.localhost/acme/network/aws' }] }, reader.token)).status).toBe(403)
    const publisher = await createTeamWithToken(source, 'acme', 'publishers', true)
    const job = await makeBundle({ modules: [{ source: 'homeport.localhost/acme/network/aws' }] }, publisher.token)
    expect(job.body.data.attributes.status).toBe('ready')
    expect((await source.api('GET', `/bundles/${job.body.data.id}`)).status).toBe(404)
    expect((await source.api('GET', `/bundles/${job.body.data.id}/download`, { token: reader.token })).status).toBe(404)
    await createOrganization(target, 'other')
    const owners = await createTeamWithToken(target, 'other', 'owners-like', true)
    expect((await importBundle(bundle, owners.token)).status).toBe(403)
  })

  it('refuses what is not a bundle, and writes nothing', async () => {
    const garbage = await importBundle(new TextEncoder().encode('not a tar at all'.repeat(100)))
    expect(garbage.status).toBe(422)
    expect(garbage.body.errors![0]!.detail).toMatch(/^This is not a Homeport bundle it can read: /)
  })
})
