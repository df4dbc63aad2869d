import { describe, expect, it } from 'vitest'
import { descending, ModuleDirectory, type ModuleSummary } from '../../src-main/server/domain/modules/module-directory.js'

let made = 0
function summary(address: string, fields: Partial<ModuleSummary> = {}): ModuleSummary {
  const [namespace, name, provider] = address.split('/') as [string, string, string]
  const description = fields.searched?.[3] ?? ''
  return {
    id: `mod-${++made}`,
    organizationId: 'org-a',
    registryName: 'private',
    namespace,
    name,
    provider,
    publishedAt: 0,
    ...fields,
    searched: [name, namespace, provider, description].map((field) => field.toLowerCase())
  }
}

/** The addresses of the modules put, by id. */
const held = new Map<string, string>()
const names = (ids: string[]) => ids.map((id) => held.get(id)!)
function put(directory: ModuleDirectory, module: ModuleSummary): ModuleSummary {
  held.set(module.id, `${module.namespace}/${module.name}/${module.provider}`)
  directory.put(module)
  return module
}

describe('the module directory', () => {
  it('lists an organization’s modules by address as people read it (namespace, then name, then provider), whatever order they came in', () => {
    const directory = new ModuleDirectory()
    for (const address of ['acme/vpc/aws', 'acme/Bucket/aws', 'acme/bucket/google', 'acme/eks/aws', 'hashicorp/consul/aws', 'acme/bucket/aws']) put(directory, summary(address))
    put(directory, summary('acme/vpc/aws', { organizationId: 'org-b' }))
    const { ids } = directory.list('org-a', {}, 'name')
    expect(names(ids)).toEqual(['acme/bucket/aws', 'acme/bucket/google', 'acme/Bucket/aws', 'acme/eks/aws', 'acme/vpc/aws', 'hashicorp/consul/aws'])
    expect(names(directory.list('org-b', {}, 'name').ids)).toEqual(['acme/vpc/aws'])
    expect(directory.list('org-none', {}, 'name')).toEqual({ ids: [], providers: [] })
  })

  it('filters by q (name, namespace, provider, description, any case), registry, namespace and provider, and counts the providers of all but the provider filter', () => {
    const directory = new ModuleDirectory()
    const eks = put(directory, summary('acme/eks/aws', { searched: ['', '', '', 'A managed Kubernetes cluster'] }))
    const gke = put(directory, summary('acme/gke/google', { searched: ['', '', '', 'Kubernetes on Google'] }))
    const consul = put(directory, summary('hashicorp/consul/aws', { registryName: 'public' }))
    const list = (filter: Parameters<ModuleDirectory['list']>[1]) => directory.list('org-a', filter, 'name')
    expect(list({ q: 'kubernetes' })).toEqual({ ids: [eks.id, gke.id], providers: [{ provider: 'aws', count: 1 }, { provider: 'google', count: 1 }] })
    expect(list({ q: 'kubernetes', provider: 'google' })).toEqual({ ids: [gke.id], providers: [{ provider: 'aws', count: 1 }, { provider: 'google', count: 1 }] })
    expect(list({ q: 'hashi' }).ids).toEqual([consul.id])
    expect(list({ registryName: 'public' }).ids).toEqual([consul.id])
    expect(list({ organizationName: 'acme' }).ids).toEqual([eks.id, gke.id])
    expect(list({ provider: 'aws' })).toEqual({ ids: [eks.id, consul.id], providers: [{ provider: 'aws', count: 2 }, { provider: 'google', count: 1 }] })
  })

  it('orders by the latest version’s date, the newest first, unpublished last, ties by address', () => {
    const directory = new ModuleDirectory()
    const never = put(directory, summary('acme/a-never/aws'))
    const old = put(directory, summary('acme/old/aws', { publishedAt: Date.parse('2026-01-01T00:00:00Z') }))
    const tiedB = put(directory, summary('acme/tied-b/aws', { publishedAt: Date.parse('2026-06-01T00:00:00Z') }))
    const tiedA = put(directory, summary('acme/tied-a/aws', { publishedAt: Date.parse('2026-06-01T00:00:00Z') }))
    expect(directory.list('org-a', {}, 'published').ids).toEqual([tiedA.id, tiedB.id, old.id, never.id])
  })

  it('follows changes: a module replaced where it stands, moved when its address changes (an organization renamed), dropped, and each change moves its organization’s generation only', () => {
    const directory = new ModuleDirectory()
    const network = put(directory, summary('acme/network/aws'))
    const storage = put(directory, summary('acme/storage/aws'))
    const other = put(directory, summary('acme/vpc/aws', { organizationId: 'org-b' }))
    const generation = directory.generation('org-a')
    const otherGeneration = directory.generation('org-b')

    // A new version: the same place, a new description found.
    put(directory, { ...network, searched: [...network.searched.slice(0, 3), 'now with ipv6'] })
    expect(directory.generation('org-a')).toBeGreaterThan(generation)
    expect(directory.list('org-a', { q: 'ipv6' }, 'name').ids).toEqual([network.id])
    // The organization renamed: its private modules take its new name, and their place by it.
    put(directory, { ...storage, namespace: 'aaa' })
    expect(directory.list('org-a', {}, 'name').ids).toEqual([storage.id, network.id])
    expect(directory.list('org-a', { organizationName: 'acme' }, 'name').ids).toEqual([network.id])
    directory.drop(network.id)
    directory.drop('mod-unknown')
    expect(directory.list('org-a', {}, 'name').ids).toEqual([storage.id])
    expect(directory.size).toBe(2)
    expect(directory.generation('org-b')).toBe(otherGeneration)
    // Moved to another organization (a store's repair could): listed there only.
    put(directory, { ...storage, organizationId: 'org-b' })
    expect(directory.list('org-a', {}, 'name').ids).toEqual([])
    expect(directory.list('org-b', {}, 'name').ids).toEqual([storage.id, other.id])
  })

  it('keeps its order through thousands of changes in any order', () => {
    const directory = new ModuleDirectory()
    const modules = Array.from({ length: 3000 }, (_, index) => summary(`acme/m${String((index * 7919) % 3000).padStart(4, '0')}/aws`))
    for (const module of modules) put(directory, module)
    for (const module of modules.filter((_, index) => index % 3 === 0)) directory.drop(module.id)
    for (const module of modules.filter((_, index) => index % 3 === 1)) put(directory, { ...module, publishedAt: 1 })
    const expected = modules.filter((_, index) => index % 3 !== 0).map((module) => module.name).sort()
    expect(directory.list('org-a', {}, 'name').ids.map((id) => held.get(id)!.split('/')[1])).toEqual(expected)
  })
})

describe('descending', () => {
  it('orders by a number, the greatest first, ties in their order', () => {
    expect(descending(['a', 'b', 'c', 'd', 'e'], [1, 3, 1, 0, 3])).toEqual(['b', 'e', 'a', 'c', 'd'])
    expect(descending([], [])).toEqual([])
    // As a stable sort by the key, greatest first, over thousands with ties and dates.
    const keys = Array.from({ length: 5000 }, (_, index) => (index % 3 === 0 ? 1.7e12 + ((index * 7919) % 97) * 1000 : (index * 31) % 11))
    const items = keys.map((_, index) => index)
    expect(descending(items, keys)).toEqual([...items].sort((a, b) => keys[b]! - keys[a]!))
    expect(descending(['old', 'new', 'none'], [Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-11-28T00:00:00Z'), 0])).toEqual(['new', 'old', 'none'])
  })
})
