import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ForbiddenError, InvalidInputError, NotFoundError } from '../../src-main/server/domain/core/errors.js'
import { MAX_WAITING_VERSIONS } from '../../src-main/server/domain/modules/modules.js'
import { recordId } from '../../src-main/server/domain/modules/downloads.js'
import { ADMIN, domain, type Domain } from './domain.js'

let d: Domain
const at = (name: string) => ({ organization: 'acme', registryName: 'private', namespace: 'acme', name, provider: 'aws' })
beforeEach(async () => {
  d = await domain()
  await d.services.organizations.create(ADMIN, { name: 'acme', email: 'platform@acme.example' })
  await d.services.organizations.create(ADMIN, { name: 'other', email: 'other@other.example' })
})
afterEach(async () => {
  await d.close()
})

describe('modules and versions, on the memory store', () => {
  it('lets teams that manage modules publish, every team read, and strangers see nothing', async () => {
    const publisher = await d.team('acme', 'publishers', true)
    const reader = await d.team('acme', 'readers')
    const stranger = await d.team('other', 'strangers', true)
    const { modules } = d.services
    await modules.create(publisher, 'acme', { name: 'network', provider: 'aws' })
    await expect(modules.create(reader, 'acme', { name: 'storage', provider: 'aws' })).rejects.toBeInstanceOf(NotFoundError)
    expect((await modules.read(reader, at('network'))).module.name).toBe('network')
    await expect(modules.read(stranger, at('network'))).rejects.toBeInstanceOf(NotFoundError)
    await expect(modules.createVersion(reader, at('network'), { version: '1.0.0' })).rejects.toBeInstanceOf(NotFoundError)
    const { view, version } = await modules.createVersion(publisher, at('network'), { version: 'v1.0.0' })
    expect(version).toMatchObject({ version: '1.0.0', status: 'pending' })
    // Upload links only for those who may publish.
    expect(modules.uploadObjectId(reader, view, version)).toBeUndefined()
    expect(modules.uploadObjectId(publisher, view, version)).toMatch(/^modver-\w+\.\d+\.[\w-]{43}$/)
    // Only owners delete.
    await expect(modules.deleteVersion(publisher, at('network'), '1.0.0')).rejects.toBeInstanceOf(NotFoundError)
  })

  it('hands out a link until the version is published, and reads the version without writing', async () => {
    const { modules, store } = d.services
    await modules.create(ADMIN, 'acme', { name: 'network', provider: 'aws' })
    const { view, version } = await modules.createVersion(ADMIN, at('network'), { version: '1.0.0' })
    const link = modules.uploadObjectId(ADMIN, view, version)!
    const revision = store.revision()
    for (let i = 0; i < 3; i++) expect(modules.uploadObjectId(ADMIN, (await modules.readVersion(ADMIN, at('network'), '1.0.0')).view, version)).toBe(link)
    expect(store.revision()).toBe(revision)
    await d.upload(link, { 'main.tf': 'variable "cidr" {\n  type = string\n}\n' })
    await d.background.idle()
    const published = await modules.readVersion(ADMIN, at('network'), '1.0.0')
    expect(published.version.status).toBe('ok')
    // The link given still takes an archive until it expires (tests/domain/ingest.test.ts); reads give no new one.
    expect(modules.uploadObjectId(ADMIN, published.view, published.version)).toBeUndefined()
  })

  it('refuses bad names, duplicates and more waiting versions than the bound', async () => {
    const { modules } = d.services
    await expect(modules.create(ADMIN, 'acme', { name: '-bad', provider: 'aws' })).rejects.toBeInstanceOf(InvalidInputError)
    await expect(modules.create(ADMIN, 'acme', { name: 'ok', provider: 'AWS' })).rejects.toBeInstanceOf(InvalidInputError)
    await modules.create(ADMIN, 'acme', { name: 'piled', provider: 'aws' })
    await expect(modules.create(ADMIN, 'acme', { name: 'piled', provider: 'aws' })).rejects.toThrow(/already exists/)
    await expect(modules.createVersion(ADMIN, at('piled'), { version: 'one' })).rejects.toBeInstanceOf(InvalidInputError)
    for (let i = 0; i < MAX_WAITING_VERSIONS; i++) await modules.createVersion(ADMIN, at('piled'), { version: `0.0.${i}` })
    await expect(modules.createVersion(ADMIN, at('piled'), { version: '1.0.0' })).rejects.toThrow(/100 versions still waiting/)
    await expect(modules.createVersion(ADMIN, at('piled'), { version: '0.0.1' })).rejects.toThrow(/already exists/)
  })

  it('takes the module with its last version, even when its last two go at once', async () => {
    const { modules, store } = d.services
    await modules.create(ADMIN, 'acme', { name: 'racing', provider: 'aws' })
    await modules.createVersion(ADMIN, at('racing'), { version: '1.0.0' })
    await modules.createVersion(ADMIN, at('racing'), { version: '1.1.0' })
    await Promise.all([modules.deleteVersion(ADMIN, at('racing'), '1.0.0'), modules.deleteVersion(ADMIN, at('racing'), '1.1.0')])
    expect((await store.modules.all()).filter((module) => module.name === 'racing')).toEqual([])
    await expect(modules.read(ADMIN, at('racing'))).rejects.toBeInstanceOf(NotFoundError)
  })

  it('keeps public modules apart: no versions created here, and none in the self-hosted edition', async () => {
    const { modules } = d.services
    await modules.create(ADMIN, 'acme', { name: 'vpc', provider: 'aws', registryName: 'public', namespace: 'terraform-aws-modules' })
    const publicAt = { ...at('vpc'), registryName: 'public', namespace: 'terraform-aws-modules' }
    await expect(modules.createVersion(ADMIN, publicAt, { version: '1.0.0' })).rejects.toBeInstanceOf(ForbiddenError)
    const selfHosted = await domain('self-hosted')
    try {
      await selfHosted.services.organizations.create(ADMIN, { name: 'acme', email: 'a@acme.example' })
      await expect(selfHosted.services.modules.create(ADMIN, 'acme', { name: 'vpc', provider: 'aws', registryName: 'public', namespace: 'x' })).rejects.toThrow(
        /keeps private modules only/
      )
    } finally {
      await selfHosted.close()
    }
  })

  it('lists an organization’s modules as they are after every write, each listing computed once until the next', async () => {
    const { modules, downloads } = d.services
    await modules.create(ADMIN, 'acme', { name: 'network', provider: 'aws' })
    await modules.create(ADMIN, 'acme', { name: 'storage', provider: 'aws' })
    const names = async (sort?: '-downloads') => {
      const listing = await modules.list(ADMIN, 'acme', { sort })
      return (await modules.pageOf(listing, listing.ids)).map((view) => view.module.name)
    }
    // Kept: the same list, with the organization as it is now.
    const first = await modules.list(ADMIN, 'acme')
    expect((await modules.list(ADMIN, 'acme')).ids).toBe(first.ids)
    await expect(modules.list(await d.team('other', 'strangers'), 'acme')).rejects.toBeInstanceOf(NotFoundError)
    await modules.create(ADMIN, 'acme', { name: 'compute', provider: 'aws' })
    expect(await names()).toEqual(['compute', 'network', 'storage'])
    await modules.deleteProvider(ADMIN, at('network'))
    expect(await names()).toEqual(['compute', 'storage'])
    // By downloads: a download counted here orders it at once.
    expect(await names('-downloads')).toEqual(['compute', 'storage'])
    downloads.count((await modules.read(ADMIN, at('storage'))).module.id)
    expect(await names('-downloads')).toEqual(['storage', 'compute'])
    // Kept while no count changes (a quiet registry's list is not ordered again), however long that is.
    const byDownloads = await modules.list(ADMIN, 'acme', { sort: '-downloads' })
    expect((await modules.list(ADMIN, 'acme', { sort: '-downloads' })).ids).toBe(byDownloads.ids)
    // Counts written to the store by another replica order it at once too: no clock to wait for.
    const { module: compute } = await modules.read(ADMIN, at('compute'))
    const id = recordId(compute.id)
    await d.services.store.downloads.upsert(id, () => ({ id, moduleId: compute.id, total: 0, days: {}, consumers: {} }), (draft) => {
      draft.total += 5
    })
    expect(await names('-downloads')).toEqual(['compute', 'storage'])
  })

  it('hands out records no caller can change behind the store’s back', async () => {
    const { modules, store } = d.services
    const { module } = await modules.create(ADMIN, 'acme', { name: 'frozen', provider: 'aws' })
    const read = (await store.modules.get(module.id))!
    expect(() => {
      read.name = 'changed'
    }).toThrow(TypeError)
    expect(() => {
      read.versions.push({} as never)
    }).toThrow(TypeError)
    expect((await store.modules.get(module.id))!.name).toBe('frozen')
  })
})
