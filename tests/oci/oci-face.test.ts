import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { unzipSync } from 'fflate'
import { NETWORK_MODULE, zipDirectory } from '../helpers/archives.js'
import { makeSigningKey, providerRelease, publishProvider, type ProviderRelease } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { HAS_SKOPEO, NEEDS_SKOPEO, skopeo, type Skopeo } from '../helpers/skopeo.js'
import { ociRequest, type OciRequest } from '../helpers/oci.js'

/**
 * The OCI Distribution face, as OpenTofu reads it (shared/research/opentofu.md §1b) and as a real
 * OCI client (skopeo) copies from it: over HTTPS, behind the token challenge, with the registry's
 * own access rules.
 */
let test: TestServer
let release: ProviderRelease
let outsider: string
let work: string

const PROVIDER = 'providers/homeport.localhost/acme/widget'
const MODULE = 'modules/acme/network/aws'
/** A module as people publish it, with a binary file (a zip must keep its bytes). */
const FILES = { ...NETWORK_MODULE, 'files/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255, 128, 7]) }

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-oci-'))
  test = await startTestServer({ tls: true })
  await createOrganization(test, 'acme')
  await createOrganization(test, 'other')
  outsider = (await createTeamWithToken(test, 'other', 'readers')).token
  const key = await makeSigningKey()
  release = await providerRelease('widget', '0.3.0', ['linux_amd64', 'darwin_arm64'], key)
  await publishProvider(test, 'acme', release, key)
  await publish(test, 'acme', 'network', 'aws', '1.0.0', FILES)
  await publish(test, 'acme', 'network', 'aws', '1.1.0', { ...FILES, 'README.md': '# Network\n\nNow with IPv6.\n' })
}, 60_000)
afterAll(async () => {
  await test.close()
  await rm(work, { recursive: true, force: true })
})

const oci = (path: string, request?: OciRequest) => ociRequest(test, path, request)

/** The server's host and port (a restart moves it). */
const host = () => new URL(test.url).host
const sha256 = (bytes: Buffer | Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`

describe('the OCI face: authentication as OCI clients do it', () => {
  it('challenges a request without credentials, /v2/ included, to the token endpoint', async () => {
    const ping = await oci('/v2/', { token: null })
    expect(ping.status).toBe(401)
    expect(ping.headers.get('www-authenticate')).toBe(`Bearer realm="${test.url}/v2/token",service="${host()}"`)
    expect(ping.json()).toEqual({ errors: [{ code: 'UNAUTHORIZED', message: expect.stringContaining('Homeport API token as the password'), detail: { code: 'UNAUTHORIZED' } }] })
    const tags = await oci(`/v2/${MODULE}/tags/list`, { token: null })
    expect(tags.status).toBe(401)
    expect(tags.headers.get('www-authenticate')).toContain(`scope="repository:${MODULE}:pull"`)
    const stale = await oci('/v2/', { token: 'not-a-token' })
    expect(stale.status).toBe(401)
    expect(stale.headers.get('www-authenticate')).toContain('error="invalid_token"')

    const welcome = await oci('/v2/')
    expect(welcome.status).toBe(200)
    expect(welcome.headers.get('docker-distribution-api-version')).toBe('registry/2.0')
  })

  it('gives a Homeport token presented as the Basic password (or an OAuth2 refresh token) back as the bearer token, and nothing to anyone else', async () => {
    const basic = (password: string) => `Basic ${Buffer.from(`anyone:${password}`).toString('base64')}`
    const granted = await oci(`/v2/token?service=${host()}&scope=repository:${MODULE}:pull`, { token: null, headers: { Authorization: basic(test.adminToken) } })
    expect(granted.status).toBe(200)
    expect(granted.json()).toMatchObject({ token: test.adminToken, access_token: test.adminToken, expires_in: 3600 })
    const refreshed = await test.fetch(`${test.url}/v2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: outsider, service: host(), scope: `repository:${MODULE}:pull` }).toString()
    })
    expect(refreshed.status).toBe(200)
    expect(((await refreshed.json()) as { token: string }).token).toBe(outsider)

    for (const headers of [{}, { Authorization: basic('wrong') }, { Authorization: 'Basic !!' }] as Array<Record<string, string>>) {
      const refused = await oci('/v2/token', { token: null, headers })
      expect(refused.status).toBe(401)
      expect(refused.json().errors[0].code).toBe('UNAUTHORIZED')
    }
  })

  it('shows a token only what it may read through the registry protocol: another organization’s repositories are unknown', async () => {
    for (const path of [`/v2/${MODULE}/tags/list`, `/v2/${PROVIDER}/manifests/0.3.0`]) {
      const hidden = await oci(path, { token: outsider })
      expect(hidden.status).toBe(404)
      expect(hidden.json().errors[0].code).toBe('NAME_UNKNOWN')
    }
    const zip = release.zips.get('terraform-provider-widget_0.3.0_linux_amd64.zip')!
    const blob = await oci(`/v2/${PROVIDER}/blobs/sha256:${zip.shasum}`, { token: outsider })
    expect(blob.status).toBe(404)
  })
})

