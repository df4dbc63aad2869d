import { PassThrough } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { unzipSync } from 'fflate'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { versionArchives } from '../../src-main/server/store/port.js'
import { moduleArchive } from '../helpers/archives.js'
import { ADMIN, domain, type Domain } from './domain.js'

let d: Domain
beforeEach(async () => {
  d = await domain()
  for (const name of ['busy', 'quiet']) await d.services.organizations.create(ADMIN, { name, email: `${name}@example.com` })
})
afterEach(async () => {
  await d.close()
})

/** Makes every archive read of `store` wait until the function it returns is called. */
function stallArchiveReads(store: Domain['services']['store']): () => void {
  let release!: () => void
  const stalled = new Promise<void>((resolve) => (release = resolve))
  const read = store.archives.read.bind(store.archives)
  store.archives.read = (sha256, range) => {
    const later = new PassThrough()
    void stalled.then(() => read(sha256, range).pipe(later))
    return later
  }
  return release
}

describe('the ingest queue', () => {
  it('lets organizations take turns: a quiet one waits for one archive of a busy one, not for all of them', async () => {
    const { modules, store } = d.services
    const at = (org: string) => ({ organization: org, registryName: 'private', namespace: org, name: 'network', provider: 'aws' })
    await modules.create(ADMIN, 'busy', { name: 'network', provider: 'aws' })
    await modules.create(ADMIN, 'quiet', { name: 'network', provider: 'aws' })
    const publish = async (org: string, version: string, files: Record<string, string>) => {
      const { view, version: created } = await modules.createVersion(ADMIN, at(org), { version })
      await d.upload(modules.uploadObjectId(ADMIN, view, created)!, files)
    }
    // Archives read (the first busy archive's ingest) stall until every archive is in: the queue then
    // holds four more of the busy organization's and the quiet one's, however fast ingest is.
    const release = stallArchiveReads(store)
    for (let i = 0; i < 5; i++) await publish('busy', `1.${i}.0`, { 'main.tf': `output "v${i}" {\n  value = ${i}\n}\n` })
    await publish('quiet', '1.0.0', { 'main.tf': 'output "x" {\n  value = 1\n}\n' })
    release()
    await d.background.close()

    const publishedAt = async (org: string, version: string) => {
      const { version: record } = await modules.readVersion(ADMIN, at(org), version)
      expect(record.status).toBe('ok')
      return record.publishedAt!
    }
    const quiet = await publishedAt('quiet', '1.0.0')
    const busy = await Promise.all([0, 1, 2, 3, 4].map((i) => publishedAt('busy', `1.${i}.0`)))
    // At most the archive in progress and the busy organization's next turn came before it.
    expect(busy.filter((at) => at < quiet).length).toBeLessThanOrEqual(2)
    expect(busy.filter((at) => at > quiet).length).toBeGreaterThanOrEqual(3)
  })
})

describe('the ingest takeover', () => {
  it('leaves a version already waiting in this replica’s queue where it is: each is ingested once', async () => {
    const { modules, store, ingest } = d.services
    const at = { organization: 'busy', registryName: 'private', namespace: 'busy', name: 'network', provider: 'aws' }
    await modules.create(ADMIN, 'busy', { name: 'network', provider: 'aws' })
    const leases = vi.spyOn(d.background, 'withLease')
    // The first archive's ingest stalls: the others wait in the queue, longer than a lease, as a long queue's do.
    const release = stallArchiveReads(store)
    const ids: string[] = []
    for (let i = 0; i < 4; i++) {
      const { view, version } = await modules.createVersion(ADMIN, at, { version: `1.${i}.0` })
      await d.upload(modules.uploadObjectId(ADMIN, view, version)!, { 'main.tf': `output "v${i}" {\n  value = ${i}\n}\n` })
      ids.push(version.id)
    }
    for (let round = 1; round <= 3; round++) await ingest.resumeStalled(Date.now() + round * 60_000)
    release()
    await d.background.close()

    const ingested = (id: string) => leases.mock.calls.filter(([job, key]) => job === 'ingest' && key === id).length
    // The one in progress may be taken up once more (it returns at once: it is published); the waiting ones are not.
    expect(ingested(ids[0]!)).toBeLessThanOrEqual(2)
    expect(ids.slice(1).map(ingested)).toEqual([1, 1, 1])
    for (let i = 0; i < 4; i++) expect((await modules.readVersion(ADMIN, at, `1.${i}.0`)).version.status).toBe('ok')
  })
})

