import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { unzipSync } from 'fflate'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeSigningKey, providerRelease, publishProvider, type ProviderRelease, type SigningKey } from '../helpers/providers.js'
import { createOrganization, startTestServer, type TestServer } from '../helpers/server.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM, terraformInit } from '../helpers/terraform-binary.js'
import { dirHash } from '../helpers/terraform-client.js'

let test: TestServer
let work: string
let key: SigningKey
let release: ProviderRelease
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-netmirror-'))
  test = await startTestServer({ tls: true })
  await createOrganization(test, 'acme')
  key = await makeSigningKey()
  release = await providerRelease('widget', '0.3.0', ['linux_amd64', 'darwin_arm64'], key)
  await publishProvider(test, 'acme', release, key)
})
afterAll(async () => {
  await test.close()
  await rm(work, { recursive: true, force: true })
})

const MIRROR = '/api/registry/provider-mirror/v1/homeport.localhost/acme/widget'

describe('the provider network mirror protocol, over HTTPS', () => {
  it('answers index.json and <version>.json as application/json, with each archive and its h1: and zh: hashes', async () => {
    const index = await test.api('GET', `${MIRROR}/index.json`)
    expect(index.status).toBe(200)
    expect(index.headers.get('content-type')).toMatch(/^application\/json/)
    expect(index.body).toEqual({ versions: { '0.3.0': {} } })
    const version = await test.api('GET', `${MIRROR}/0.3.0.json`)
    const archives = version.body.archives as Record<string, { url: string; hashes: string[] }>
    expect(Object.keys(archives).sort()).toEqual(['darwin_arm64', 'linux_amd64'])
    const zip = release.zips.get('terraform-provider-widget_0.3.0_linux_amd64.zip')!
    expect(archives.linux_amd64!.hashes).toEqual([dirHash(unzipSync(new Uint8Array(zip.bytes))), `zh:${zip.shasum}`])
    // The url resolves against the <version>.json URL, and needs no token.
    const archive = await test.fetch(new URL(archives.linux_amd64!.url, `${test.url}${MIRROR}/0.3.0.json`))
    expect(createHash('sha256').update(Buffer.from(await archive.arrayBuffer())).digest('hex')).toBe(zip.shasum)
    expect((await test.api('GET', `${MIRROR}/9.9.9.json`)).status).toBe(404)
    expect((await test.api('GET', '/api/registry/provider-mirror/v1/elsewhere.example/acme/widget/index.json')).status).toBe(404)
  })

  it(`installs through network_mirror with the real terraform, checksum verified${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    const dir = join(work, 'config')
    const home = join(work, 'home')
    await mkdir(dir, { recursive: true })
    await mkdir(home, { recursive: true })
    const host = new URL(test.url).host
    const config = join(work, 'mirror.tfrc')
    await writeFile(
      config,
      `provider_installation {\n  network_mirror {\n    url = "${test.url}/api/registry/provider-mirror/v1/"\n  }\n}\n\ncredentials "${host}" {\n  token = "${test.adminToken}"\n}\n`
    )
    await writeFile(join(dir, 'main.tf'), 'terraform {\n  required_providers {\n    widget = {\n      source = "homeport.localhost/acme/widget"\n    }\n  }\n}\n')
    const stdout = await terraformInit(dir, { config, home, extra: { SSL_CERT_FILE: test.server.tls!.trustPath } })
    expect(stdout).toContain('- Installed homeport.localhost/acme/widget v0.3.0 (verified checksum)')
    expect(await readFile(join(dir, '.terraform.lock.hcl'), 'utf8')).toMatch(/"h1:[A-Za-z0-9+/=]+"/)
  }, 120_000)
})
