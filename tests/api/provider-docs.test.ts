import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { moduleArchive } from '../helpers/archives.js'
import { DOCS_TREE_COUNTS, legacyDocsTree, providerDocsTree, startDocsUpstream, type DocsUpstream } from '../helpers/provider-docs.js'
import { makeSigningKey, providerRelease, publishProvider, putFile, startPublicUpstream } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, doc, startTestServer, type TestServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'

/**
 * Provider docs on every face that reads them (the registry's v1 and v2 docs APIs, MCP), for a
 * private provider whose publisher uploads its docs tree, and for a public provider mirrored from a
 * stand-in for registry.terraform.io that pages its docs list (10 a page, fewer than the docs),
 * served again once the upstream is gone.
 */
const HCL_DOCS = Object.values(DOCS_TREE_COUNTS).reduce((sum, count) => sum + count, 0)
let homeport: TestServer
let upstream: TestServer
let docsUpstream: DocsUpstream
let openTofuDocs: DocsUpstream
let reader: string
let outsider: string
const clients: Client[] = []

beforeAll(async () => {
  const started = await startPublicUpstream()
  upstream = started.upstream
  await publishProvider(upstream, 'hashicorp', await providerRelease('null', '3.2.3', ['linux_amd64'], started.key), started.key)
  docsUpstream = await startDocsUpstream(upstream.url, { 'hashicorp/null': { '3.2.3': providerDocsTree('null') } })
  // OpenTofu's registry, its protocols and its docs API (api.opentofu.org) on one stand-in.
  openTofuDocs = await startDocsUpstream(upstream.url, { 'hashicorp/null': { '3.2.3': providerDocsTree('null') } }, 10, { openTofu: true })
  homeport = await startTestServer({
    upstream: docsUpstream.url,
    upstreamToken: upstream.adminToken,
    openTofuUpstream: openTofuDocs.url,
    openTofuUpstreamToken: upstream.adminToken,
    openTofuDocs: openTofuDocs.url,
    upstreamMaxAgeMs: 0
  })
  await createOrganization(homeport, 'acme')
  await createOrganization(homeport, 'other')
  const key = await makeSigningKey()
  await publishProvider(homeport, 'acme', await providerRelease('widget', '1.0.0', ['linux_amd64'], key), key)
  await publishProvider(homeport, 'acme', await providerRelease('widget', '1.1.0', ['linux_amd64'], key), key)
  reader = (await createTeamWithToken(homeport, 'acme', 'readers')).token
  outsider = (await createTeamWithToken(homeport, 'other', 'strangers')).token
}, 120_000)
afterAll(async () => {
  for (const client of clients) await client.close()
  await homeport.close()
  await docsUpstream.close()
  await openTofuDocs.close()
  await upstream.close().catch(() => undefined)
})

const VERSION = '/organizations/acme/registry-providers/private/acme/widget/versions'

