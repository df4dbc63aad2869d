import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { unzipSync, zipSync } from 'fflate'
import { makeSigningKey, providerRelease, type ProviderRelease, publishProvider, sha256, sign, type SigningKey, startPublicUpstream } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, startTestServer, type TestServer } from '../helpers/server.js'
import { dirHash, publicMirrorClient } from '../helpers/terraform-client.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM, initPublicProvider, terraformInit } from '../helpers/terraform-binary.js'
import { HOMEPORT_CLI } from '../helpers/cli.js'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PUBLIC = 'registry.terraform.io'
const NOWHERE = 'http://127.0.0.1:1'
let upstream: TestServer
let work: string
let key: SigningKey
let release: ProviderRelease

/** A second Homeport stands in for the public registry (see provider-mirror.test.ts). */
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-import-'))
  const started = await startPublicUpstream()
  upstream = started.upstream
  key = started.key
  release = await providerRelease('null', '3.2.3', ['linux_amd64', 'darwin_arm64'], key)
  await publishProvider(upstream, 'hashicorp', release, key)
})
afterAll(async () => {
  await upstream.close()
  await rm(work, { recursive: true, force: true })
})

/** The folder `terraform providers mirror` writes (shared/research/providers.md §6): zips, index.json, <version>.json with each zip's h1:. */
async function mirrorFolder(dir: string): Promise<string> {
  const folder = join(dir, PUBLIC, 'hashicorp', 'null')
  await mkdir(folder, { recursive: true })
  const archives: Record<string, { hashes: string[]; url: string }> = {}
  for (const [name, zip] of release.zips) {
    await writeFile(join(folder, name), zip.bytes)
    archives[`${zip.os}_${zip.arch}`] = { hashes: [dirHash(unzipSync(new Uint8Array(zip.bytes)))], url: name }
  }
  await writeFile(join(folder, 'index.json'), JSON.stringify({ versions: { '3.2.3': {} } }, null, 2))
  await writeFile(join(folder, '3.2.3.json'), JSON.stringify({ archives }, null, 2))
  return dir
}

function importProviders(folder: string, homeport: TestServer, ...options: string[]) {
  return run(process.execPath, [...HOMEPORT_CLI, 'import-providers', folder, '--data-dir', homeport.dataDir, ...options], { cwd: ROOT })
}

/** The exit code and output of a command that is expected to fail. */
function failureOf(running: Promise<unknown>) {
  return running.then(
    () => undefined,
    (error: { code: number; stdout: string; stderr: string }) => error
  )
}

