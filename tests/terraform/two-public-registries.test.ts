import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { makeSigningKey, providerRelease, publishProvider, type ProviderRelease, type SigningKey } from '../helpers/providers.js'
import { createModule, createOrganization, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { publicMirrorClient } from '../helpers/terraform-client.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM, initPublicProvider } from '../helpers/terraform-binary.js'
import { eventually } from '../helpers/eventually.js'
import { ociRequest } from '../helpers/oci.js'

/**
 * Terraform's and OpenTofu's public registries, each mirrored from its own upstream: two Homeports
 * stand in for registry.terraform.io and registry.opentofu.org, each publishing hashicorp/null
 * signed by its own key (as the real two do), and community/network/aws at different versions.
 * Each registry's name reaches its own mirror; neither mixes with the other.
 */
interface Upstream {
  server: TestServer
  key: SigningKey
  release: ProviderRelease
}
let terraform: Upstream
let openTofu: Upstream
let homeport: TestServer
let work: string

async function startUpstream(keyName: string, versions: string[], moduleVersion: string): Promise<Upstream> {
  const server = await startTestServer()
  await createOrganization(server, 'hashicorp')
  const key = await makeSigningKey(keyName)
  let release!: ProviderRelease
  for (const version of versions) {
    release = await providerRelease('null', version, ['linux_amd64', 'darwin_arm64'], key)
    await publishProvider(server, 'hashicorp', release, key)
  }
  await createOrganization(server, 'community')
  await publish(server, 'community', 'network', 'aws', moduleVersion, NETWORK_MODULE)
  return { server, key, release }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-two-registries-'))
  terraform = await startUpstream('Terraform Registry', ['3.2.3'], '1.1.0')
  openTofu = await startUpstream('OpenTofu Registry', ['3.2.3', '3.2.4'], '1.2.0')
  homeport = await startTestServer({
    upstream: terraform.server.url,
    upstreamToken: terraform.server.adminToken,
    openTofuUpstream: openTofu.server.url,
    openTofuUpstreamToken: openTofu.server.adminToken,
    upstreamMaxAgeMs: 0
  })
  await createOrganization(homeport, 'acme')
  await createModule(homeport, 'acme', 'network', 'aws', { 'registry-name': 'public', namespace: 'community' })
}, 60_000)
afterAll(async () => {
  await homeport.close()
  await terraform.server.close()
  await openTofu.server.close()
  await rm(work, { recursive: true, force: true })
})

const mirrored = async () =>
  Object.fromEntries(
    ((await homeport.api('GET', '/admin/provider-mirror')).body.data as Array<{ attributes: { hostname: string; versions: Array<{ version: string; 'key-ids': string[] }> } }>).map(({ attributes }) => [
      attributes.hostname,
      attributes.versions.map((version) => `${version.version} ${version['key-ids'].join(',')}`)
    ])
  )

