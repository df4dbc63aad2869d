import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { unzipSync } from 'fflate'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { providerRelease, publishProvider, startPublicUpstream, type ProviderRelease } from '../helpers/providers.js'
import { createModule, createOrganization, createTeamWithToken, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { HAS_SKOPEO, NEEDS_SKOPEO, skopeo } from '../helpers/skopeo.js'
import { eventually } from '../helpers/eventually.js'
import { ociRequest } from '../helpers/oci.js'

/**
 * What Homeport mirrors of the public registries, served over OCI as it is kept: a provider under
 * both public hostnames when one upstream stands for both (OpenTofu's lock files name
 * registry.opentofu.org where Terraform's name registry.terraform.io; two upstreams are
 * tests/terraform/two-public-registries.test.ts), and a curated public module's mirrored versions. Only what is here: an
 * OCI read never pulls through.
 */
let upstream: TestServer
let homeport: TestServer
let release: ProviderRelease
let work: string

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-oci-mirrors-'))
  const started = await startPublicUpstream()
  upstream = started.upstream
  release = await providerRelease('null', '3.2.3', ['linux_amd64', 'darwin_arm64'], started.key)
  await publishProvider(upstream, 'hashicorp', release, started.key)
  await publishProvider(upstream, 'hashicorp', await providerRelease('null', '3.3.0', ['linux_amd64'], started.key), started.key)
  await createOrganization(upstream, 'community')
  await publish(upstream, 'community', 'network', 'aws', '1.1.0', NETWORK_MODULE)

  // One upstream for both public names (as when both point at another Homeport): one mirror answers for both.
  homeport = await startTestServer({ tls: true, upstream: upstream.url, upstreamToken: upstream.adminToken, openTofuUpstream: upstream.url })
  await createOrganization(homeport, 'acme')
  const mirrored = await homeport.api('POST', '/admin/provider-mirror', { body: doc('provider-mirrors', { source: 'hashicorp/null', versions: '3.2.3', platforms: ['linux_amd64', 'darwin_arm64'] }) })
  expect(mirrored.status).toBe(201)
  await createModule(homeport, 'acme', 'network', 'aws', { 'registry-name': 'public', namespace: 'community' })
  const module = await homeport.api('POST', '/organizations/acme/registry-modules/public/community/network/aws/mirror', { body: doc('registry-module-versions', { version: '1.1.0' }) })
  expect(module.status).toBe(201)
  await eventually(async () => {
    const read = await homeport.api('GET', '/organizations/acme/registry-modules/public/community/network/aws')
    expect(read.body.data.attributes['version-statuses'][0].status).toBe('ok')
  })
}, 60_000)
afterAll(async () => {
  await homeport.close()
  await upstream.close()
  await rm(work, { recursive: true, force: true })
})

const oci = (path: string, token: string = homeport.adminToken) => ociRequest(homeport, path, { token })

