import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFile } from 'node:child_process'
import { createServer } from 'node:http'
import { unzipSync } from 'fflate'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { AddressInfo } from 'node:net'
import { makeSigningKey, providerRelease, type ProviderRelease, publishProvider, sign, type SigningKey, startPublicUpstream } from '../helpers/providers.js'
import { doc, startTestServer, type TestServer } from '../helpers/server.js'
import { dirHash, publicMirrorClient } from '../helpers/terraform-client.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM, initPublicProvider, lockPublicProvider } from '../helpers/terraform-binary.js'
import { HOMEPORT_CLI } from '../helpers/cli.js'

const run = promisify(execFile)
const PUBLIC = 'registry.terraform.io'
let upstream: TestServer
let homeport: TestServer
let work: string
let key: SigningKey
let release: ProviderRelease

/**
 * A second Homeport stands in for the public registry: its organization `hashicorp` publishes
 * `null`, signed by its own key, which is what registry.terraform.io/hashicorp/null is to Terraform.
 */
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-mirror-'))
  const started = await startPublicUpstream()
  upstream = started.upstream
  key = started.key
  release = await providerRelease('null', '3.2.3', ['linux_amd64', 'darwin_arm64', 'windows_amd64'], key)
  await publishProvider(upstream, 'hashicorp', release, key)
  homeport = await startTestServer({ upstream: upstream.url, upstreamToken: upstream.adminToken, upstreamMaxAgeMs: 0 })
})
afterAll(async () => {
  await homeport.close()
  await upstream.close().catch(() => undefined)
  await rm(work, { recursive: true, force: true })
})

const client = () => publicMirrorClient(homeport)