describe('another archive through the same link', () => {
  it('supersedes the one being ingested, and the published one too until the link expires: the last archive wins, and the earlier one is not kept', async () => {
    const { modules, store } = d.services
    const at = { organization: 'busy', registryName: 'private', namespace: 'busy', name: 'vpc', provider: 'aws' }
    await modules.create(ADMIN, 'busy', { name: 'vpc', provider: 'aws' })
    const { view, version } = await modules.createVersion(ADMIN, at, { version: '1.0.0' })
    const link = modules.uploadObjectId(ADMIN, view, version)!

    // Archives read (the first archive's ingest) stall until released, so that the second arrives while it runs.
    const release = stallArchiveReads(store)
    await d.upload(link, { 'main.tf': 'output "first" {\n  value = 1\n}\n' })
    const first = (await modules.readVersion(ADMIN, at, '1.0.0')).version.archive!.sha256
    // Reading the version while its archive is ingested still offers the link: it takes another archive.
    expect(modules.uploadObjectId(ADMIN, (await modules.readVersion(ADMIN, at, '1.0.0')).view, version)).toBe(link)
    await d.upload(link, { 'main.tf': 'output "second" {\n  value = 2\n}\n' })
    const second = (await modules.readVersion(ADMIN, at, '1.0.0')).version.archive!.sha256
    expect(second).not.toBe(first)
    release()
    await d.background.idle()

    const settled = await modules.readVersion(ADMIN, at, '1.0.0')
    expect(settled.version).toMatchObject({ status: 'ok', archive: { sha256: second }, zip: { sha256: expect.any(String) } })
    // The published archive and the zip made of it for OCI clients; nothing of the first.
    expect((await store.archives.list()).sort()).toEqual(versionArchives(settled.version).sort())
    // Published: no read offers a link any more, but the one given still takes an archive until it expires.
    expect(modules.uploadObjectId(ADMIN, settled.view, settled.version)).toBeUndefined()
    await d.upload(link, { 'main.tf': 'output "third" {\n  value = 3\n}\n' })
    await d.background.idle()
    const third = await modules.readVersion(ADMIN, at, '1.0.0')
    expect(third.version.status).toBe('ok')
    expect(third.version.archive!.sha256).not.toBe(second)
    expect((await store.archives.list()).sort()).toEqual(versionArchives(third.version).sort())
  })
})

/** Module `name` for aws in the organization busy, its 1.0.0 published with `files`. */
async function publishOne(name: string, files: Record<string, string> | Buffer) {
  const { modules } = d.services
  const at = { organization: 'busy', registryName: 'private', namespace: 'busy', name, provider: 'aws' }
  await modules.create(ADMIN, 'busy', { name, provider: 'aws' })
  const { view, version } = await modules.createVersion(ADMIN, at, { version: '1.0.0' })
  await d.upload(modules.uploadObjectId(ADMIN, view, version)!, files)
  await d.background.idle()
  return { at, view }
}

