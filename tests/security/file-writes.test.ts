import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { OutsideFolderError, pathInside, writeInside } from '../../src-main/server/files/folder-writes.js'
import { makeSigningKey, providerRelease, publishProvider } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, doc, startTestServer, type TestServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'

/** Names a hostile publisher tried for a provider's zip: each one a way out of the folder a bundle writes in. */
const HOSTILE_NAMES = ['../'.repeat(40) + 'tmp/escaped-by-bundle.zip', '../../../../etc/cron.d/evil.zip', 'a/b.zip', '..', '/etc/passwd', '..\\..\\x.zip', 'x\0.zip', 'x\n.zip', '.hidden.zip']

describe('the one function every file write goes through', () => {
  let folder: string
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'homeport-writes-'))
  })
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true })
  })

  it('takes paths inside its folder, relative or absolute', () => {
    expect(pathInside(folder, 'a/b.zip')).toBe(join(folder, 'a', 'b.zip'))
    expect(pathInside(folder, join(folder, 'c.json'))).toBe(join(folder, 'c.json'))
    expect(pathInside(folder, 'a/../b.zip')).toBe(join(folder, 'b.zip'))
  })

  it('refuses a path that leaves its folder, names the folder itself, or holds a NUL', () => {
    for (const path of ['../x', 'a/../../x', '/etc/passwd', join(folder, '..', 'sibling'), '.', '', 'x\0y', `${folder}-other/x`]) {
      expect(() => pathInside(folder, path), path).toThrow(OutsideFolderError)
    }
  })

  it('writes nothing when it refuses', async () => {
    const outside = join(tmpdir(), `homeport-escaped-${process.pid}.txt`)
    await expect(writeInside(folder, `../${outside.split('/').pop()}`, 'x')).rejects.toThrow(OutsideFolderError)
    await expect(stat(outside)).rejects.toThrow(/ENOENT/)
  })
})

describe('provider file names at the API', () => {
  let test: TestServer
  let publisher: string
  const path = '/organizations/acme/registry-providers/private/acme/tool'

  beforeAll(async () => {
    test = await startTestServer()
    await createOrganization(test, 'acme')
    publisher = (await createTeamWithToken(test, 'acme', 'publishers', true)).token
    await test.api('POST', '/organizations/acme/registry-providers', { body: doc('registry-providers', { name: 'tool', namespace: 'acme', 'registry-name': 'private' }), token: publisher })
    await test.api('POST', `${path}/versions`, { body: doc('registry-provider-versions', { version: '1.0.0', 'key-id': 'ABCDEF', protocols: ['5.0'] }), token: publisher })
  })
  afterAll(async () => {
    await test.close()
  })

  it('refuses a platform whose filename is a path, or not a plain file name', async () => {
    for (const filename of HOSTILE_NAMES) {
      const response = await test.api('POST', `${path}/versions/1.0.0/platforms`, { body: doc('registry-provider-platforms', { os: 'linux', arch: 'amd64', shasum: 'a'.repeat(64), filename }), token: publisher })
      expect(response.status, JSON.stringify(filename)).toBe(422)
      expect(response.body.errors[0].source).toEqual({ pointer: '/data/attributes/filename' })
    }
  })

  it('refuses os and arch names that are not Go’s', async () => {
    for (const [os, arch] of [['../linux', 'amd64'], ['linux', 'amd64/..'], ['Linux', 'amd64'], ['linux\0', 'amd64']]) {
      const response = await test.api('POST', `${path}/versions/1.0.0/platforms`, { body: doc('registry-provider-platforms', { os, arch, shasum: 'a'.repeat(64), filename: 'terraform-provider-tool_1.0.0_linux_amd64.zip' }), token: publisher })
      expect(response.status, `${os}_${arch}`).toBeGreaterThanOrEqual(400)
      expect(response.status, `${os}_${arch}`).toBeLessThan(500)
    }
  })

  it('takes HCP’s own names and go-tfe’s free-text ones', async () => {
    for (const [arch, filename] of [['amd64', 'terraform-provider-tool_1.0.0_linux_amd64.zip'], ['arm64', 'filename'], ['386', '3f0c1bd6-0c0c-4bb5-9c2c-9f1d4e0d2a11']]) {
      const response = await test.api('POST', `${path}/versions/1.0.0/platforms`, { body: doc('registry-provider-platforms', { os: 'linux', arch, shasum: 'a'.repeat(64), filename }), token: publisher })
      expect(response.status, filename).toBe(201)
    }
  })
})

describe('a bundle of a provider whose stored file name is a path (a record older than the check)', () => {
  let test: TestServer
  let outside: string

  beforeAll(async () => {
    test = await startTestServer({ upstream: 'http://127.0.0.1:9' })
    outside = await mkdtemp(join(tmpdir(), 'homeport-outside-'))
    await createOrganization(test, 'acme')
    const key = await makeSigningKey('Acme Providers')
    await publishProvider(test, 'acme', await providerRelease('tool', '1.0.0', ['linux_amd64'], key), key)
    const [provider] = await test.server.services.store.providers.all()
    await test.server.services.store.providers.update(provider!.id, (draft) => {
      draft.versions[0]!.platforms[0]!.filename = `${'../'.repeat(40)}${outside.slice(1)}/escaped-by-bundle.zip`
    })
  }, 60_000)
  afterAll(async () => {
    await test.close()
    await rm(outside, { recursive: true, force: true })
  })

  it('fails the bundle and writes nothing outside its folder', async () => {
    const started = await test.api('POST', '/bundles', { body: doc('bundles', { organization: 'acme', platforms: ['linux_amd64'], providers: [{ source: 'homeport.localhost/acme/tool', version: '1.0.0' }] }) })
    expect(started.status).toBe(202)
    const job = await eventually(async () => {
      const read = await test.api('GET', `/bundles/${started.body.data.id}`)
      expect(read.body.data.attributes.status).toBe('failed')
      return read
    })
    expect(job.body.data.attributes.problems[0].reason).toMatch(/is not a path inside the folder it is written to: nothing was written/)
    expect(await readdir(outside)).toEqual([])
  })
})
