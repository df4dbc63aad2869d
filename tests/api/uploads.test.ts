import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdir, readFile, readdir, unlink, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { join, relative } from 'node:path'
import type { ModuleDocs } from '../../src-main/server/domain/archives/module-docs.js'
import { objectIdFor } from '../../src-main/server/domain/archives/upload-links.js'
import { gzip, moduleArchive, NETWORK_MODULE, rawTar } from '../helpers/archives.js'
import {
  createModule,
  createOrganization,
  createTeamWithToken,
  createVersion,
  settledVersion,
  startTestServer,
  upload,
  type TestServer
} from '../helpers/server.js'

let test: TestServer
let archive: Buffer
beforeAll(async () => {
  test = await startTestServer({ maxArchiveBytes: 2 * 1024 * 1024 })
  await createOrganization(test, 'acme')
  archive = await moduleArchive(NETWORK_MODULE)
})
afterAll(async () => {
  await test.close()
})

/**
 * Every file under the data directory, with its contents, except the given ones and the audit
 * trail (which records the upload itself, as it should: tests/api/audit-trail.test.ts), and what
 * the store holds (PostgreSQL keeps it elsewhere).
 */
async function snapshot(given: (path: string) => boolean = () => false): Promise<Record<string, string>> {
  const except = (path: string) => path.startsWith('audit-trail/') || given(path)
  const { store } = test.server.services
  const files: Record<string, string> = {}
  const kept = { 'modules/(store)': await store.modules.all(), 'organizations/(store)': await store.organizations.all(), 'archives/(store)': (await store.archives.list()).sort() }
  for (const [path, contents] of Object.entries(kept)) if (!except(path)) files[path] = JSON.stringify(contents)
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) await walk(path)
      else if (!except(relative(test.dataDir, path))) files[relative(test.dataDir, path)] = (await readFile(path)).toString('base64')
    }
  }
  await walk(test.dataDir)
  return files
}

/** Where the file store keeps an archive: `archives/<first two hex>/<sha256>.tar.gz`. */
function archivePath(sha256: string): string {
  return join(test.dataDir, 'archives', sha256.slice(0, 2), `${sha256}.tar.gz`)
}

/** A stored archive's bytes, from whichever store keeps it. */
async function storedArchive(sha256: string): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of test.server.services.store.archives.read(sha256)) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

async function versionRecord(name: string, version: string) {
  const module = (await test.server.services.store.modules.all()).find((candidate) => candidate.name === name)!
  return module.versions.find((candidate) => candidate.version === version)!
}

/**
 * PUTs a body without end to `link` over a raw connection (of a declared gigabyte, or chunked), as a
 * client that writes the whole file before it looks at the answer: it writes until the answer is
 * in, then 4 MB more, then stops and half-closes. Says what it read, whether a write or read failed
 * (the server reset the connection), and whether the server then closed the connection.
 */
async function uploadWithoutEnd(link: string, framing: 'declared' | 'chunked'): Promise<{ answer: string; failure?: string; closedByServer: boolean }> {
  const url = new URL(link)
  const socket = connect(Number(url.port), url.hostname)
  let answer = ''
  let failure: string | undefined
  let answered = () => {}
  const answerIn = new Promise<void>((resolve) => (answered = resolve))
  socket.on('data', (data: Buffer) => {
    answer += data.toString('latin1')
    if (answer.includes('\r\n\r\n')) answered()
  })
  socket.on('error', (error) => (failure = (error as NodeJS.ErrnoException).code ?? error.message))
  const closed = new Promise<boolean>((resolve) => socket.once('end', () => resolve(true)).once('close', () => resolve(false)))
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  socket.write(`PUT ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n${framing === 'declared' ? `Content-Length: ${1024 * 1024 * 1024}` : 'Transfer-Encoding: chunked'}\r\n\r\n`)
  const piece = Buffer.alloc(64 * 1024, 7)
  const chunk = framing === 'declared' ? piece : Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
  let afterAnswer: number | undefined
  void answerIn.then(() => (afterAnswer = 64))
  while (!socket.destroyed && (afterAnswer === undefined || afterAnswer-- > 0)) {
    if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve))
  }
  if (!socket.destroyed) socket.end()
  return { answer, failure, closedByServer: await closed }
}