/** PUTs a zip to the import endpoint, as `homeport import-providers` does. */
async function put(homeport: TestServer, path: string, bytes: Uint8Array, hashes: string[], token = homeport.adminToken) {
  const query = new URLSearchParams(hashes.map((hash) => ['hash', hash]))
  const response = await homeport.fetch(`${homeport.url}/api/v2/admin/provider-mirror/packages/${path}?${query}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/zip' },
    body: new Uint8Array(bytes)
  })
  return { status: response.status, body: (await response.json()) as { data?: { attributes: Record<string, unknown> }; errors?: Array<{ detail: string }> } }
}

async function storedArchives(homeport: TestServer): Promise<number> {
  return (await homeport.server.services.store.archives.list()).length
}

describe('importing a terraform providers mirror folder', () => {
  let homeport: TestServer
  beforeAll(async () => {
    // Air-gapped: the upstream cannot be reached.
    homeport = await startTestServer({ tls: true, upstream: NOWHERE, upstreamMaxAgeMs: 0 })
  })
  afterAll(() => homeport.close())

  it('imports every package from the command line, each checked against its h1:, and serves them through the network mirror', async () => {
    const folder = await mirrorFolder(join(work, 'folder'))
    const { stdout } = await importProviders(folder, homeport)
    expect(stdout).toContain(`Imported: ${PUBLIC}/hashicorp/null 3.2.3 for linux_amd64 (unsigned: served through the network mirror).`)
    expect(stdout).toContain(`Imported: ${PUBLIC}/hashicorp/null 3.2.3 for darwin_arm64 (unsigned: served through the network mirror).`)

    const mirror = `/api/registry/provider-mirror/v1/${PUBLIC}/hashicorp/null`
    expect((await homeport.api('GET', `${mirror}/index.json`)).body).toEqual({ versions: { '3.2.3': {} } })
    const archives = (await homeport.api('GET', `${mirror}/3.2.3.json`)).body.archives as Record<string, { url: string; hashes: string[] }>
    expect(Object.keys(archives).sort()).toEqual(['darwin_arm64', 'linux_amd64'])
    const zip = release.zips.get('terraform-provider-null_3.2.3_linux_amd64.zip')!
    expect(archives.linux_amd64!.hashes).toEqual([dirHash(unzipSync(new Uint8Array(zip.bytes))), `zh:${zip.shasum}`])
    const served = await homeport.fetch(new URL(archives.linux_amd64!.url, `${homeport.url}${mirror}/3.2.3.json`))
    expect(sha256(Buffer.from(await served.arrayBuffer()))).toBe(zip.shasum)

    // The registry protocol needs upstream's signature, which an import does not bring: it says where to go instead.
    const download = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/3.2.3/download/linux/amd64')
    expect(download.status).toBe(404)
    expect(download.body.errors[0]).toMatch(/imported without upstream's signed SHA256SUMS.*network mirror/)

    // Importing the same folder again changes nothing.
    const again = await importProviders(folder, homeport)
    expect(again.stdout).toContain(`Already mirrored: ${PUBLIC}/hashicorp/null 3.2.3 for linux_amd64`)
  })

  it('refuses a zip that is not the one the folder lists, or not a provider zip, and keeps nothing of it', async () => {
    const before = await storedArchives(homeport)
    const other = await providerRelease('null', '3.2.4', ['linux_amd64'], key)
    const otherZip = [...other.zips.values()][0]!.bytes
    const listed = dirHash(unzipSync(new Uint8Array(release.zips.get('terraform-provider-null_3.2.3_linux_amd64.zip')!.bytes)))

    const tampered = await put(homeport, `${PUBLIC}/hashicorp/null/3.2.4/linux_amd64`, otherZip, [listed])
    expect(tampered.status).toBe(422)
    expect(tampered.body.errors![0]!.detail).toMatch(/^The zip's hashes are h1:\S+ and zh:[0-9a-f]{64}, and the folder lists h1:\S+: the zip is not the one that was mirrored\.$/)
    const unhashed = await put(homeport, `${PUBLIC}/hashicorp/null/3.2.4/linux_amd64`, otherZip, [])
    expect(unhashed.body.errors![0]!.detail).toMatch(/checked by hash/)
    const notZip = await put(homeport, `${PUBLIC}/hashicorp/null/3.2.4/linux_amd64`, Buffer.from('not a zip'), [`zh:${sha256(Buffer.from('not a zip'))}`])
    expect(notZip.status).toBe(422)
    expect(notZip.body.errors![0]!.detail).toMatch(/not a zip archive/)
    const elsewhere = await put(homeport, `example.com/hashicorp/null/3.2.4/linux_amd64`, otherZip, [`zh:${sha256(Buffer.from(otherZip))}`])
    expect(elsewhere.status).toBe(422)
    expect(elsewhere.body.errors![0]!.detail).toBe('Homeport mirrors the public registries registry.terraform.io and registry.opentofu.org, not example.com.')
    const wrongType = await put(homeport, `${PUBLIC}/hashicorp/random/3.2.4/linux_amd64`, otherZip, [`zh:${sha256(Buffer.from(otherZip))}`])
    expect(wrongType.body.errors![0]!.detail).toMatch(/no file terraform-provider-random/)

    // Another zip for a platform mirrored already is a conflict, not a silent swap.
    const swapped = zipSync({ 'terraform-provider-null_v3.2.3': new TextEncoder().encode('#!/bin/sh\nexit 2\n') })
    const conflict = await put(homeport, `${PUBLIC}/hashicorp/null/3.2.3/linux_amd64`, swapped, [`zh:${sha256(Buffer.from(swapped))}`])
    expect(conflict.status).toBe(409)

    // Only the site admin imports.
    await createOrganization(homeport, 'acme')
    const { token } = await createTeamWithToken(homeport, 'acme', 'publishers', true)
    const refused = await put(homeport, `${PUBLIC}/hashicorp/null/3.2.4/linux_amd64`, otherZip, [`zh:${sha256(Buffer.from(otherZip))}`], token)
    expect(refused.status).toBe(403)

    expect(await storedArchives(homeport)).toBe(before)
    const listedNow = (await homeport.api('GET', '/admin/provider-mirror')).body.data as Array<{ attributes: { versions: Array<{ version: string }> } }>
    expect(listedNow.flatMap((provider) => provider.attributes.versions.map((version) => version.version))).toEqual(['3.2.3'])
  })

  it('imports two platforms of a provider it has never seen at the same time, into one record', async () => {
    const random = await providerRelease('random', '3.6.0', ['linux_amd64', 'darwin_arm64', 'windows_amd64'], key)
    const answers = await Promise.all(
      [...random.zips.values()].map((zip) => put(homeport, `${PUBLIC}/hashicorp/random/3.6.0/${zip.os}_${zip.arch}`, zip.bytes, [`zh:${zip.shasum}`]))
    )
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201])
    const listed = (await homeport.api('GET', '/admin/provider-mirror')).body.data as Array<{ attributes: { type: string; versions: Array<{ platforms: string[] }> } }>
    const records = listed.filter((provider) => provider.attributes.type === 'random')
    expect(records).toHaveLength(1)
    expect(records[0]!.attributes.versions[0]!.platforms.sort()).toEqual(['darwin_arm64', 'linux_amd64', 'windows_amd64'])
  })

  it('imports what it can of a folder with a missing zip, and says which one failed and why', async () => {
    const folder = await mirrorFolder(join(work, 'partial'))
    const version = join(folder, PUBLIC, 'hashicorp', 'null', '3.2.3.json')
    const listed = JSON.parse(await readFile(version, 'utf8')) as { archives: Record<string, { url: string; hashes: string[] }> }
    listed.archives.windows_amd64 = { url: 'terraform-provider-null_3.2.3_windows_amd64.zip', hashes: listed.archives.linux_amd64!.hashes }
    await writeFile(version, JSON.stringify(listed))
    const failed = await failureOf(importProviders(folder, homeport))
    expect(failed?.code).toBe(1)
    expect(failed?.stderr).toMatch(/Not imported: registry\.terraform\.io\/hashicorp\/null 3\.2\.3 for windows_amd64: could not send .*windows_amd64\.zip: ENOENT/)
    expect(failed?.stderr).toContain('homeport: 1 of 3 packages were not imported.')
    expect(failed?.stdout).toContain(`Already mirrored: ${PUBLIC}/hashicorp/null 3.2.3 for linux_amd64`)
  })

  it(`installs an imported folder with the real terraform through network_mirror, offline${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    // The folder as the real binary writes it, from the stand-in public registry.
    const home = join(work, 'home')
    const online = join(work, 'online.tfrc')
    await mkdir(home, { recursive: true })
    await writeFile(online, `host "${PUBLIC}" {\n  services = {\n    "providers.v1" = "${upstream.url}/api/registry/v1/providers/"\n  }\n}\ncredentials "${PUBLIC}" {\n  token = "${upstream.adminToken}"\n}\n`)
    const config = join(work, 'real-config')
    await mkdir(config, { recursive: true })
    await writeFile(join(config, 'main.tf'), 'terraform {\n  required_providers {\n    null = {\n      source  = "hashicorp/null"\n      version = "~> 3.2"\n    }\n  }\n}\n')
    const written = join(work, 'real-folder')
    await run('terraform', ['providers', 'mirror', '-platform=linux_amd64', '-platform=darwin_arm64', written], {
      cwd: config,
      env: { ...process.env, HOME: home, TF_CLI_CONFIG_FILE: online, CHECKPOINT_DISABLE: '1' }
    })
    const fresh = await startTestServer({ tls: true, upstream: NOWHERE, upstreamMaxAgeMs: 0 })
    try {
      expect((await importProviders(written, fresh)).stdout).toContain(`Imported: ${PUBLIC}/hashicorp/null 3.2.3 for linux_amd64`)
      const offline = join(work, 'network-mirror.tfrc')
      await writeFile(offline, `provider_installation {\n  network_mirror {\n    url = "${fresh.url}/api/registry/provider-mirror/v1/"\n  }\n}\ncredentials "${new URL(fresh.url).host}" {\n  token = "${fresh.adminToken}"\n}\n`)
      const stdout = await terraformInit(config, { config: offline, home, extra: { SSL_CERT_FILE: fresh.server.tls!.trustPath } })
      expect(stdout).toContain('- Installed hashicorp/null v3.2.3 (verified checksum)')
    } finally {
      await fresh.close()
    }
  }, 120_000)
})