describe('mirrored providers and modules over OCI', () => {
  it('serves a mirrored provider under both public hostnames, only the versions and platforms mirrored, its zips as upstream signed them', async () => {
    for (const hostname of ['registry.terraform.io', 'registry.opentofu.org']) {
      const repository = `providers/${hostname}/hashicorp/null`
      expect((await oci(`/v2/${repository}/tags/list`)).json().tags).toEqual(['3.2.3'])
      const index = (await oci(`/v2/${repository}/manifests/3.2.3`)).json()
      expect(index.artifactType).toBe('application/vnd.opentofu.provider')
      expect(index.manifests.map((entry: { platform: { os: string; architecture: string } }) => `${entry.platform.os}_${entry.platform.architecture}`)).toEqual(['darwin_arm64', 'linux_amd64'])
      const platform = (await oci(`/v2/${repository}/manifests/${index.manifests[1].digest}`)).json()
      const zip = release.zips.get('terraform-provider-null_3.2.3_linux_amd64.zip')!
      expect(platform.layers).toEqual([{ mediaType: 'archive/zip', digest: `sha256:${zip.shasum}`, size: zip.bytes.length, annotations: { 'org.opencontainers.image.title': 'terraform-provider-null_3.2.3_linux_amd64.zip' } }])
      expect((await oci(`/v2/${repository}/blobs/sha256:${zip.shasum}`)).bytes.equals(zip.bytes)).toBe(true)
    }
    // Not mirrored: 3.3.0 is upstream's, and a read does not fetch it.
    expect((await oci('/v2/providers/registry.terraform.io/hashicorp/null/manifests/3.3.0')).status).toBe(404)
    const unknown = await oci('/v2/providers/registry.terraform.io/hashicorp/random/tags/list')
    expect([unknown.status, unknown.json().errors[0].code]).toEqual([404, 'NAME_UNKNOWN'])
    expect((await oci('/v2/providers/elsewhere.example/hashicorp/null/tags/list')).status).toBe(404)
  })

  it('serves a curated public module’s mirrored versions to the organizations that curate it', async () => {
    const repository = 'modules/registry.terraform.io/community/network/aws'
    expect((await oci(`/v2/${repository}/tags/list`)).json().tags).toEqual(['1.1.0', 'latest'])
    const { layers, artifactType } = (await oci(`/v2/${repository}/manifests/latest`)).json()
    expect(artifactType).toBe('application/vnd.opentofu.modulepkg')
    const zip = (await oci(`/v2/${repository}/blobs/${layers[0].digest}`)).bytes
    expect(Object.keys(unzipSync(new Uint8Array(zip))).sort()).toEqual(Object.keys(NETWORK_MODULE).sort())

    await createOrganization(homeport, 'other')
    const outsider = (await createTeamWithToken(homeport, 'other', 'readers')).token
    expect((await oci(`/v2/${repository}/tags/list`, outsider)).status).toBe(404)
  })

  it.skipIf(!HAS_SKOPEO)(`skopeo copies the mirrored provider’s zips out byte-identically${NEEDS_SKOPEO}`, async () => {
    const client = await skopeo(homeport.server.tls!.trustPath)
    onTestFinished(() => client.remove())
    const dir = join(work, 'null')
    const host = new URL(homeport.url).host
    await client.run(['copy', '--all', '--src-cert-dir', client.certDir, '--src-creds', `homeport:${homeport.adminToken}`, `docker://${host}/providers/registry.opentofu.org/hashicorp/null:3.2.3`, `oci:${dir}:3.2.3`])
    for (const zip of release.zips.values()) {
      const copied = await readFile(join(dir, 'blobs', 'sha256', zip.shasum))
      expect(createHash('sha256').update(copied).digest('hex')).toBe(zip.shasum)
    }
  })

  it.skipIf(!HAS_SKOPEO)(`skopeo lists no tag the gate holds back, and cannot copy it${NEEDS_SKOPEO}`, async () => {
    const client = await skopeo(homeport.server.tls!.trustPath)
    onTestFinished(() => client.remove())
    const host = new URL(homeport.url).host
    const repository = `docker://${host}/providers/registry.opentofu.org/hashicorp/null`
    const creds = ['--creds', `homeport:${homeport.adminToken}`]
    expect(JSON.parse(await client.run(['list-tags', '--cert-dir', client.certDir, ...creds, repository])).Tags).toContain('3.2.3')
    const rule = await homeport.api('POST', '/admin/gate/policy/rules', { body: doc('gate-rules', { effect: 'block', pattern: 'registry.opentofu.org/hashicorp/null', versions: '= 3.2.3', reason: 'held for review' }) })
    expect(rule.status).toBe(201)
    try {
      expect(JSON.parse(await client.run(['list-tags', '--cert-dir', client.certDir, ...creds, repository])).Tags).not.toContain('3.2.3')
      await expect(client.run(['inspect', '--cert-dir', client.certDir, ...creds, `${repository}:3.2.3`])).rejects.toThrow(/manifest unknown|not found/i)
    } finally {
      const rules = (await homeport.api('GET', '/admin/gate/policy')).body.data.attributes.rules as Array<{ id: string }>
      for (const { id } of rules) await homeport.api('DELETE', `/admin/gate/policy/rules/${id}`)
    }
  })
})