describe('a mirror of public providers', () => {
  it('pulls a package through on first use, verified by upstream’s own signature and keys', async () => {
    const installed = await client().installProvider(`${PUBLIC}/hashicorp/null`, '~> 3.2', 'linux_amd64', join(work, 'online'))
    expect(installed).toMatchObject({ version: '3.2.3', signedBy: key.keyId })
    // Upstream's SHA256SUMS, re-served as it is: every platform can be locked.
    expect(installed.hashes.filter((hash) => hash.startsWith('zh:')).sort()).toEqual([...release.zips.values()].map((zip) => `zh:${zip.shasum}`).sort())
    const mirrored = await homeport.server.services.store.providerMirror.all()
    expect(mirrored.map((provider) => `${provider.hostname}/${provider.namespace}/${provider.type}`)).toEqual([new URL(upstream.url).host + '/hashicorp/null'])
    expect(mirrored[0]!.versions[0]!.platforms.map((platform) => `${platform.os}_${platform.arch}`)).toEqual(['linux_amd64'])
    // OpenTofu's multi-platform hashes list what is mirrored, with the h1: Terraform computed on install.
    const download = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/3.2.3/download/linux/amd64')
    const zip = release.zips.get('terraform-provider-null_3.2.3_linux_amd64.zip')!
    expect(download.body.packages).toEqual({ linux_amd64: { hashes: [installed.hashes.find((hash) => hash.startsWith('h1:')), `zh:${zip.shasum}`], package_size: zip.bytes.length } })
  })

  it('mirrors named versions and platforms ahead of time (site admin only)', async () => {
    const body = doc('provider-mirrors', { source: 'hashicorp/null', versions: '~> 3.2', platforms: ['darwin_arm64', 'linux_amd64'] })
    const mirrored = await homeport.api('POST', '/admin/provider-mirror', { body })
    expect(mirrored.status).toBe(201)
    expect(mirrored.body.data.attributes.mirrored).toEqual([
      { version: '3.2.3', platform: 'darwin_arm64' },
      { version: '3.2.3', platform: 'linux_amd64' }
    ])
    // Terraform's ~> 3.0 means >= 3.0 < 4.0 (node-semver's tilde would stop at 3.1).
    const pessimistic = await homeport.api('POST', '/admin/provider-mirror', { body: doc('provider-mirrors', { source: 'hashicorp/null', versions: '~> 3.0', platforms: ['linux_amd64'] }) })
    expect(pessimistic.body.data.attributes.mirrored).toEqual([{ version: '3.2.3', platform: 'linux_amd64' }])
    expect((await homeport.api('POST', '/admin/provider-mirror', { body: doc('provider-mirrors', { source: 'hashicorp/null', versions: 'latest', platforms: ['linux_amd64'] }) })).status).toBe(422)
    expect((await homeport.api('POST', '/admin/provider-mirror', { body: doc('provider-mirrors', { source: 'hashicorp/null', platforms: [] }) })).status).toBe(422)
    expect((await homeport.api('POST', '/admin/provider-mirror', { body: doc('provider-mirrors', { source: 'nonsense' }) })).status).toBe(422)
  })

  it('mirrors from the command line, through the running Homeport', async () => {
    const { stdout } = await run(
      process.execPath,
      [...HOMEPORT_CLI, 'mirror-provider', 'hashicorp/null', '--versions', '~> 3.2', '--platform', 'windows_amd64', '--data-dir', homeport.dataDir],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)) }
    )
    expect(stdout).toContain('Mirrored hashicorp/null 3.2.3 for windows_amd64.')
  })

  it('passes on the upstream’s warnings, as Terraform would have read them there', async () => {
    const version = '/organizations/hashicorp/registry-providers/private/hashicorp/null/versions/3.2.3'
    const deprecation = (change: Record<string, unknown>) => upstream.api('PATCH', version, { body: doc('registry-provider-versions', { deprecation: change }) })
    expect((await deprecation({ 'deprecated-status': 'Deprecated', reason: 'Use the terraform_data resource instead.' })).status).toBe(200)
    try {
      const installed = await client().installProvider(`${PUBLIC}/hashicorp/null`, '~> 3.2', 'linux_amd64', join(work, 'warned'))
      expect(installed.warnings).toEqual(['hashicorp/null 3.2.3 is deprecated: Use the terraform_data resource instead.'])
    } finally {
      await deprecation({ 'deprecated-status': 'Undeprecated' })
    }
    expect((await client().installProvider(`${PUBLIC}/hashicorp/null`, '~> 3.2', 'linux_amd64', join(work, 'unwarned'))).warnings).toEqual([])
  })

  it(`installs with the real terraform and the generated air-gapped configuration, online${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    const { stdout, lock } = await initPublicProvider(homeport, join(work, 'real-online'), work)
    expect(stdout).toContain(`- Installed hashicorp/null v3.2.3 (self-signed, key ID ${key.keyId})`)
    expect(lock).toContain(`provider "${PUBLIC}/hashicorp/null" {`)
    for (const zip of release.zips.values()) expect(lock).toContain(`"zh:${zip.shasum}"`)
  }, 120_000)

  it(`locks every platform with the real terraform providers lock, pulling each through${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    const { output, failed, lock } = await lockPublicProvider(homeport, join(work, 'lock-online'), work, ['linux_amd64', 'darwin_arm64', 'windows_amd64'])
    expect(failed, output).toBe(false)
    expect(lock.match(/"h1:/g)).toHaveLength(3)
    for (const zip of release.zips.values()) expect(lock).toContain(`"zh:${zip.shasum}"`)
  }, 120_000)

  it('keeps serving what it mirrored once the upstream is gone, and says plainly what it lacks', async () => {
    await upstream.stop()
    const installed = await client().installProvider(`${PUBLIC}/hashicorp/null`, '~> 3.2', 'darwin_arm64', join(work, 'offline'))
    expect(installed).toMatchObject({ version: '3.2.3', signedBy: key.keyId })
    // Offline, only mirrored versions and platforms are offered.
    const versions = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/versions')
    expect(versions.body.versions).toEqual([
      { version: '3.2.3', protocols: ['5.0'], platforms: [{ os: 'linux', arch: 'amd64' }, { os: 'darwin', arch: 'arm64' }, { os: 'windows', arch: 'amd64' }] }
    ])
    // The network mirror protocol offers the same packages by the public name, from the mirror alone.
    const index = await homeport.api('GET', `/api/registry/provider-mirror/v1/${PUBLIC}/hashicorp/null/index.json`)
    expect(index.body).toEqual({ versions: { '3.2.3': {} } })
    const archives = (await homeport.api('GET', `/api/registry/provider-mirror/v1/${PUBLIC}/hashicorp/null/3.2.3.json`)).body.archives as Record<string, { hashes: string[] }>
    expect(Object.keys(archives).sort()).toEqual(['darwin_arm64', 'linux_amd64', 'windows_amd64'])
    const linux = release.zips.get('terraform-provider-null_3.2.3_linux_amd64.zip')!
    expect(archives.linux_amd64!.hashes).toEqual([dirHash(unzipSync(new Uint8Array(linux.bytes))), `zh:${linux.shasum}`])
    // A platform not mirrored is missing, as the versions list says, not a 503 Terraform would retry.
    const missing = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/3.2.3/download/freebsd/amd64')
    expect(missing.status).toBe(404)
    expect(missing.body.errors[0]).toBe('hashicorp/null 3.2.3 has no package for freebsd_amd64 here, and the upstream registry cannot be reached: offline, only mirrored platforms are offered.')
    const unknown = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/random/versions')
    expect(unknown.status).toBe(404)
    expect(unknown.body.errors[0]).toMatch(/is not mirrored here, and the upstream registry cannot be reached/)
  })

  it(`installs with the real terraform offline, from the mirror alone${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    const { stdout, lock } = await initPublicProvider(homeport, join(work, 'real-offline'), work)
    expect(stdout).toContain(`- Installed hashicorp/null v3.2.3 (self-signed, key ID ${key.keyId})`)
    for (const zip of release.zips.values()) expect(lock).toContain(`"zh:${zip.shasum}"`)
  }, 120_000)

  it(`offline, locks the mirrored platforms, and names one it lacks in Terraform's own words${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    const mirrored = await lockPublicProvider(homeport, join(work, 'lock-offline'), work, ['linux_amd64', 'darwin_arm64'])
    expect(mirrored.failed, mirrored.output).toBe(false)
    expect(mirrored.lock.match(/"h1:/g)).toHaveLength(2)
    const lacking = await lockPublicProvider(homeport, join(work, 'lock-lacking'), work, ['linux_amd64', 'freebsd_amd64'])
    expect(lacking.failed).toBe(true)
    const unwrapped = lacking.output.replace(/\s+/g, ' ')
    expect(unwrapped).toContain('provider registry.terraform.io/hashicorp/null 3.2.3 is not available for freebsd_amd64.')
    expect(unwrapped).not.toMatch(/Service Unavailable|Internal Server Error/)
  }, 120_000)
})

describe('an upstream that cannot be trusted', () => {
  it('never stores or serves a package whose checksums or signature do not verify', async () => {
    const honest = await makeSigningKey('Honest')
    const forger = await makeSigningKey('Forger')
    const good = await providerRelease('evil', '1.0.0', ['linux_amd64'], honest)
    const zip = good.zips.get('terraform-provider-evil_1.0.0_linux_amd64.zip')!
    // What the fake registry serves for each kind of lie.
    const lies: Record<string, { sums: Buffer; sig: Buffer; shasum: string }> = {
      'bad-signature': { sums: good.shasums, sig: await sign(good.shasums, forger), shasum: zip.shasum },
      'bad-checksum': { sums: good.shasums, sig: good.signature, shasum: 'f'.repeat(64) },
      garbage: { sums: Buffer.from('<html>not sums</html>'), sig: Buffer.from('nope'), shasum: zip.shasum }
    }
    const fake = createServer((req, res) => {
      const url = new URL(req.url!, 'http://fake')
      const [, , lie, file] = url.pathname.split('/')
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' })
        res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body))
      }
      if (url.pathname === '/.well-known/terraform.json') return send(200, { 'providers.v1': '/v1/providers/' })
      const versions = /^\/v1\/providers\/acme\/([a-z-]+)\/versions$/.exec(url.pathname)
      if (versions) return send(200, { versions: [{ version: '1.0.0', protocols: ['5.0'], platforms: [{ os: 'linux', arch: 'amd64' }] }] })
      const download = /^\/v1\/providers\/acme\/([a-z-]+)\/1\.0\.0\/download\/linux\/amd64$/.exec(url.pathname)
      if (download && lies[download[1]!]) {
        return send(200, {
          protocols: ['5.0'], os: 'linux', arch: 'amd64', filename: 'terraform-provider-evil_1.0.0_linux_amd64.zip',
          download_url: `/files/${download[1]!}/zip`, shasums_url: `/files/${download[1]!}/sums`, shasums_signature_url: `/files/${download[1]!}/sig`,
          shasum: lies[download[1]!]!.shasum,
          signing_keys: { gpg_public_keys: [{ key_id: honest.keyId, ascii_armor: honest.publicArmor }] }
        })
      }
      if (url.pathname.startsWith('/files/') && lie && lies[lie]) {
        res.writeHead(200)
        return res.end(file === 'zip' ? zip.bytes : file === 'sums' ? lies[lie].sums : lies[lie].sig)
      }
      send(404, { errors: ['not found'] })
    })
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve))
    const mirror = await startTestServer({ upstream: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`, upstreamMaxAgeMs: 0 })
    try {
      for (const [lie, reason] of [
        ['bad-signature', /verifies with none of its keys/],
        ['bad-checksum', /SHA256SUMS does not list .* with f{64}/],
        ['garbage', /SHA256SUMS line 1 is not/]
      ] as const) {
        const response = await mirror.api('GET', `/api/registry/public/v1/providers/acme/${lie}/1.0.0/download/linux/amd64`)
        expect(response.status, lie).toBe(503)
        expect(response.body.errors[0], lie).toMatch(/does not verify, so it was not mirrored/)
        expect(response.body.errors[0], lie).toMatch(reason)
      }
      expect(await mirror.server.services.store.providerMirror.all()).toEqual([])
    } finally {
      await mirror.close()
      fake.close()
    }
  })
})