describe('the zip OCI clients install a module from', () => {
  it('is made at ingest, and at start for versions published without one, from the archive as it is', async () => {
    const { modules, store, ingest } = d.services
    const { at, view } = await publishOne('vpc', { 'main.tf': 'output "one" {\n  value = 1\n}\n', 'modules/inner/main.tf': '' })
    const made = (await modules.readVersion(ADMIN, at, '1.0.0')).version.zip!
    const files = unzipSync(new Uint8Array(await buffer(store.archives.read(made.sha256))))
    expect(Object.keys(files).sort()).toEqual(['main.tf', 'modules/inner/main.tf'])

    // A version published before Homeport made zips: the start-up job makes the same one.
    await store.modules.update(view.module.id, (draft) => {
      delete draft.versions[0]!.zip
    })
    await d.services.sweepArchives()
    expect(await store.archives.list()).toHaveLength(1)
    // It finds that version through an index, reading no other module: a start need not read them all.
    await publishOne('complete', { 'main.tf': '' })
    const all = vi.spyOn(store.modules, 'all')
    const get = vi.spyOn(store.modules, 'get')
    await ingest.backfillPublished()
    expect(all).not.toHaveBeenCalled()
    expect(get.mock.calls.every(([id]) => id === view.module.id)).toBe(true)
    expect((await modules.readVersion(ADMIN, at, '1.0.0')).version.zip).toEqual(made)
    expect(await store.archives.list()).toHaveLength(4)
  })

  it('is made from the same read of the archive as its documentation, and an archive documented before is read once for it', async () => {
    const { store } = d.services
    const reads: string[] = []
    const read = store.archives.read.bind(store.archives)
    store.archives.read = (sha256, range) => {
      reads.push(sha256)
      return read(sha256, range)
    }
    // Packed once: a tar made again a second later would carry other times, and be another archive.
    const files = await moduleArchive({ 'main.tf': 'variable "cidr" {\n  type = string\n}\n', 'README.md': '# vpc\n\nA VPC.\n' })
    await publishOne('vpc', files)
    expect(reads).toHaveLength(1)
    // The same archive for another module: its documentation is kept, so only the zip reads it.
    await publishOne('vpc-copy', files)
    expect(reads).toHaveLength(2)
    expect(new Set(reads).size).toBe(1)
  })

  it('does not hold up a version when it cannot be stored: the version is published, and the zip is made at the next start', async () => {
    const { modules, store, ingest } = d.services
    const put = store.archives.put.bind(store.archives)
    let puts = 0
    // The upload's put works; the zip's, the second, finds the disk full.
    store.archives.put = async (source, maxBytes) => {
      if (++puts === 2) {
        source.resume()
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
      }
      return put(source, maxBytes)
    }
    const { at } = await publishOne('vpc', { 'main.tf': 'output "one" {\n  value = 1\n}\n' })
    const { version } = await modules.readVersion(ADMIN, at, '1.0.0')
    expect(version.status).toBe('ok')
    expect(version.zip).toBeUndefined()
    expect(await store.archives.list()).toHaveLength(1)
    await ingest.backfillPublished()
    expect((await modules.readVersion(ADMIN, at, '1.0.0')).version.zip).toEqual({ sha256: expect.any(String), size: expect.any(Number) })
  })
})

describe('the description a version keeps', () => {
  it('is its README’s first paragraph, kept at ingest and at start for versions published without it, and the module list’s search finds it', async () => {
    const { modules, store, ingest } = d.services
    const names = async (q: string) => {
      const listing = await modules.list(ADMIN, 'busy', { q })
      return (await modules.pageOf(listing, listing.ids)).map(({ module }) => module.name)
    }
    const { at, view } = await publishOne('eks', { 'README.md': '# EKS\n\nA managed Kubernetes cluster, with its node groups.\n', 'main.tf': 'variable "name" {}\n' })
    expect((await modules.readVersion(ADMIN, at, '1.0.0')).version.description).toBe('A managed Kubernetes cluster, with its node groups.')
    // HCP's q looks at names; Homeport's at the description too.
    expect(await names('kubernetes')).toEqual(['eks'])
    expect(await names('nothing like it')).toEqual([])

    // A version published before descriptions were kept: found again once the start-up job gives it its own.
    await store.modules.update(view.module.id, (draft) => {
      delete draft.versions[0]!.description
    })
    expect(await names('kubernetes')).toEqual([])
    await ingest.backfillPublished()
    expect((await modules.readVersion(ADMIN, at, '1.0.0')).version.description).toBe('A managed Kubernetes cluster, with its node groups.')
    expect(await names('kubernetes')).toEqual(['eks'])
  })
})
