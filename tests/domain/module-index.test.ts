import { afterEach, describe, expect, it, vi } from 'vitest'
import { docsSearchText, queryWords } from '../../src-main/server/domain/search/module-search.js'
import { ModuleIndex } from '../../src-main/server/domain/search/module-index.js'
import { NO_DOCS } from '../../src-main/server/domain/archives/docs-cache.js'
import type { ModuleDocs } from '../../src-main/server/domain/archives/module-docs.js'
import { openMemoryStore } from '../../src-main/server/store/memory/memory-store.js'
import { StoreLoadError } from '../../src-main/server/store/errors.js'
import type { ModuleRecord, OrganizationRecord, VersionRecord } from '../../src-main/server/store/records.js'
import type { Store } from '../../src-main/server/store/port.js'

const stores: Store[] = []
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
})

const docsOf = (description: string, fields: { inputs?: string[]; resources?: string[]; readme?: string } = {}): ModuleDocs => ({
  ...NO_DOCS,
  description,
  root: {
    ...NO_DOCS.root,
    readme: fields.readme ?? '',
    inputs: (fields.inputs ?? []).map((input) => {
      const [name = '', ...words] = input.split(' ')
      return { name, description: words.join(' '), type: 'string', required: true }
    }) as ModuleDocs['root']['inputs'],
    resources: (fields.resources ?? []).map((type) => ({ type, name: 'this' }))
  }
})

/** A memory store holding organizations `acme` and `zeta`, and what `module` puts in it: a module with a published version documented by `docs`. */
async function registry(): Promise<{ store: Store; index: ModuleIndex; module: (org: string, name: string, docs?: ModuleDocs) => Promise<ModuleRecord> }> {
  const store = await openMemoryStore()
  stores.push(store)
  for (const name of ['acme', 'zeta']) await store.organizations.create({ id: `org-${name}`, name, teams: [], cliTokens: [], loginCodes: [], vcsConnections: [] } as unknown as OrganizationRecord)
  let archives = 0
  return {
    store,
    index: new ModuleIndex(store),
    async module(org, name, docs) {
      const sha256 = String(++archives).padStart(64, '0')
      if (docs) await store.archives.writeDocs(sha256, docs)
      const version = { id: `modver-${org}${name.replace(/[^a-z0-9]/g, '')}1`, version: '1.0.0', status: docs ? 'ok' : 'pending', archive: docs ? { sha256, size: 1 } : null } as unknown as VersionRecord
      const now = '2026-11-28T00:00:00.000Z'
      return store.modules.create({ id: `mod-${org}${name.replace(/[^a-z0-9]/g, '')}`, organizationId: `org-${org}`, registryName: 'private', namespace: null, name, provider: 'aws', noCode: false, status: 'setup_complete', testConfig: null, createdAt: now, updatedAt: now, versions: [version], vcsRepo: null })
    }
  }
}

const BOTH = new Set(['org-acme', 'org-zeta'])

async function names(index: ModuleIndex, query: string, organizations: ReadonlySet<string> = BOTH): Promise<string[]> {
  return (await index.search(query, organizations)).hits.map((hit) => hit.moduleId)
}