describe('imported packages and upstream’s signature', () => {
  it('serves an imported zip through the registry protocol once upstream’s signed SHA256SUMS lists it', async () => {
    const homeport = await startTestServer({ upstream: upstream.url, upstreamToken: upstream.adminToken, upstreamMaxAgeMs: 0 })
    try {
      const darwin = release.zips.get('terraform-provider-null_3.2.3_darwin_arm64.zip')!
      const imported = await put(homeport, `${PUBLIC}/hashicorp/null/3.2.3/darwin_arm64`, darwin.bytes, [`zh:${darwin.shasum}`])
      expect(imported.status).toBe(201)
      expect(imported.body.data!.attributes).toEqual({ 'already-present': false, signed: false })
      // Online, the registry protocol pulls upstream's SHA256SUMS and signature, which vouch for the zip imported.
      const download = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/3.2.3/download/darwin/arm64')
      expect(download.status).toBe(200)
      expect(download.body.shasum).toBe(darwin.shasum)
      // From now on, a zip upstream signed is imported as signed.
      const linux = release.zips.get('terraform-provider-null_3.2.3_linux_amd64.zip')!
      const signed = await put(homeport, `${PUBLIC}/hashicorp/null/3.2.3/linux_amd64`, linux.bytes, [`zh:${linux.shasum}`])
      expect(signed.body.data!.attributes).toEqual({ 'already-present': false, signed: true })
      await upstream.stop()
      const offline = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/3.2.3/download/linux/amd64')
      expect(offline.status).toBe(200)
      expect(offline.body.signing_keys.gpg_public_keys[0].key_id).toBe(key.keyId)
    } finally {
      await upstream.restart()
      await homeport.close()
    }
  })

  it('keeps an imported release’s SHA256SUMS: upstream’s zip joins the version only if that SHA256SUMS lists it', async () => {
    const homeport = await startTestServer({ upstream: upstream.url, upstreamToken: upstream.adminToken, upstreamMaxAgeMs: 0 })
    try {
      // A release of 3.2.3 for linux alone, signed by another key than upstream's.
      const linux = release.zips.get('terraform-provider-null_3.2.3_linux_amd64.zip')!
      const sums = Buffer.from(`${linux.shasum}  terraform-provider-null_3.2.3_linux_amd64.zip\n`)
      const own = await makeSigningKey('Our Release Key')
      const attributes = { shasums: sums.toString(), 'shasums-signature': (await sign(sums, own)).toString('base64'), 'signing-key': own.publicArmor }
      expect((await homeport.api('PUT', `/admin/provider-mirror/releases/${PUBLIC}/hashicorp/null/3.2.3`, { body: { data: { type: 'provider-releases', attributes } } })).status).toBe(201)
      // Upstream's darwin zip is not in that SHA256SUMS: serving it beside it would fail Terraform's check, so it is refused.
      const darwin = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/3.2.3/download/darwin/arm64')
      expect(darwin.status).toBe(409)
      expect(darwin.body.errors[0]).toMatch(/from a release whose SHA256SUMS does not list upstream's terraform-provider-null_3\.2\.3_darwin_arm64\.zip/)
      // The linux zip it lists joins, served with the release's own key.
      const pulled = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/3.2.3/download/linux/amd64')
      expect(pulled.status).toBe(200)
      expect(pulled.body.signing_keys.gpg_public_keys.map((entry: { key_id: string }) => entry.key_id)).toEqual([own.keyId])
    } finally {
      await homeport.close()
    }
  })
})

/** A release folder as goreleaser writes it (and releases.hashicorp.com serves it): zips, SHA256SUMS, its signature, the manifest. */
async function releaseFolder(dir: string, of: ProviderRelease): Promise<string> {
  await mkdir(dir, { recursive: true })
  const stem = `terraform-provider-${of.type}_${of.version}`
  for (const [name, zip] of of.zips) await writeFile(join(dir, name), zip.bytes)
  await writeFile(join(dir, `${stem}_SHA256SUMS`), of.shasums)
  await writeFile(join(dir, `${stem}_SHA256SUMS.sig`), of.signature)
  await writeFile(join(dir, `${stem}_manifest.json`), JSON.stringify({ version: 1, metadata: { protocol_versions: ['6.0'] } }))
  return dir
}

describe('importing a provider release folder', () => {
  let homeport: TestServer
  let keyFile: string
  beforeAll(async () => {
    homeport = await startTestServer({ upstream: NOWHERE, upstreamMaxAgeMs: 0 })
    keyFile = join(work, 'upstream-key.asc')
    await writeFile(keyFile, key.publicArmor)
  })
  afterAll(() => homeport.close())

  const client = () => publicMirrorClient(homeport)

  it('checks the signature by the key given and each zip against SHA256SUMS, then serves the release signed, offline', async () => {
    const folder = await releaseFolder(join(work, 'release'), release)
    const { stdout } = await importProviders(folder, homeport, '--namespace', 'hashicorp', '--key', keyFile)
    expect(stdout).toContain(`Imported: ${PUBLIC}/hashicorp/null 3.2.3's SHA256SUMS, signed by key ${key.keyId}.`)
    expect(stdout).toContain(`Imported: ${PUBLIC}/hashicorp/null 3.2.3 for linux_amd64 (signed).`)
    expect(stdout).toContain(`Imported: ${PUBLIC}/hashicorp/null 3.2.3 for darwin_arm64 (signed).`)

    // Through the registry protocol, under the public name, signed by the key given: every platform lockable.
    const installed = await client().installProvider(`${PUBLIC}/hashicorp/null`, '~> 3.2', 'darwin_arm64', join(work, 'release-install'))
    expect(installed).toMatchObject({ version: '3.2.3', signedBy: key.keyId })
    expect(installed.hashes.filter((hash) => hash.startsWith('zh:')).sort()).toEqual([...release.zips.values()].map((zip) => `zh:${zip.shasum}`).sort())
    const versions = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/versions')
    expect(versions.body.versions).toEqual([{ version: '3.2.3', protocols: ['6.0'], platforms: expect.arrayContaining([{ os: 'linux', arch: 'amd64' }, { os: 'darwin', arch: 'arm64' }]) }])
    // And through the network mirror.
    const index = await homeport.api('GET', `/api/registry/provider-mirror/v1/${PUBLIC}/hashicorp/null/index.json`)
    expect(index.body).toEqual({ versions: { '3.2.3': {} } })

    const again = await importProviders(folder, homeport, '--namespace', 'hashicorp', '--key', keyFile)
    expect(again.stdout).toContain(`Already mirrored: ${PUBLIC}/hashicorp/null 3.2.3's SHA256SUMS`)
    expect(again.stdout).toContain(`Already mirrored: ${PUBLIC}/hashicorp/null 3.2.3 for linux_amd64 (signed).`)
  })

  it('asks for what a release folder does not say: whose provider, and the key', async () => {
    const folder = await releaseFolder(join(work, 'release-unnamed'), release)
    const unnamed = await failureOf(importProviders(folder, homeport, '--key', keyFile))
    expect(unnamed?.code).toBe(2)
    expect(unnamed?.stderr).toContain('give --namespace')
    const unkeyed = await failureOf(importProviders(folder, homeport, '--namespace', 'hashicorp'))
    expect(unkeyed?.stderr).toContain('give that public key with --key <file.asc>')
    const empty = join(work, 'empty')
    await mkdir(empty, { recursive: true })
    expect((await failureOf(importProviders(empty, homeport)))?.stderr).toContain('is neither a folder written by terraform providers mirror')
  })

  it('refuses a release signed by another key, and a zip SHA256SUMS does not vouch for, keeping nothing of either', async () => {
    const before = await storedArchives(homeport)
    const other = await providerRelease('null', '3.3.0', ['linux_amd64', 'darwin_arm64'], key)
    const forged = await releaseFolder(join(work, 'release-forged'), { ...other, signature: await sign(other.shasums, await makeSigningKey('Stranger')) })
    const refused = await failureOf(importProviders(forged, homeport, '--namespace', 'hashicorp', '--key', keyFile))
    expect(refused?.stderr).toMatch(/registry\.terraform\.io\/hashicorp\/null 3\.3\.0 was not imported: SHA256SUMS\.sig is not a valid signature of SHA256SUMS by key/)
    expect(await storedArchives(homeport)).toBe(before)

    // A swapped zip fails alone; the platform SHA256SUMS vouches for is imported.
    const swapped = await releaseFolder(join(work, 'release-swapped'), other)
    await writeFile(join(swapped, 'terraform-provider-null_3.3.0_linux_amd64.zip'), zipSync({ 'terraform-provider-null_v3.3.0': new TextEncoder().encode('#!/bin/sh\nexit 3\n') }))
    const partial = await failureOf(importProviders(swapped, homeport, '--namespace', 'hashicorp', '--key', keyFile))
    expect(partial?.stderr).toMatch(/Not imported: registry\.terraform\.io\/hashicorp\/null 3\.3\.0 for linux_amd64: The zip's hashes are .* the zip is not the one that was mirrored/)
    expect(partial?.stdout).toContain(`Imported: ${PUBLIC}/hashicorp/null 3.3.0 for darwin_arm64 (signed).`)
    expect(await storedArchives(homeport)).toBe(before + 3)

    // The API refuses a release of another provider's files and a key that is not a public key.
    const body = (attributes: Record<string, unknown>) => ({ body: { data: { type: 'provider-releases', attributes: { shasums: other.shasums.toString(), 'shasums-signature': other.signature.toString('base64'), 'signing-key': key.publicArmor, ...attributes } } } })
    const misnamed = await homeport.api('PUT', `/admin/provider-mirror/releases/${PUBLIC}/hashicorp/random/3.3.0`, body({}))
    expect(misnamed.status).toBe(422)
    expect(misnamed.body.errors[0].detail).toMatch(/lists terraform-provider-null_3\.3\.0_\w+\.zip, which is not a file of random 3\.3\.0/)
    const privateKey = await homeport.api('PUT', `/admin/provider-mirror/releases/${PUBLIC}/hashicorp/null/3.3.0`, body({ 'signing-key': key.privateKey.armor() }))
    expect(privateKey.body.errors[0]).toMatchObject({ detail: expect.stringMatching(/^signing-key holds a private key/), source: { pointer: '/data/attributes/signing-key' } })
    // Another SHA256SUMS for a version mirrored already is a conflict.
    const fewer = Buffer.from(release.shasums.toString().split('\n')[0]! + '\n')
    const conflict = await homeport.api('PUT', `/admin/provider-mirror/releases/${PUBLIC}/hashicorp/null/3.2.3`, body({ shasums: fewer.toString(), 'shasums-signature': (await sign(fewer, key)).toString('base64') }))
    expect(conflict.status).toBe(409)
  })

  it('removes a mirrored platform, then the version, and their files with them (site admin only)', async () => {
    const before = await storedArchives(homeport)
    await createOrganization(homeport, 'acme')
    const { token } = await createTeamWithToken(homeport, 'acme', 'publishers', true)
    const forbidden = await homeport.fetch(`${homeport.url}/api/v2/admin/provider-mirror/hashicorp/null/3.3.0`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } })
    expect(forbidden.status).toBe(403)

    expect((await homeport.api('DELETE', '/admin/provider-mirror/hashicorp/null/3.3.0/linux_amd64')).status).toBe(404)
    expect((await homeport.api('DELETE', '/admin/provider-mirror/hashicorp/null/3.3.0/darwin_arm64')).status).toBe(204)
    // The version's last platform took its SHA256SUMS and signature with it.
    expect(await storedArchives(homeport)).toBe(before - 3)
    const gone = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/3.3.0/download/darwin/arm64')
    expect(gone.status).toBe(404)
    expect(gone.body.errors[0]).toMatch(/has no package for darwin_arm64 here, and the upstream registry cannot be reached/)
    expect((await homeport.api('DELETE', '/admin/provider-mirror/hashicorp/null/3.2.3')).status).toBe(204)
    expect(await storedArchives(homeport)).toBe(before - 3 - 4)
    const listed = (await homeport.api('GET', '/admin/provider-mirror')).body.data as unknown[]
    expect(listed).toEqual([])
  })

  it(`installs an imported release with the real terraform and the generated air-gapped configuration, offline${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    const folder = await releaseFolder(join(work, 'release-real'), release)
    await importProviders(folder, homeport, '--namespace', 'hashicorp', '--key', keyFile)
    const { stdout, lock } = await initPublicProvider(homeport, join(work, 'release-config'), join(work, 'release-terraform'))
    expect(stdout).toContain(`- Installed hashicorp/null v3.2.3 (self-signed, key ID ${key.keyId})`)
    for (const zip of release.zips.values()) expect(lock).toContain(`"zh:${zip.shasum}"`)
  }, 120_000)
})