async function uploadDocs(version: string, files: Record<string, string>) {
  const read = await homeport.api('GET', `${VERSION}/${version}`)
  return putFile(read.body.data.links['docs-upload'] as string, await moduleArchive(files), homeport.fetch)
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'homeport-tests', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${homeport.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
  clients.push(client)
  return client
}

describe('a private provider’s docs', () => {
  it('are uploaded as an archive of the repository’s docs tree, and refused with the file named when the registry would refuse them', async () => {
    expect((await uploadDocs('1.0.0', providerDocsTree())).status).toBe(200)
    const mixed = await uploadDocs('1.1.0', { ...providerDocsTree(), ...legacyDocsTree() })
    expect(mixed.status).toBe(422)
    expect(JSON.stringify(mixed.body)).toMatch(/both docs\/ and website\/docs\//)
    const untitled = await uploadDocs('1.1.0', { 'docs/index.md': '# Widget', 'docs/guides/setup.md': '---\ndescription: how\n---\n# Setup' })
    expect(untitled.status).toBe(422)
    expect(JSON.stringify(untitled.body)).toContain('docs/guides/setup.md: a guide needs a page_title')
    // The legacy layout, for the next version.
    expect((await uploadDocs('1.1.0', legacyDocsTree())).status).toBe(200)
    // Only a publisher is given the link.
    const asReader = await homeport.api('GET', `${VERSION}/1.0.0`, { token: reader })
    expect(asReader.body.data.links['docs-upload']).toBeUndefined()
  })

  it('are listed by the v1 provider-version answer registry.terraform.io gives, newest with docs first', async () => {
    const v1 = await homeport.api('GET', '/api/registry/v1/providers/acme/widget/1.0.0', { token: reader })
    expect(v1.status).toBe(200)
    expect(v1.body).toMatchObject({ namespace: 'acme', name: 'widget', version: '1.0.0', tag: 'v1.0.0', versions: ['1.1.0', '1.0.0'] })
    expect(v1.body.docs.filter((entry: { language: string }) => entry.language === 'hcl')).toHaveLength(HCL_DOCS)
    expect(v1.body.docs.find((entry: { path: string }) => entry.path === 'docs/resources/server.md')).toEqual({
      id: expect.stringMatching(/^[1-9][0-9]*$/),
      title: 'server',
      path: 'docs/resources/server.md',
      slug: 'server',
      category: 'resources',
      subcategory: 'Compute',
      language: 'hcl'
    })
    const latest = await homeport.api('GET', '/api/registry/v1/providers/acme/widget', { token: reader })
    expect(latest.body).toMatchObject({ version: '1.1.0' })
    expect(latest.body.docs.map((entry: { path: string }) => entry.path)).toContain('website/docs/r/server.html.md')
    // The protocol's own routes are as they were.
    expect((await homeport.api('GET', '/api/registry/v1/providers/acme/widget/versions', { token: reader })).body.versions).toHaveLength(2)
    // Another organization's team is told nothing.
    expect((await homeport.api('GET', '/api/registry/v1/providers/acme/widget/1.0.0', { token: outsider })).status).toBe(404)
  })

  it('are paged by the v2 docs API as the public registry pages them, a page past the end empty, each doc’s markdown by its number', async () => {
    const provider = await homeport.api('GET', '/api/registry/v2/providers/acme/widget?include=provider-versions', { token: reader })
    expect(provider.status).toBe(200)
    const versionId = provider.body.included.find((entry: { attributes: { version: string } }) => entry.attributes.version === '1.0.0').id as string
    expect(versionId).toMatch(/^[1-9][0-9]*$/)
    const list = (query: string, token = reader) => homeport.api('GET', `/api/registry/v2/provider-docs?filter%5Bprovider-version%5D=${versionId}&filter%5Bcategory%5D=resources&filter%5Blanguage%5D=hcl&${query}`, { token })
    const first = await list('page%5Bnumber%5D=1')
    expect(first.body.data).toHaveLength(15)
    expect(first.body.meta.pagination).toMatchObject({ 'page-size': 15, 'current-page': 1, 'next-page': 2, 'total-count': DOCS_TREE_COUNTS.resources })
    expect(first.body.data[0].attributes).not.toHaveProperty('content')
    expect((await list('page%5Bnumber%5D=2')).body.data).toHaveLength(DOCS_TREE_COUNTS.resources - 15)
    const past = await list('page%5Bnumber%5D=3')
    expect(past.status).toBe(200)
    expect(past.body.data).toEqual([])
    const slugs = await list('filter%5Bslug%5D=server,bucket&page%5Bsize%5D=100')
    expect(slugs.body.data.map((entry: { attributes: { slug: string } }) => entry.attributes.slug).sort()).toEqual(['bucket', 'server'])
    const one = await homeport.api('GET', `/api/registry/v2/provider-docs/${slugs.body.data[0].id}`, { token: reader })
    expect(one.body.data.attributes.content).toMatch(/^---\n# generated by https:\/\/github.com\/hashicorp\/terraform-plugin-docs\npage_title: "widget_/)
    // Another team sees an empty list and no doc; an id of nothing is not found; the mirror's face does not serve private docs.
    expect((await list('page%5Bnumber%5D=1', outsider)).body.data).toEqual([])
    expect((await homeport.api('GET', `/api/registry/v2/provider-docs/${one.body.data.id}`, { token: outsider })).status).toBe(404)
    expect((await homeport.api('GET', '/api/registry/v2/provider-docs/123', { token: reader })).status).toBe(404)
    expect((await homeport.api('GET', `/api/registry/public/v2/provider-docs/${one.body.data.id}`, { token: reader })).status).toBe(404)
    expect((await homeport.api('GET', '/api/registry/v2/provider-docs', { token: reader })).status).toBe(400)
  })

  it('are searched and read by assistants over MCP, by a resource’s full name', async () => {
    const client = await connect(reader)
    const search = await client.callTool({ name: 'search_provider_docs', arguments: { provider: 'acme/widget', version: '1.0.0', query: 'widget_load_balancer' } })
    const found = (search.structuredContent as { docs: Array<{ name: string; category: string }> }).docs
    expect(found[0]).toMatchObject({ name: 'widget_load_balancer', category: 'resources' })
    const read = await client.callTool({ name: 'get_provider_doc', arguments: { provider: 'acme/widget', version: '1.0.0', slug: 'widget_bucket', category: 'data-sources' } })
    expect(read.structuredContent).toMatchObject({ category: 'data-sources', slug: 'bucket', subcategory: 'Storage' })
    expect((read.structuredContent as { markdown: string }).markdown).toMatch(/^# widget_bucket \(Data Source\)/)
    const outsiders = await connect(outsider)
    const refused = await outsiders.callTool({ name: 'search_provider_docs', arguments: { provider: 'acme/widget', query: 'server' } })
    expect(refused.isError).toBe(true)
  })

  it('go with their version', async () => {
    const v1 = await homeport.api('GET', '/api/registry/v1/providers/acme/widget/1.1.0', { token: reader })
    const id = v1.body.docs[0].id as string
    expect((await homeport.api('DELETE', `${VERSION}/1.1.0`)).status).toBe(204)
    expect((await homeport.api('GET', `/api/registry/v2/provider-docs/${id}`, { token: reader })).status).toBe(404)
    expect(await homeport.server.services.store.providerDocs.all()).toHaveLength(1)
  })
})

describe('a mirrored provider’s docs', () => {
  it('are fetched from the upstream’s docs API when it is mirrored (every page of every category of registry.terraform.io’s v2 API; OpenTofu’s static files), and served with the upstream gone', async () => {
    const mirrored = await homeport.api('POST', '/admin/provider-mirror', { body: doc('provider-mirrors', { source: 'hashicorp/null', versions: '3.2.3', platforms: ['linux_amd64'] }) })
    expect(mirrored.status).toBe(201)
    expect(mirrored.body.data.attributes.docs).toEqual([{ version: '3.2.3', count: HCL_DOCS }])
    // Resources took three pages of ten, the third empty, which ended the list.
    const resourcePages = docsUpstream.asked.filter((asked) => asked.startsWith('/v2/provider-docs?') && asked.includes('filter%5Bcategory%5D=resources'))
    expect(resourcePages.map((asked) => new URLSearchParams(asked.split('?')[1]).get('page[number]'))).toEqual(['1', '2', '3'])

    // OpenTofu's registry's copy, from its own docs API: every kind it has (not the newer ephemeral resources, actions and list resources).
    const fromOpenTofu = await homeport.api('POST', '/admin/provider-mirror', { body: doc('provider-mirrors', { source: 'registry.opentofu.org/hashicorp/null', versions: '3.2.3', platforms: ['linux_amd64'] }) })
    const openTofuCount = HCL_DOCS - DOCS_TREE_COUNTS['ephemeral-resources'] - DOCS_TREE_COUNTS.actions - DOCS_TREE_COUNTS['list-resources']
    expect(fromOpenTofu.body.data.attributes.docs).toEqual([{ version: '3.2.3', count: openTofuCount }])
    expect(openTofuDocs.asked).toContain('/registry/docs/providers/hashicorp/null/v3.2.3/index.json')

    await docsUpstream.close()
    await openTofuDocs.close()
    await upstream.stop()
    const tofuV1 = await homeport.api('GET', '/api/registry/opentofu/v1/providers/hashicorp/null/3.2.3', { token: reader })
    expect(tofuV1.body.docs).toHaveLength(openTofuCount)
    const dataSource = tofuV1.body.docs.find((entry: { category: string; slug: string }) => entry.category === 'data-sources' && entry.slug === 'subnets')
    expect(dataSource).toMatchObject({ path: 'datasources/subnets.md', subcategory: 'Networking' })
    expect((await homeport.api('GET', `/api/registry/opentofu/v2/provider-docs/${dataSource.id}`, { token: reader })).body.data.attributes.content).toContain('# null_subnets (Data Source)')
    // Each registry's copy is its own: Terraform's face does not serve OpenTofu's.
    expect((await homeport.api('GET', `/api/registry/public/v2/provider-docs/${dataSource.id}`, { token: reader })).status).toBe(404)
    const v1 = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/3.2.3', { token: reader })
    expect(v1.status).toBe(200)
    expect(v1.body.docs).toHaveLength(HCL_DOCS)
    const provider = await homeport.api('GET', '/api/registry/public/v2/providers/hashicorp/null?include=provider-versions', { token: reader })
    const versionId = provider.body.included[0].id as string
    const guides = await homeport.api('GET', `/api/registry/public/v2/provider-docs?filter%5Bprovider-version%5D=${versionId}&filter%5Bcategory%5D=guides`, { token: reader })
    expect(guides.body.data.map((entry: { attributes: { title: string } }) => entry.attributes.title).sort()).toEqual(['A page that tries too much', 'Getting started with the Widget provider', 'Upgrading to version 4 of the Widget provider'])
    const content = await homeport.api('GET', `/api/registry/public/v2/provider-docs/${guides.body.data[0].id}`, { token: reader })
    expect(content.body.data.attributes.content).toContain('# ')
    // The private face does not serve the mirror's docs.
    expect((await homeport.api('GET', `/api/registry/v2/provider-docs/${guides.body.data[0].id}`, { token: reader })).status).toBe(404)
    const client = await connect(reader)
    const search = await client.callTool({ name: 'search_provider_docs', arguments: { provider: 'hashicorp/null', query: 'null_subnets' } })
    expect((search.structuredContent as { docs: Array<{ name: string }> }).docs[0]).toMatchObject({ name: 'null_subnets' })
    await upstream.restart()
  })
})

describe('docs in an air-gap bundle', () => {
  it('go with the provider versions a bundle carries, and an empty Homeport that imports it serves them', async () => {
    const started = await homeport.api('POST', '/bundles', {
      body: doc('bundles', { organization: 'acme', platforms: ['linux_amd64'], providers: [{ source: 'homeport.localhost/acme/widget', version: '1.0.0' }, { source: 'hashicorp/null', version: '3.2.3' }] })
    })
    expect(started.status).toBe(202)
    const job = await eventually(async () => {
      const read = await homeport.api('GET', `/bundles/${started.body.data.id}`)
      if (!['ready', 'failed'].includes(read.body.data.attributes.status)) throw new Error(`the bundle did not finish (${read.body.data.attributes.status})`)
      return read
    })
    expect(job.body.data.attributes.problems).toEqual([])
    const providers = job.body.data.attributes.manifest.providers as Array<{ type: string; docs?: { path: string } }>
    expect(providers.map((provider) => provider.docs?.path).sort()).toEqual(['providers/homeport.localhost/acme/widget/1.0.0/docs.json', 'providers/registry.terraform.io/hashicorp/null/3.2.3/docs.json'])
    const download = await homeport.fetch(`${homeport.url}${job.body.data.links.download}`, { headers: { Authorization: `Bearer ${homeport.adminToken}` } })
    const bundle = new Uint8Array(await download.arrayBuffer())

    const empty = await startTestServer()
    try {
      const imported = await empty.fetch(`${empty.url}/api/v2/admin/bundle-imports`, { method: 'POST', headers: { Authorization: `Bearer ${empty.adminToken}`, 'Content-Type': 'application/x-tar' }, body: bundle })
      expect(imported.status, await imported.clone().text()).toBe(201)
      const privateDocs = await empty.api('GET', '/api/registry/v1/providers/acme/widget/1.0.0')
      expect(privateDocs.body.docs.filter((entry: { language: string }) => entry.language === 'hcl')).toHaveLength(HCL_DOCS)
      const server = privateDocs.body.docs.find((entry: { path: string }) => entry.path === 'docs/resources/server.md')
      expect((await empty.api('GET', `/api/registry/v2/provider-docs/${server.id}`)).body.data.attributes.content).toContain('# widget_server (Resource)')
      const mirrored = await empty.api('GET', '/api/registry/public/v1/providers/hashicorp/null/3.2.3')
      expect(mirrored.body.docs).toHaveLength(HCL_DOCS)
      // The same numbers as where the bundle was made: a link to a doc works on either.
      expect(server.id).toBe((await homeport.api('GET', '/api/registry/v1/providers/acme/widget/1.0.0', { token: reader })).body.docs.find((entry: { path: string }) => entry.path === 'docs/resources/server.md').id)
    } finally {
      await empty.close()
    }
  })
})