describe('the search index of modules', () => {
  it('splits a query into words as module names are split', () => {
    expect(queryWords('  S3-Bucket, lifecycle  s3 ')).toEqual(['s3', 'bucket', 'lifecycle'])
  })

  it('keeps the modules holding every word, the one named by them first, with the fields each was found in', async () => {
    const { index, module } = await registry()
    await module('acme', 'vpc', docsOf('Creates a VPC with private subnets.', { inputs: ['private_subnets A list of private subnets'] }))
    await module('acme', 'eks', docsOf('An EKS cluster.', { inputs: ['subnet_ids The private subnets the nodes run in'], readme: 'Runs in the VPC you give it.' }))
    await module('acme', 's3-bucket', docsOf('An S3 bucket with lifecycle rules.', { resources: ['aws_s3_bucket'] }))
    const { hits, total } = await index.search('vpc private subnets', BOTH)
    expect(total).toBe(2)
    expect(hits.map((hit) => [hit.moduleId, hit.matched])).toEqual([
      ['mod-acmevpc', ['name', 'description', 'inputs']],
      ['mod-acmeeks', ['inputs', 'readme']]
    ])
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score)
    expect(await names(index, 'lifecycle')).toEqual(['mod-acmes3bucket'])
    expect((await index.search('s3 bucket', BOTH)).hits[0]).toMatchObject({ moduleId: 'mod-acmes3bucket', matched: ['name', 'description', 'resources'] })
    expect(await names(index, 'kubernetes')).toEqual([])
    expect(await names(index, ' ,. ')).toEqual([])
  })

  it('finds a word by its start, as it is typed, and ties by address', async () => {
    const { index, module } = await registry()
    await module('zeta', 'network', docsOf('A network.'))
    await module('acme', 'network', docsOf('A network.'))
    await module('acme', 'netbox', docsOf('NetBox.'))
    for (const typed of ['n', 'ne', 'net']) expect(await names(index, typed)).toEqual(['mod-acmenetbox', 'mod-acmenetwork', 'mod-zetanetwork'])
    expect(await names(index, 'netw')).toEqual(['mod-acmenetwork', 'mod-zetanetwork'])
    // The best few of many, and how many there were.
    expect(await index.search('ne', BOTH, 2)).toMatchObject({ hits: [{ moduleId: 'mod-acmenetbox' }, { moduleId: 'mod-acmenetwork' }], total: 3 })
    // Within a word, not only at its start, it is not found: `etwork` is no word's beginning.
    expect(await names(index, 'etwork')).toEqual([])
  })

  it('answers for the organizations it is asked about only', async () => {
    const { index, module } = await registry()
    await module('acme', 'vpc', docsOf('A VPC.'))
    await module('zeta', 'vpc', docsOf('A VPC.'))
    expect(await names(index, 'vpc', new Set(['org-zeta']))).toEqual(['mod-zetavpc'])
    expect(await names(index, 'vpc', new Set())).toEqual([])
  })

  it('follows the store’s writes: a module added, its new version, its organization renamed, and the module deleted', async () => {
    const { store, index, module } = await registry()
    await module('acme', 'vpc', docsOf('A VPC.'))
    expect(await names(index, 'vpc')).toEqual(['mod-acmevpc'])
    // A module with no published version yet is found by its address alone.
    await module('acme', 'queue')
    expect(await names(index, 'queue')).toEqual(['mod-acmequeue'])
    await store.archives.writeDocs('f'.repeat(64), docsOf('A queue for kafka workloads.'))
    await store.modules.update('mod-acmequeue', (draft) => {
      draft.versions[0]!.status = 'ok'
      draft.versions[0]!.archive = { sha256: 'f'.repeat(64), size: 1 }
    })
    expect(await names(index, 'kafka')).toEqual(['mod-acmequeue'])
    // A private module's namespace is its organization's name, whatever it becomes.
    expect(await names(index, 'acme vpc')).toEqual(['mod-acmevpc'])
    await store.organizations.update('org-acme', (draft) => void (draft.name = 'globex'))
    expect(await names(index, 'acme vpc')).toEqual([])
    expect(await names(index, 'globex vpc')).toEqual(['mod-acmevpc'])
    await store.modules.delete('mod-acmevpc')
    expect(await names(index, 'vpc')).toEqual([])
  })

  it('keeps the modules’ summaries for the module list from the same reads: a module added, published, its organization renamed (another change to it reads nothing again), deleted', async () => {
    const { store, index, module } = await registry()
    const listed = async (filter = {}) => (await index.directory()).list('org-acme', filter, 'name').ids
    await module('acme', 'vpc', docsOf('A VPC with private subnets.'))
    await module('acme', 'eks')
    await module('zeta', 'vpc')
    expect(await listed()).toEqual(['mod-acmeeks', 'mod-acmevpc'])
    expect(await listed({ q: 'vp' })).toEqual(['mod-acmevpc'])
    await store.archives.writeDocs('e'.repeat(64), docsOf('Kubernetes.'))
    await store.modules.update('mod-acmeeks', (draft) => {
      draft.versions[0]!.status = 'ok'
      draft.versions[0]!.archive = { sha256: 'e'.repeat(64), size: 1 }
      draft.versions[0]!.publishedAt = '2026-11-28T10:00:00.000Z'
      draft.versions[0]!.description = 'A managed Kubernetes cluster.'
    })
    expect(await listed({ q: 'kubernetes' })).toEqual(['mod-acmeeks'])
    expect((await index.directory()).list('org-acme', {}, 'published').ids).toEqual(['mod-acmeeks', 'mod-acmevpc'])
    // Renamed: its modules are listed under the new name.
    await store.organizations.update('org-acme', (draft) => void (draft.name = 'globex'))
    expect(await listed({ organizationName: 'globex' })).toEqual(['mod-acmeeks', 'mod-acmevpc'])
    // Its email changed: its modules are not read again.
    const scanMany = vi.spyOn(store.modules, 'scanMany')
    await store.organizations.update('org-acme', (draft) => void (draft.email = 'platform@globex.example'))
    expect(await listed()).toEqual(['mod-acmeeks', 'mod-acmevpc'])
    expect(scanMany).not.toHaveBeenCalled()
    await store.modules.delete('mod-acmevpc')
    expect(await listed()).toEqual(['mod-acmeeks'])
  })

  it('lists the modules once their records are read, while their documentation is still being indexed; a module written meanwhile is found as written', async () => {
    const { store, index, module } = await registry()
    await module('acme', 'vpc', docsOf('A VPC with private subnets.'))
    await module('acme', 'eks', docsOf('A Kubernetes cluster.'))
    const readManyDocs = store.archives.readManyDocs.bind(store.archives)
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    // The build's read of the documentation as published first waits; a catch-up's of what replaced it does not.
    const first = '1'.padStart(64, '0')
    let reached!: () => void
    const reading = new Promise<void>((resolve) => (reached = resolve))
    store.archives.readManyDocs = async (hashes) => {
      if (hashes.includes(first)) {
        reached()
        await held
      }
      return readManyDocs(hashes)
    }
    const searched = names(index, 'subnets')
    expect((await index.directory()).list('org-acme', {}, 'name').ids).toEqual(['mod-acmeeks', 'mod-acmevpc'])
    await reading
    // Changed while the build reads documentation: what it read first is not what it indexes.
    await store.archives.writeDocs('f'.repeat(64), docsOf('A VPC with public subnets only.'))
    await store.modules.update('mod-acmevpc', (draft) => void (draft.versions[0]!.archive = { sha256: 'f'.repeat(64), size: 1 }))
    await store.modules.delete('mod-acmeeks')
    expect((await index.directory()).list('org-acme', {}, 'name').ids).toEqual(['mod-acmevpc'])
    release()
    expect(await searched).toEqual(['mod-acmevpc'])
    expect(await names(index, 'public')).toEqual(['mod-acmevpc'])
    expect(await names(index, 'private')).toEqual([])
    expect(await names(index, 'kubernetes')).toEqual([])
  })

  it('stops a build between two pages when its signal says the server is stopping', async () => {
    const { store, index, module } = await registry()
    for (let n = 0; n < 250; n++) await module('acme', `m${n}`, docsOf('A module.'))
    const stopping = new AbortController()
    const scanned: number[] = []
    const scanMany = store.modules.scanMany.bind(store.modules)
    store.modules.scanMany = (ids) => {
      scanned.push(ids.length)
      // The server stops while the first page is read.
      stopping.abort(new Error('Homeport is stopping'))
      return scanMany(ids)
    }
    await expect(index.built(stopping.signal)).rejects.toThrow('Homeport is stopping')
    // One page of the 250 modules read, not the other two.
    expect(scanned).toEqual([100])
  })

  it('builds again at the next search when reading the documentation failed', async () => {
    const { store, index, module } = await registry()
    await module('acme', 'vpc', docsOf('A VPC with private subnets.'))
    const readManyDocs = store.archives.readManyDocs.bind(store.archives)
    store.archives.readManyDocs = () => Promise.reject(new Error('the database is out of reach'))
    await expect(index.search('subnets', BOTH)).rejects.toThrow('out of reach')
    store.archives.readManyDocs = readManyDocs
    expect(await names(index, 'subnets')).toEqual(['mod-acmevpc'])
  })

  it('reads everything again when told writes may have gone unheard (a replica that lost its LISTEN connection)', async () => {
    const { store, module } = await registry()
    // An index that hears only what the test tells it.
    const told: Array<(id: string | undefined) => void> = []
    const deaf = (records: object) => Object.create(records, { onChange: { value: (listener: (id: string | undefined) => void) => (told.push(listener), () => undefined) } })
    const index = new ModuleIndex(Object.create(store, { modules: { value: deaf(store.modules) }, organizations: { value: deaf(store.organizations) } }) as Store)
    await module('acme', 'vpc', docsOf('A VPC.'))
    expect(await names(index, 'vpc')).toEqual(['mod-acmevpc'])
    await module('acme', 'eks', docsOf('An EKS cluster.'))
    expect(await names(index, 'eks')).toEqual([])
    for (const listener of told) listener(undefined)
    expect(await names(index, 'eks')).toEqual(['mod-acmeeks'])
  })

  it('leaves out of its build a module whose record is damaged, logged, and finds the rest', async () => {
    const { store, index, module } = await registry()
    await module('acme', 'vpc', docsOf('A VPC.'))
    await module('acme', 'eks', docsOf('An EKS cluster on a VPC.'))
    const scanMany = store.modules.scanMany.bind(store.modules)
    store.modules.scanMany = (ids) => (ids.includes('mod-acmevpc') ? Promise.reject(new StoreLoadError('modules/mod-acmevpc.json', 'Unexpected end of JSON input')) : scanMany(ids))
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      expect(await names(index, 'vpc')).toEqual(['mod-acmeeks'])
      expect(log).toHaveBeenCalledWith(expect.stringContaining('mod-acmevpc.json'))
    } finally {
      log.mockRestore()
    }
  })

  it('finds a module whose documentation file is damaged by its address alone, logged', async () => {
    const { store, index, module } = await registry()
    await module('acme', 'vpc', docsOf('Private subnets.'))
    store.archives.readManyDocs = (hashes) => Promise.resolve(hashes.map(() => new SyntaxError('Unexpected end of JSON input')))
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      expect(await names(index, 'vpc')).toEqual(['mod-acmevpc'])
      expect(await names(index, 'subnets')).toEqual([])
      expect(log).toHaveBeenCalledWith(expect.stringContaining('vpc/aws by its address alone'))
    } finally {
      log.mockRestore()
    }
  })

  it('tries a read that failed again at the next search, losing no write it heard', async () => {
    const { store, index, module } = await registry()
    await module('acme', 'vpc', docsOf('A VPC.'))
    expect(await names(index, 'vpc')).toEqual(['mod-acmevpc'])
    const scanMany = store.modules.scanMany.bind(store.modules)
    let failing = true
    store.modules.scanMany = (ids) => (failing ? Promise.reject(new Error('the database is out of reach')) : scanMany(ids))
    await module('acme', 'eks', docsOf('An EKS cluster.'))
    await expect(index.search('eks', BOTH)).rejects.toThrow('out of reach')
    failing = false
    expect(await names(index, 'eks')).toEqual(['mod-acmeeks'])
  })
})

