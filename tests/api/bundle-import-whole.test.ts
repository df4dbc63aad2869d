import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { create } from 'tar'
import { moduleArchive } from '../helpers/archives.js'
import { makeSigningKey, providerRelease, sha256, sign, type SigningKey } from '../helpers/providers.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

/**
 * An import is whole or nothing: a bundle with one bad item leaves no trace of its good ones, and
 * a failure after the first write takes every write back (on the file store and on PostgreSQL).
 */
let target: TestServer
let work: string
let key: SigningKey

beforeAll(async () => {
  target = await startTestServer({ upstream: 'http://127.0.0.1:9' })
  work = await mkdtemp(join(tmpdir(), 'homeport-whole-'))
  key = await makeSigningKey('Fresh Providers')
}, 60_000)
afterAll(async () => {
  await target.close()
  await rm(work, { recursive: true, force: true })
})

interface Item {
  path: string
  bytes: Buffer
}

/** A bundle in Homeport's format, made by hand: manifest.json first, then the files it lists. */
async function bundleOf(items: { modules?: Array<{ name: string; version: string }>; provider?: { type: string; zip?: Buffer } }): Promise<Buffer> {
  const files: Item[] = []
  const entry = (path: string, bytes: Buffer) => {
    files.push({ path, bytes })
    return { path, size: bytes.length, sha256: sha256(bytes) }
  }
  const modules = []
  for (const { name, version } of items.modules ?? []) {
    const archive = await moduleArchive({ 'main.tf': `variable "${name}" {\n  type = string\n}\n` })
    modules.push({ hostname: 'homeport.localhost', namespace: 'fresh', name, provider: 'aws', version, registry: 'private', calledBy: ['root'], archive: entry(`modules/homeport.localhost/fresh/${name}/aws/${name}-${version}.tar.gz`, archive) })
  }
  const providers = []
  if (items.provider) {
    const { type } = items.provider
    const release = await providerRelease(type, '1.0.0', ['linux_amd64'], key)
    const filename = `terraform-provider-${type}_1.0.0_linux_amd64.zip`
    const zip = items.provider.zip ?? release.zips.get(filename)!.bytes
    const shasums = Buffer.from(`${sha256(zip)}  ${filename}\n`)
    const folder = `providers/homeport.localhost/fresh/${type}/1.0.0`
    providers.push({
      hostname: 'homeport.localhost', namespace: 'fresh', type, version: '1.0.0', registry: 'private', protocols: ['5.0'],
      shasums: entry(`${folder}/terraform-provider-${type}_1.0.0_SHA256SUMS`, shasums),
      signature: entry(`${folder}/terraform-provider-${type}_1.0.0_SHA256SUMS.sig`, await sign(shasums, key)),
      keys: [{ keyId: key.keyId, asciiArmor: key.publicArmor, trustSignature: '', source: '', sourceUrl: null }],
      packages: [{ os: 'linux', arch: 'amd64', filename, file: entry(`${folder}/${filename}`, zip) }]
    })
  }
  const manifest = { format: 'homeport-bundle', formatVersion: 1, writtenBy: 'Homeport test', createdAt: new Date().toISOString(), organization: { name: 'fresh', email: 'fresh@example.com' }, platforms: ['linux_amd64'], modules, providers }
  const folder = await mkdtemp(join(work, 'bundle-'))
  await writeFile(join(folder, 'manifest.json'), JSON.stringify(manifest))
  for (const file of files) {
    await mkdir(join(folder, file.path, '..'), { recursive: true })
    await writeFile(join(folder, file.path), file.bytes)
  }
  const output = join(work, `${Math.random().toString(36).slice(2)}.hpbundle`)
  await create({ cwd: folder, file: output, portable: true }, ['manifest.json', ...new Set(files.map((file) => file.path.split('/')[0]!))])
  return readFile(output)
}

async function importBundle(bytes: Buffer) {
  const response = await target.fetch(`${target.url}/api/v2/admin/bundle-imports`, { method: 'POST', headers: { Authorization: `Bearer ${target.adminToken}`, 'Content-Type': 'application/x-tar' }, body: new Uint8Array(bytes) })
  return { status: response.status, body: (await response.json()) as { errors?: Array<{ detail: string }> } }
}

/** Nothing of organization `fresh` is here: no organization, module, provider, key or journal. */
async function expectNothingImported() {
  const { store } = target.server.services
  expect((await target.api('GET', '/organizations')).body.data).toEqual([])
  expect(await store.modules.all()).toEqual([])
  expect(await store.providers.all()).toEqual([])
  expect(await store.gpgKeys.all()).toEqual([])
  expect(store.installation().importsUnderway ?? {}).toEqual({})
}

describe('a bundle import', () => {
  it('with a good module and a module whose version is not one leaves neither', async () => {
    const answer = await importBundle(await bundleOf({ modules: [{ name: 'good', version: '1.0.0' }, { name: 'bad', version: 'not-a-version' }] }))
    expect(answer.status).toBe(422)
    expect(answer.body.errors![0]!.detail).toBe('Nothing was imported: homeport.localhost/fresh/bad/aws not-a-version: "not-a-version" is not a semantic version.')
    await expectNothingImported()
  })

  it('with a signed zip that is not a provider package leaves no organization, module, provider, key or signature', async () => {
    const notAProvider = Buffer.from(zipSync({ 'README.txt': new TextEncoder().encode('no provider here') }))
    const answer = await importBundle(await bundleOf({ modules: [{ name: 'good', version: '1.0.0' }], provider: { type: 'tool', zip: notAProvider } }))
    expect(answer.status).toBe(422)
    expect(answer.body.errors![0]!.detail).toMatch(/^Nothing was imported: homeport\.localhost\/fresh\/tool 1\.0\.0: .*terraform-provider-tool/)
    await expectNothingImported()
  })

  it('that fails after its first writes takes every one of them back', async () => {
    const uploads = target.server.services.providerUploads
    const receive = uploads.receive.bind(uploads)
    let calls = 0
    // The disk fails at the provider's zip, after the organization, module, key, version and SHA256SUMS were written.
    uploads.receive = async (...args: Parameters<typeof receive>) => {
      if (++calls === 3) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })
      return receive(...args)
    }
    try {
      const answer = await importBundle(await bundleOf({ modules: [{ name: 'good', version: '1.0.0' }], provider: { type: 'tool' } }))
      expect(answer.status).toBe(507)
    } finally {
      uploads.receive = receive
    }
    expect(calls).toBe(3)
    await expectNothingImported()
    const imported = await importBundle(await bundleOf({ modules: [{ name: 'good', version: '1.0.0' }], provider: { type: 'tool' } }))
    expect(imported.status).toBe(201)
    await target.api('DELETE', '/organizations/fresh')
  })

  it('that the process stopped in the middle of is taken back at the next start', async () => {
    const imported = await importBundle(await bundleOf({ modules: [{ name: 'good', version: '1.0.0' }], provider: { type: 'tool' } }))
    expect(imported.status).toBe(201)
    // What the journal holds while an import runs, as a crash would leave it.
    await target.server.services.store.updateInstallation((draft) => {
      draft.importsUnderway = {
        'import-crashed': [
          { kind: 'organization', name: 'fresh' },
          { kind: 'module', organization: 'fresh', registryName: 'private', namespace: 'fresh', name: 'good', provider: 'aws' },
          { kind: 'gpg-key', namespace: 'fresh', keyId: key.keyId },
          { kind: 'provider', organization: 'fresh', name: 'tool' }
        ]
      }
    })
    await target.restart()
    await expectNothingImported()
  })
})