describe('the OCI face: providers in OpenTofu’s layout', () => {
  it('tags each version and answers an index of one archive/zip manifest per platform, the zips byte-identical to providers.v1’s', async () => {
    expect((await oci(`/v2/${PROVIDER}/tags/list`)).json()).toEqual({ name: PROVIDER, tags: ['0.3.0'] })
    const index = await oci(`/v2/${PROVIDER}/manifests/0.3.0`)
    expect(index.status).toBe(200)
    expect(index.headers.get('content-type')).toBe('application/vnd.oci.image.index.v1+json')
    expect(index.headers.get('docker-content-digest')).toBe(sha256(index.bytes))
    expect(Number(index.headers.get('content-length'))).toBe(index.bytes.length)
    const body = index.json()
    expect(body).toMatchObject({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', artifactType: 'application/vnd.opentofu.provider' })
    expect(body.manifests.map((entry: { platform: unknown }) => entry.platform)).toEqual([
      { architecture: 'arm64', os: 'darwin' },
      { architecture: 'amd64', os: 'linux' }
    ])
    for (const entry of body.manifests as Array<{ digest: string; size: number; artifactType: string; mediaType: string; platform: { os: string; architecture: string } }>) {
      expect(entry.artifactType).toBe('application/vnd.opentofu.provider-target')
      const manifest = await oci(`/v2/${PROVIDER}/manifests/${entry.digest}`)
      expect(sha256(manifest.bytes)).toBe(entry.digest)
      expect(manifest.bytes.length).toBe(entry.size)
      expect(manifest.headers.get('content-type')).toBe(entry.mediaType)
      const { layers, artifactType, config } = manifest.json()
      expect(artifactType).toBe('application/vnd.opentofu.provider-target')
      expect(config.mediaType).toBe('application/vnd.oci.empty.v1+json')
      expect(layers).toHaveLength(1)
      expect(layers[0].mediaType).toBe('archive/zip')
      const filename = `terraform-provider-widget_0.3.0_${entry.platform.os}_${entry.platform.architecture}.zip`
      const zip = release.zips.get(filename)!
      expect(layers[0]).toMatchObject({ digest: `sha256:${zip.shasum}`, size: zip.bytes.length, annotations: { 'org.opencontainers.image.title': filename } })
      const blob = await oci(`/v2/${PROVIDER}/blobs/${layers[0].digest}`)
      expect(blob.headers.get('docker-content-digest')).toBe(layers[0].digest)
      expect(blob.bytes.equals(zip.bytes)).toBe(true)
      const config_ = await oci(`/v2/${PROVIDER}/blobs/${config.digest}`)
      expect(config_.bytes.toString()).toBe('{}')
    }
  })

  it('answers HEAD with the headers alone, and byte ranges of a blob', async () => {
    const head = await oci(`/v2/${PROVIDER}/manifests/0.3.0`, { method: 'HEAD' })
    const get = await oci(`/v2/${PROVIDER}/manifests/0.3.0`)
    expect(head.status).toBe(200)
    expect(head.bytes.length).toBe(0)
    expect(head.headers.get('docker-content-digest')).toBe(get.headers.get('docker-content-digest'))
    expect(head.headers.get('content-length')).toBe(String(get.bytes.length))
    const zip = release.zips.get('terraform-provider-widget_0.3.0_linux_amd64.zip')!
    const part = await oci(`/v2/${PROVIDER}/blobs/sha256:${zip.shasum}`, { headers: { Range: 'bytes=10-19' } })
    expect(part.status).toBe(206)
    expect(part.bytes.equals(zip.bytes.subarray(10, 20))).toBe(true)
  })

  it('keeps each version’s digests: the same after a restart', async () => {
    const before = (await oci(`/v2/${PROVIDER}/manifests/0.3.0`)).headers.get('docker-content-digest')
    const moduleBefore = (await oci(`/v2/${MODULE}/manifests/1.0.0`)).headers.get('docker-content-digest')
    await test.restart()
    expect((await oci(`/v2/${PROVIDER}/manifests/0.3.0`)).headers.get('docker-content-digest')).toBe(before)
    expect((await oci(`/v2/${MODULE}/manifests/1.0.0`)).headers.get('docker-content-digest')).toBe(moduleBefore)
  })
})

describe('the OCI face: modules in OpenTofu’s layout', () => {
  it('tags each version and latest, each a modulepkg manifest whose one archive/zip layer holds the module’s files at its root', async () => {
    expect((await oci(`/v2/${MODULE}/tags/list`)).json()).toEqual({ name: MODULE, tags: ['1.0.0', '1.1.0', 'latest'] })
    const manifest = await oci(`/v2/${MODULE}/manifests/1.0.0`)
    expect(manifest.headers.get('content-type')).toBe('application/vnd.oci.image.manifest.v1+json')
    const body = manifest.json()
    expect(body).toMatchObject({ schemaVersion: 2, artifactType: 'application/vnd.opentofu.modulepkg', config: { mediaType: 'application/vnd.oci.empty.v1+json', size: 2 } })
    expect(body.layers).toHaveLength(1)
    expect(body.layers[0].mediaType).toBe('archive/zip')
    const blob = await oci(`/v2/${MODULE}/blobs/${body.layers[0].digest}`)
    expect(sha256(blob.bytes)).toBe(body.layers[0].digest)
    const files = unzipSync(new Uint8Array(blob.bytes))
    expect(Object.keys(files).sort()).toEqual(Object.keys(FILES).sort())
    for (const [path, content] of Object.entries(FILES)) expect(Buffer.from(files[path]!).equals(Buffer.from(content))).toBe(true)
    // Text is deflated; an image, compressed already, is stored as it is.
    const directory = zipDirectory(blob.bytes)
    expect(directory.get('main.tf')?.method).toBe(8)
    expect(directory.get('files/logo.png')?.method).toBe(0)

    const latest = await oci(`/v2/${MODULE}/manifests/latest`)
    expect(latest.headers.get('docker-content-digest')).toBe((await oci(`/v2/${MODULE}/manifests/1.1.0`)).headers.get('docker-content-digest'))
    // OpenTofu's `?digest=` form: the manifest by its digest.
    const byDigest = await oci(`/v2/${MODULE}/manifests/${manifest.headers.get('docker-content-digest')}`)
    expect(byDigest.bytes.equals(manifest.bytes)).toBe(true)
  })

  it('counts a fetch of a module’s zip as a download, as the registry protocol does', async () => {
    const before = await test.api('GET', '/api/registry/v2/modules/acme/network/aws/downloads/summary')
    const { layers } = (await oci(`/v2/${MODULE}/manifests/1.1.0`)).json()
    await oci(`/v2/${MODULE}/blobs/${layers[0].digest}`)
    await test.server.services.downloads.flushPending()
    const after = await test.api('GET', '/api/registry/v2/modules/acme/network/aws/downloads/summary')
    expect(after.body.data.attributes.total).toBe(before.body.data.attributes.total + 1)
  })

  it('pages tags with n and last, linking to the next page', async () => {
    const first = await oci(`/v2/${MODULE}/tags/list?n=2`)
    expect(first.json().tags).toEqual(['1.0.0', '1.1.0'])
    expect(first.headers.get('link')).toBe(`</v2/${MODULE}/tags/list?n=2&last=1.1.0>; rel="next"`)
    const second = await oci(`/v2/${MODULE}/tags/list?n=2&last=1.1.0`)
    expect(second.json().tags).toEqual(['latest'])
    expect(second.headers.get('link')).toBeNull()
  })

  it('answers what it cannot serve in OCI’s error format: unknown names, manifests and blobs, bad names, and writes', async () => {
    const cases: Array<[string, string, number, string]> = [
      ['GET', `/v2/${MODULE}/manifests/9.9.9`, 404, 'MANIFEST_UNKNOWN'],
      ['GET', `/v2/${MODULE}/blobs/sha256:${'0'.repeat(64)}`, 404, 'BLOB_UNKNOWN'],
      ['GET', '/v2/modules/acme/nothing/aws/tags/list', 404, 'NAME_UNKNOWN'],
      ['GET', '/v2/images/alpine/tags/list', 404, 'NAME_UNKNOWN'],
      ['GET', '/v2/modules/Acme/network/aws/tags/list', 400, 'NAME_INVALID'],
      ['PUT', `/v2/${MODULE}/manifests/2.0.0`, 405, 'UNSUPPORTED'],
      ['POST', `/v2/${MODULE}/blobs/uploads/`, 405, 'UNSUPPORTED'],
      ['DELETE', `/v2/${MODULE}/manifests/1.0.0`, 405, 'UNSUPPORTED']
    ]
    for (const [method, path, status, code] of cases) {
      const answer = await oci(path, { method })
      expect([method, path, answer.status]).toEqual([method, path, status])
      expect(answer.json().errors[0].code).toBe(code)
    }
  })
})

describe(`skopeo, a real OCI client, against Homeport${NEEDS_SKOPEO}`, () => {
  let client: Skopeo
  beforeAll(async () => {
    if (HAS_SKOPEO) client = await skopeo(test.server.tls!.trustPath)
  })
  afterAll(() => (HAS_SKOPEO ? client.remove() : undefined))
  const creds = (token: string) => `homeport:${token}`

  it.skipIf(!HAS_SKOPEO)('inspects a provider’s index and a module’s manifest as Homeport serves them, over HTTPS after the challenge', async () => {
    for (const [repository, tag] of [
      [PROVIDER, '0.3.0'],
      [MODULE, 'latest']
    ] as const) {
      const raw = await client.run(['inspect', '--raw', '--cert-dir', client.certDir, '--creds', creds(test.adminToken), `docker://${host()}/${repository}:${tag}`])
      expect(raw).toBe((await oci(`/v2/${repository}/manifests/${tag}`)).bytes.toString('utf8'))
    }
    const tags = JSON.parse(await client.run(['list-tags', '--cert-dir', client.certDir, '--creds', creds(test.adminToken), `docker://${host()}/${MODULE}`]))
    expect(tags.Tags).toEqual(['1.0.0', '1.1.0', 'latest'])
  })

  it.skipIf(!HAS_SKOPEO)('copies every platform of a provider and a module out byte-identically, with a token, and is refused without one', async () => {
    const providerDir = join(work, 'provider-layout')
    await client.run(['copy', '--all', '--src-cert-dir', client.certDir, '--src-creds', creds(test.adminToken), `docker://${host()}/${PROVIDER}:0.3.0`, `oci:${providerDir}:0.3.0`])
    const copied = async (digest: string) => readFile(join(providerDir, 'blobs', 'sha256', digest.slice('sha256:'.length)))
    const served = (await oci(`/v2/${PROVIDER}/manifests/0.3.0`)).json()
    for (const entry of served.manifests as Array<{ digest: string }>) {
      // Each platform's manifest and zip arrive as Homeport serves them.
      const manifest = await copied(entry.digest)
      expect(manifest.equals((await oci(`/v2/${PROVIDER}/manifests/${entry.digest}`)).bytes)).toBe(true)
      const layer = JSON.parse(manifest.toString('utf8')).layers[0]
      const zip = [...release.zips.values()].find((candidate) => `sha256:${candidate.shasum}` === layer.digest)!
      expect((await copied(layer.digest)).equals(zip.bytes)).toBe(true)
    }
    // skopeo 1.9 (Debian's; containers/image 5.23) writes the index again without its artifactType, which
    // it does not know yet, and refuses --preserve-digests for it; the index it wrote lists the same manifests.
    const [written] = JSON.parse(await readFile(join(providerDir, 'index.json'), 'utf8')).manifests
    expect(JSON.parse((await copied(written.digest)).toString('utf8')).manifests.map((entry: { digest: string }) => entry.digest)).toEqual(
      served.manifests.map((entry: { digest: string }) => entry.digest)
    )

    const moduleDir = join(work, 'module-layout')
    await client.run(['copy', '--src-cert-dir', client.certDir, '--src-creds', creds(test.adminToken), `docker://${host()}/${MODULE}:1.0.0`, `oci:${moduleDir}:1.0.0`])
    const { layers } = (await oci(`/v2/${MODULE}/manifests/1.0.0`)).json()
    const moduleZip = await readFile(join(moduleDir, 'blobs', 'sha256', layers[0].digest.slice('sha256:'.length)))
    expect(sha256(moduleZip)).toBe(layers[0].digest)
    const { manifests } = JSON.parse(await readFile(join(moduleDir, 'index.json'), 'utf8'))
    expect(manifests[0].digest).toBe((await oci(`/v2/${MODULE}/manifests/1.0.0`)).headers.get('docker-content-digest'))

    await expect(client.run(['inspect', '--raw', '--cert-dir', client.certDir, `docker://${host()}/${MODULE}:1.0.0`])).rejects.toThrow(/unauthorized|authentication required/i)
    await expect(client.run(['inspect', '--raw', '--cert-dir', client.certDir, '--creds', creds(outsider), `docker://${host()}/${MODULE}:1.0.0`])).rejects.toThrow(/name unknown|not found|NAME_UNKNOWN/i)
  })
})