describe('a module’s documentation as searched', () => {
  const readme = '# EKS\n\nRuns **Kubernetes** (EKS) in your VPC: `subnet_ids`, S3-backed logs; see https://example.com/docs/eks-setup?x=1.\nÉtat: prêt. Kubernetes again, and again.\n'
  const docs: ModuleDocs = {
    ...docsOf('An EKS cluster on Kubernetes 1.31.', { inputs: ['subnet_ids The private subnets the nodes run in.'], resources: ['aws_eks_cluster'], readme }),
    root: { ...docsOf('', { inputs: ['subnet_ids The private subnets the nodes run in.'], resources: ['aws_eks_cluster'], readme }).root, outputs: [{ name: 'cluster_arn', description: 'The ARN of the cluster.' }] as ModuleDocs['root']['outputs'] }
  }

  it('keeps each word once, split as a query is, so a README’s repetitions take no room', () => {
    const text = docsSearchText(docs)
    expect(text.readme.filter((word) => word === 'kubernetes')).toHaveLength(1)
    expect(text.inputs).toEqual(['subnet', 'ids', 'the', 'private', 'subnets', 'nodes', 'run', 'in'])
    expect(text.readme).toEqual(expect.arrayContaining(['s3', 'backed', 'example', 'com', 'setup', 'tat', 'pr', 't', 'x', '1']))
    expect(text.outputs).toEqual(['cluster', 'arn', 'the', 'of'])
    expect(text.resources).toEqual(['aws', 'eks', 'cluster'])
  })
})