describe('uploading an archive', () => {
  it('stores the archive, answers at once, and ingests it into a documented version', async () => {
    await createModule(test, 'acme', 'network', 'aws')
    const version = await createVersion(test, 'acme', 'network', 'aws', '1.0.0')
    const response = await upload(version.links.upload, archive)
    expect(response.status).toBe(200)
    expect(response.body.data.attributes.status).toBe('reg_ingressing')

    const { module, entry } = await settledVersion(test, 'acme', 'network', 'aws', '1.0.0')
    expect(entry).toEqual({ version: '1.0.0', status: 'ok' })
    expect(module.attributes.status).toBe('setup_complete')

    const record = await versionRecord('network', '1.0.0')
    expect(record.publishedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
    expect(record.archive?.size).toBe(archive.length)
    const stored = await storedArchive(record.archive!.sha256)
    expect(stored.equals(archive)).toBe(true)
    const docs = (await test.server.services.store.archives.readDocs<ModuleDocs>(record.archive!.sha256))!
    expect(docs.root.inputs.map((input) => input.name)).toEqual(['cidr_block', 'db_password', 'region', 'subnets'])
    expect(docs.submodules.map((part) => part.path)).toEqual(['modules/subnet'])
    expect(docs.examples.map((part) => part.path)).toEqual(['examples/basic'])

    // Once ok, no read offers a link.
    const read = await test.api('GET', '/organizations/acme/registry-modules/private/acme/network/aws/version?module_version=1.0.0')
    expect(read.body.data.attributes.status).toBe('ok')
    expect(read.body.data.links.upload).toBeUndefined()
  })

  it('stores identical archives once, and deletes an archive with its last version', async () => {
    await createModule(test, 'acme', 'twins', 'aws')
    for (const version of ['1.0.0', '1.0.1']) {
      const created = await createVersion(test, 'acme', 'twins', 'aws', version)
      expect((await upload(created.links.upload, archive)).status).toBe(200)
      await settledVersion(test, 'acme', 'twins', 'aws', version)
    }
    const first = await versionRecord('twins', '1.0.0')
    const second = await versionRecord('twins', '1.0.1')
    expect(first.archive!.sha256).toBe(second.archive!.sha256)
    const sha256 = first.archive!.sha256

    expect((await test.api('DELETE', '/organizations/acme/registry-modules/private/acme/twins/aws/1.0.0')).status).toBe(204)
    await expect(storedArchive(sha256)).resolves.toBeInstanceOf(Buffer)
    // network 1.0.0 holds the same archive too; deleting both twins leaves it.
    expect((await test.api('DELETE', '/organizations/acme/registry-modules/private/acme/twins/aws/1.0.1')).status).toBe(204)
    await expect(storedArchive(sha256)).resolves.toBeInstanceOf(Buffer)
    expect((await test.api('DELETE', '/organizations/acme/registry-modules/private/acme/network')).status).toBe(204)
    await expect(storedArchive(sha256)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('takes archives through a link until it expires, published or not, and refuses unknown and expired links without a token', async () => {
    await createModule(test, 'acme', 'links', 'aws')
    const version = await createVersion(test, 'acme', 'links', 'aws', '1.0.0')
    const url = version.links.upload as string
    expect((await upload(url, archive)).status).toBe(200)
    await settledVersion(test, 'acme', 'links', 'aws', '1.0.0')
    const first = (await versionRecord('links', '1.0.0')).archive!.sha256
    // go-tfe PUTs a second archive right after the first: whether the first was ingested yet does not matter.
    const replacement = await moduleArchive({ ...NETWORK_MODULE, 'outputs.tf': 'output "replaced" {\n  value = true\n}\n' })
    expect((await upload(url, replacement)).status).toBe(200)
    const { entry } = await settledVersion(test, 'acme', 'links', 'aws', '1.0.0')
    expect(entry.status).toBe('ok')
    const second = await versionRecord('links', '1.0.0')
    expect(second.archive!.sha256).not.toBe(first)
    const docs = (await test.server.services.store.archives.readDocs<ModuleDocs>(second.archive!.sha256))!
    expect(docs.root.outputs.map((output) => output.name)).toContain('replaced')
    await expect(storedArchive(first)).rejects.toMatchObject({ code: 'ENOENT' })

    const unknown = await upload(url.replace(/object\/.+$/, 'object/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), archive)
    expect(unknown.status).toBe(404)
    expect(unknown.body.errors[0]).toMatchObject({ status: '404', detail: 'This upload link is unknown: it never existed, or its version was deleted.' })
    // The version's id with a MAC that is not the installation's is as unknown.
    const forged = await upload(url.replace(/\.[A-Za-z0-9_-]{43}$/, `.${'A'.repeat(43)}`), archive)
    expect(forged.status).toBe(404)

    const late = await createVersion(test, 'acme', 'links', 'aws', '2.0.0')
    const record = await versionRecord('links', '2.0.0')
    const key = test.server.services.store.installation().signingKey
    // A link signed an hour ago is past its expiry; its expiry cannot be moved without the key.
    const stale = objectIdFor(key, record.id, Math.floor(Date.now() / 1000) - 1)
    const expired = await upload(`${test.url}/archivist/v1/object/${stale}`, archive)
    expect(expired.status).toBe(410)
    expect(expired.body.errors[0].detail).toMatch(/expired/)
    const stretched = await upload(late.links.upload.replace(/(modver-\w+)\.(\d+)\./, (_: string, id: string, seconds: string) => `${id}.${Number(seconds) + 3600}.`), archive)
    expect(stretched.status).toBe(404)
    // Reading the version again gives a link that works.
    const fresh = await test.api('GET', '/organizations/acme/registry-modules/private/acme/links/aws/version?module_version=2.0.0')
    expect((await upload(fresh.body.data.links.upload, archive)).status).toBe(200)
    // Once the version is published no read offers another link, so its archive changes only within the life of one given before.
    await settledVersion(test, 'acme', 'links', 'aws', '2.0.0')
    const published = await test.api('GET', '/organizations/acme/registry-modules/private/acme/links/aws/version?module_version=2.0.0')
    expect(published.body.data.links).toEqual({})
  })

  it('freezes a version the moment anything downloads it: another archive answers 409, the same one changes nothing, and no read offers a link', async () => {
    const reader = await createTeamWithToken(test, 'acme', 'installers')
    for (const [name, download] of [
      // terraform init: the download location, the protocol's download.
      ['frozen', () => test.fetch(`${test.url}/api/registry/v1/modules/acme/frozen/aws/1.0.0/download`, { headers: { Authorization: `Bearer ${reader.token}` } })],
      // A person taking the archive away from the GUI.
      ['taken', () => test.fetch(`${test.url}/api/v2/organizations/acme/registry-modules/private/acme/taken/aws/1.0.0/archive`, { headers: { Authorization: `Bearer ${reader.token}` } })]
    ] as const) {
      await createModule(test, 'acme', name, 'aws')
      const url = (await createVersion(test, 'acme', name, 'aws', '1.0.0')).links.upload as string
      expect((await upload(url, archive)).status).toBe(200)
      await settledVersion(test, 'acme', name, 'aws', '1.0.0')
      const published = (await versionRecord(name, '1.0.0')).archive!.sha256
      expect((await versionRecord(name, '1.0.0')).firstDownloadedAt).toBeUndefined()

      const downloaded = await download()
      expect(downloaded.status).toBeLessThan(300)
      await downloaded.arrayBuffer()
      expect((await versionRecord(name, '1.0.0')).firstDownloadedAt).toBeDefined()

      const planted = await upload(url, await moduleArchive({ ...NETWORK_MODULE, 'main.tf': 'resource "null_resource" "planted" {}\n' }))
      expect(planted.status).toBe(409)
      expect(planted.body.errors[0]).toMatchObject({ status: '409', code: 'version-frozen' })
      expect(planted.body.errors[0].detail).toMatch(/^Version 1\.0\.0 was downloaded on \d{4}-\d{2}-\d{2}: its archive can no longer change/)
      // The same bytes again (a client retrying its upload) change nothing.
      expect((await upload(url, archive)).status).toBe(200)
      const after = await versionRecord(name, '1.0.0')
      expect(after).toMatchObject({ status: 'ok', archive: { sha256: published } })
      const read = await test.api('GET', `/organizations/acme/registry-modules/private/acme/${name}/aws/version?module_version=1.0.0`)
      expect(read.body.data.links).toEqual({})
      // The owners see the attempt.
      const refused = (await test.api('GET', '/organizations/acme/audit-trail?filter[action]=upload')).body.data.find(
        (event: { resource: { meta: { name: string; outcome: string } } }) => event.resource.meta.name === `acme/${name}/aws 1.0.0` && event.resource.meta.outcome === 'refused'
      )
      expect(refused).toMatchObject({ auth: { credential: 'link' } })
    }
  })

  it('gives upload links only to callers who may publish, and showing one writes nothing', async () => {
    await createModule(test, 'acme', 'guarded', 'aws')
    await createVersion(test, 'acme', 'guarded', 'aws', '1.0.0')
    const reader = await createTeamWithToken(test, 'acme', 'link-readers')
    const publisher = await createTeamWithToken(test, 'acme', 'link-publishers', true)
    const path = '/organizations/acme/registry-modules/private/acme/guarded/aws'
    const moduleId = (await test.api('GET', path)).body.data.id as string

    const recordFiles = () => snapshot((file) => !file.startsWith('modules/'))
    const before = await recordFiles()
    const revision = test.server.services.store.revision()
    for (const token of [reader.token, publisher.token, test.adminToken]) {
      for (const read of [`${path}/version?module_version=1.0.0`, path, `/registry-modules/${moduleId}`, '/organizations/acme/registry-modules']) {
        const response = await test.api('GET', read, { token })
        expect(response.status, read).toBe(200)
        const upload = JSON.stringify(response.body).match(/archivist\/v1\/object\/[^"]+/g) ?? []
        expect(upload, `${read} for ${token === reader.token ? 'a read-only team' : 'a publisher'}`).toHaveLength(
          token !== reader.token && read.includes('module_version') ? 1 : 0
        )
      }
    }
    expect(test.server.services.store.revision()).toBe(revision)
    expect(await recordFiles()).toEqual(before)

    // A failed version takes a new archive through its link, and reading it still writes nothing.
    const link = (await test.api('GET', `${path}/version?module_version=1.0.0`, { token: publisher.token })).body.data.links.upload as string
    expect((await upload(link, 'not an archive')).status).toBe(200)
    expect((await settledVersion(test, 'acme', 'guarded', 'aws', '1.0.0')).entry.status).toBe('reg_ingress_failed')
    const settled = test.server.services.store.revision()
    const retry = await test.api('GET', `${path}/version?module_version=1.0.0`, { token: reader.token })
    expect(retry.body.data.links).toEqual({})
    const shown = (await test.api('GET', `${path}/version?module_version=1.0.0`, { token: publisher.token })).body.data.links.upload as string
    expect(shown).toMatch(/\/archivist\/v1\/object\//)
    expect(test.server.services.store.revision()).toBe(settled)
    expect((await upload(link, archive)).status).toBe(200)
    expect((await settledVersion(test, 'acme', 'guarded', 'aws', '1.0.0')).entry.status).toBe('ok')
  })

  it('refuses an archive above the limit before storing it, declared or not', async () => {
    await createModule(test, 'acme', 'huge', 'aws')
    // Earlier tests' downloads are written by the periodic flush, which may fall between the two snapshots: it goes first.
    await test.server.services.downloads.flush()
    const before = await snapshot((path) => path.startsWith('modules/'))
    const big = Buffer.alloc(3 * 1024 * 1024, 1)
    const declared = await createVersion(test, 'acme', 'huge', 'aws', '1.0.0')
    const response = await upload(declared.links.upload, big)
    expect(response.status).toBe(413)
    expect(response.body.errors[0].detail).toMatch(/at most 2 MB/)

    const streamed = await createVersion(test, 'acme', 'huge', 'aws', '2.0.0')
    const chunked = await fetch(streamed.links.upload, {
      method: 'PUT',
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 3; i++) controller.enqueue(new Uint8Array(1024 * 1024))
          controller.close()
        }
      }),
      duplex: 'half'
    } as RequestInit)
    expect(chunked.status).toBe(413)
    const { entry } = await settledVersion(test, 'acme', 'huge', 'aws', '2.0.0')
    expect(entry).toMatchObject({ status: 'reg_ingress_failed', error: expect.stringMatching(/larger than 2 MB/) })
    expect(await snapshot((path) => path.startsWith('modules/'))).toEqual(before)
  })

  it('refuses a streamed archive above the limit with an answer the client reads, then closes the connection gracefully', async () => {
    await createModule(test, 'acme', 'endless', 'aws')
    for (const [round, framing] of (['declared', 'chunked', 'declared', 'chunked'] as const).entries()) {
      const { links } = await createVersion(test, 'acme', 'endless', 'aws', `1.0.${round}`)
      const { answer, failure, closedByServer } = await uploadWithoutEnd(links.upload, framing)
      // Not reset while the client was still writing: the rest of the body was read and dropped.
      expect(failure, framing).toBeUndefined()
      expect(answer, framing).toMatch(/^HTTP\/1\.1 413 /)
      expect(answer, framing).toMatch(framing === 'declared' ? /Homeport accepts at most 2 MB/ : /larger than 2 MB, the most Homeport accepts/)
      expect(closedByServer, framing).toBe(true)
    }
  })

  it('lets a failed version be retried through a fresh link', async () => {
    await createModule(test, 'acme', 'retry', 'aws')
    const version = await createVersion(test, 'acme', 'retry', 'aws', '1.0.0')
    expect((await upload(version.links.upload, 'not an archive')).status).toBe(200)
    const failed = await settledVersion(test, 'acme', 'retry', 'aws', '1.0.0')
    expect(failed.entry.status).toBe('reg_ingress_failed')
    expect(failed.entry.error).toMatch(/not a gzip-compressed tar archive/)
    const read = await test.api('GET', '/organizations/acme/registry-modules/private/acme/retry/aws/version?module_version=1.0.0')
    expect(read.body.data.attributes.error).toMatch(/not a gzip-compressed/)
    expect((await upload(read.body.data.links.upload, archive)).status).toBe(200)
    expect((await settledVersion(test, 'acme', 'retry', 'aws', '1.0.0')).entry).toEqual({ version: '1.0.0', status: 'ok' })
  })

  it('publishes a module without Terraform files, with a warning', async () => {
    await createModule(test, 'acme', 'docs-only', 'aws')
    const version = await createVersion(test, 'acme', 'docs-only', 'aws', '0.1.0')
    await upload(version.links.upload, await moduleArchive({ 'README.md': '# Nothing to deploy' }))
    expect((await settledVersion(test, 'acme', 'docs-only', 'aws', '0.1.0')).entry.status).toBe('ok')
    const read = await test.api('GET', '/organizations/acme/registry-modules/private/acme/docs-only/aws/version?module_version=0.1.0')
    expect(read.body.data.attributes.warnings[0]).toMatch(/no Terraform files at its root/)
  })
})

describe('hostile archives', () => {
  const bombSize = 64 * 1024 * 1024
  const hostile: Array<[string, () => Buffer, RegExp]> = [
    ['a path climbing out', () => gzip(rawTar([{ path: '../../escape.tf', content: 'x' }])), /climbs out/],
    ['an absolute path', () => gzip(rawTar([{ path: '/tmp/homeport-escape.tf', content: 'x' }])), /absolute path/],
    ['a link out of the root', () => gzip(rawTar([{ path: 'main.tf', type: '2', linkpath: '/etc/passwd' }])), /outside the module root/],
    ['a device file', () => gzip(rawTar([{ path: 'disk', type: '4' }])), /BlockDevice/],
    ['a gzip bomb', () => gzip(rawTar([{ path: 'zeros.tf', content: Buffer.alloc(bombSize) }])), /decompression bomb/],
    [
      '100,000 tiny files',
      () => gzip(rawTar(Array.from({ length: 100_000 }, (_, i) => ({ path: `f/${i}.tf` })))),
      /more than 10000 entries/
    ],
    ['a truncated gzip', () => gzip(rawTar([{ path: 'main.tf', content: 'x'.repeat(5000) }])).subarray(0, 60), /truncated/],
    ['plain text', () => Buffer.from('variable "x" {}'), /not a gzip-compressed tar archive/],
    [
      'a second gzip member after the end of the archive',
      () => Buffer.concat([gzip(rawTar([{ path: 'main.tf', content: 'output "x" { value = 1 }' }])), gzip(rawTar([{ path: '../../etc/cron.d/evil', content: '* * * * * root sh' }]))]),
      /data after its end-of-archive marker/
    ],
    [
      'entries after a lone zero block',
      () => gzip(Buffer.concat([rawTar([{ path: 'main.tf', content: 'x' }]).subarray(0, -512), rawTar([{ path: 'hidden.tf', content: 'y' }])])),
      /data after its end-of-archive marker/
    ],
    ['bytes after the gzip stream', () => Buffer.concat([gzip(rawTar([{ path: 'main.tf', content: 'x' }])), Buffer.alloc(64)]), /after the end of its gzip stream/]
  ]

  it.each(hostile)('fails its version cleanly for %s, changing nothing outside it', async (label, build, reason) => {
    const name = `hostile-${label.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase()}`
    await createModule(test, 'acme', name, 'aws')
    const version = await createVersion(test, 'acme', name, 'aws', '1.0.0')
    const outsideModules = (path: string) => path.startsWith('modules/')
    const before = await snapshot(outsideModules)
    const body = build()
    // The bomb is small compressed; the test server accepts up to 2 MB.
    const response = await upload(version.links.upload, body)
    expect(response.status).toBe(200)
    const { entry } = await settledVersion(test, 'acme', name, 'aws', '1.0.0')
    expect(entry.status).toBe('reg_ingress_failed')
    expect(entry.error).toMatch(reason)
    // The refused archive is let go by the ingest just after it marks the version failed: once the ingest is done, nothing of it is left.
    await test.server.idle()
    expect(await snapshot(outsideModules)).toEqual(before)
    // The server is still fine.
    expect((await test.api('GET', '/organizations/acme')).status).toBe(200)
  }, 60_000)
})

describe('recovery at start', () => {
  // It plays the crash by editing the file store's files; on PostgreSQL a crash is a rolled-back transaction.
  it.skipIf(process.env.HOMEPORT_TEST_STORE === 'postgres')('ingests again a version whose ingest a crash interrupted, and sweeps leftovers (the file store’s files; skipped on PostgreSQL)', async () => {
    await createModule(test, 'acme', 'resumed', 'aws')
    const version = await createVersion(test, 'acme', 'resumed', 'aws', '1.0.0')
    await upload(version.links.upload, await moduleArchive({ 'main.tf': 'output "x" {\n  value = 1\n}\n' }))
    await settledVersion(test, 'acme', 'resumed', 'aws', '1.0.0')
    const record = await versionRecord('resumed', '1.0.0')
    await test.stop()

    // As if the server died mid-ingest: the version still reg_ingressing, no docs written yet.
    const modulesDir = join(test.dataDir, 'modules')
    for (const file of (await readdir(modulesDir)).filter((name) => name.endsWith('.json'))) {
      const path = join(modulesDir, file)
      const text = await readFile(path, 'utf8')
      if (text.includes(record.id)) await writeFile(path, text.replace('"status":"ok"', '"status":"reg_ingressing"'))
    }
    const docsPath = archivePath(record.archive!.sha256).replace('.tar.gz', '.docs.json')
    await unlink(docsPath)
    // And leftovers: an archive no version refers to, a half-received upload.
    const stray = join(test.dataDir, 'archives', 'ff', `${'f'.repeat(64)}.tar.gz`)
    await mkdir(join(test.dataDir, 'archives', 'ff'), { recursive: true })
    await writeFile(stray, 'orphan')
    await writeFile(join(test.dataDir, 'uploads', 'abc.partial'), 'half')

    await test.restart()
    const { entry } = await settledVersion(test, 'acme', 'resumed', 'aws', '1.0.0')
    expect(entry.status).toBe('ok')
    await expect(readFile(docsPath, 'utf8')).resolves.toContain('"outputs"')
    // The archive sweep starts as the server listens.
    await test.server.idle()
    await expect(readFile(stray)).rejects.toThrow(/ENOENT/)
    expect(await readdir(join(test.dataDir, 'uploads'))).toEqual([])
  })
})