describe('a mirror of both public registries', () => {
  it('pulls each registry’s provider through from its own upstream, with that registry’s signature', async () => {
    const client = publicMirrorClient(homeport)
    const fromTerraform = await client.installProvider('registry.terraform.io/hashicorp/null', '~> 3.2', 'linux_amd64', join(work, 'terraform'))
    const fromOpenTofu = await client.installProvider('registry.opentofu.org/hashicorp/null', '~> 3.2', 'linux_amd64', join(work, 'opentofu'))
    expect(fromTerraform).toMatchObject({ version: '3.2.3', signedBy: terraform.key.keyId })
    expect(fromOpenTofu).toMatchObject({ version: '3.2.4', signedBy: openTofu.key.keyId })
    // Each kept apart, under the name it is served as.
    expect(await mirrored()).toEqual({ 'registry.opentofu.org': [`3.2.4 ${openTofu.key.keyId}`], 'registry.terraform.io': [`3.2.3 ${terraform.key.keyId}`] })
  })

  it('mirrors, lists and removes each registry’s providers apart, in every face', async () => {
    const body = doc('provider-mirrors', { source: 'registry.opentofu.org/hashicorp/null', versions: '3.2.3', platforms: ['darwin_arm64'] })
    const added = await homeport.api('POST', '/admin/provider-mirror', { body })
    expect([added.status, added.body.data.id, added.body.data.attributes.mirrored]).toEqual([201, 'registry.opentofu.org/hashicorp/null', [{ version: '3.2.3', platform: 'darwin_arm64' }]])
    expect((await homeport.api('GET', '/api/registry/provider-mirror/v1/registry.opentofu.org/hashicorp/null/index.json')).body).toEqual({ versions: { '3.2.3': {}, '3.2.4': {} } })
    expect((await homeport.api('GET', '/api/registry/provider-mirror/v1/registry.terraform.io/hashicorp/null/index.json')).body).toEqual({ versions: { '3.2.3': {} } })

    const unknownHost = await homeport.api('DELETE', '/admin/provider-mirror/hashicorp/null/3.2.3?hostname=registry.example.com')
    expect([unknownHost.status, unknownHost.body.errors[0].detail]).toEqual([422, 'Homeport mirrors the public registries registry.terraform.io and registry.opentofu.org, not registry.example.com.'])
    const ociTags = async (host: string) => (await ociRequest(homeport, `/v2/providers/${host}/hashicorp/null/tags/list`)).json().tags
    expect([await ociTags('registry.terraform.io'), await ociTags('registry.opentofu.org')]).toEqual([['3.2.3'], ['3.2.3', '3.2.4']])

    expect((await homeport.api('DELETE', '/admin/provider-mirror/hashicorp/null/3.2.3?hostname=registry.opentofu.org')).status).toBe(204)
    expect(await mirrored()).toEqual({ 'registry.opentofu.org': [`3.2.4 ${openTofu.key.keyId}`], 'registry.terraform.io': [`3.2.3 ${terraform.key.keyId}`] })
  })

  it('pulls a curated public module through from the registry its address names', async () => {
    const versions = async (prefix: string) =>
      ((await homeport.api('GET', `${prefix}/modules/community/network/aws/versions`)).body.modules[0].versions as Array<{ version: string }>).map((entry) => entry.version)
    expect(await versions('/api/registry/public/v1')).toEqual(['1.1.0'])
    expect(await versions('/api/registry/opentofu/v1')).toEqual(['1.2.0'])
    const installed = await publicMirrorClient(homeport).install('registry.opentofu.org/community/network/aws', undefined, join(work, 'module'))
    expect(installed.version).toBe('1.2.0')
    // One curated module for both names: the version pulled from OpenTofu's registry is here for either.
    await eventually(async () => {
      const read = await homeport.api('GET', '/organizations/acme/registry-modules/public/community/network/aws')
      expect(read.body.data.attributes['version-statuses']).toEqual([{ version: '1.2.0', status: 'ok' }])
    })
    const explicit = await homeport.api('POST', '/organizations/acme/registry-modules/public/community/network/aws/mirror', { body: doc('registry-module-versions', { version: '1.1.0', hostname: 'registry.terraform.io' }) })
    expect(explicit.status).toBe(201)
    const wrong = await homeport.api('POST', '/organizations/acme/registry-modules/public/community/network/aws/mirror', { body: doc('registry-module-versions', { version: '1.0.0', hostname: 'registry.example.com' }) })
    expect(wrong.status).toBe(422)
  })

  it('bundles each registry’s provider with that registry’s signature, and imports each into the same registry’s mirror elsewhere', async () => {
    const started = await homeport.api('POST', '/bundles', {
      body: doc('bundles', {
        organization: 'acme',
        platforms: ['linux_amd64'],
        providers: [{ source: 'registry.terraform.io/hashicorp/null', version: '3.2.3' }, { source: 'registry.opentofu.org/hashicorp/null', version: '3.2.4' }]
      })
    })
    expect(started.status).toBe(202)
    const job = await eventually(async () => {
      const read = await homeport.api('GET', `/bundles/${started.body.data.id}`)
      expect(['ready', 'failed']).toContain(read.body.data.attributes.status)
      return read.body.data
    })
    expect(job.attributes.problems).toEqual([])
    const keys = Object.fromEntries(
      (job.attributes.manifest.providers as Array<{ hostname: string; version: string; keys: Array<{ keyId: string }> }>).map((provider) => [`${provider.hostname} ${provider.version}`, provider.keys.map((key) => key.keyId)])
    )
    expect(keys).toEqual({ 'registry.terraform.io 3.2.3': [terraform.key.keyId], 'registry.opentofu.org 3.2.4': [openTofu.key.keyId] })
    const bytes = new Uint8Array(await (await homeport.fetch(`${homeport.url}${job.links.download}`, { headers: { Authorization: `Bearer ${homeport.adminToken}` } })).arrayBuffer())

    // Another Homeport, its upstreams out of reach: each provider lands in its own registry's mirror, served under that name.
    const elsewhere = await startTestServer({ upstream: 'http://127.0.0.1:9', openTofuUpstream: 'http://127.0.0.1:10' })
    try {
      const imported = await elsewhere.fetch(`${elsewhere.url}/api/v2/admin/bundle-imports`, { method: 'POST', headers: { Authorization: `Bearer ${elsewhere.adminToken}`, 'Content-Type': 'application/x-tar' }, body: bytes })
      expect(imported.status).toBe(201)
      const installed = await publicMirrorClient(elsewhere).installProvider('registry.opentofu.org/hashicorp/null', '3.2.4', 'linux_amd64', join(work, 'elsewhere'))
      expect(installed).toMatchObject({ version: '3.2.4', signedBy: openTofu.key.keyId })
      expect((await elsewhere.api('GET', '/api/registry/public/v1/providers/hashicorp/null/versions')).body.versions.map((entry: { version: string }) => entry.version)).toEqual(['3.2.3'])
    } finally {
      await elsewhere.close()
    }
  })

  it(`installs both registries’ providers with the real terraform, each signed by its own registry’s key${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    const mainTf = `terraform {
  required_providers {
    null = {
      source  = "hashicorp/null"
      version = "~> 3.2"
    }
    tofunull = {
      source  = "registry.opentofu.org/hashicorp/null"
      version = "3.2.4"
    }
  }
}
`
    const { stdout, lock } = await initPublicProvider(homeport, join(work, 'real'), work, mainTf)
    expect(stdout).toContain(`- Installed hashicorp/null v3.2.3 (self-signed, key ID ${terraform.key.keyId})`)
    expect(stdout).toContain(`- Installed registry.opentofu.org/hashicorp/null v3.2.4 (self-signed, key ID ${openTofu.key.keyId})`)
    expect(lock).toContain('provider "registry.opentofu.org/hashicorp/null" {')
    expect(lock).toContain('provider "registry.terraform.io/hashicorp/null" {')
  }, 120_000)
})
