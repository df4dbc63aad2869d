import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createModule,
  createOrganization,
  createTeamWithToken,
  createVersion,
  doc,
  ownersToken,
  publish,
  startTestServer,
  upload,
  type TestServer
} from '../helpers/server.js'
import { moduleArchive } from '../helpers/archives.js'
import { MAX_WAITING_VERSIONS } from '../../src-main/server/domain/modules/modules.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

let test: TestServer
beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  await createOrganization(test, 'other')
})
afterAll(async () => {
  await test.close()
})

const base = '/organizations/acme/registry-modules'

describe('create a module without VCS', () => {
  it('creates a private module with its organization as namespace', async () => {
    const response = await test.api('POST', base, { body: doc('registry-modules', { name: 'vpc', provider: 'aws' }) })
    expect(response.status).toBe(201)
    const { data } = response.body
    expect(data.id).toMatch(/^mod-/)
    expect(data.type).toBe('registry-modules')
    expect(data.attributes).toMatchObject({
      name: 'vpc',
      namespace: 'acme',
      provider: 'aws',
      'registry-name': 'private',
      status: 'pending',
      'version-statuses': [],
      'no-code': false,
      permissions: { 'can-delete': true, 'can-resync': true, 'can-retry': true }
    })
    expect(data.attributes['created-at']).toMatch(ISO_MS)
    expect(data.attributes['updated-at']).toMatch(ISO_MS)
    expect(data.attributes).not.toHaveProperty('vcs-repo')
    expect(data.attributes).not.toHaveProperty('test-config')
    expect(data.relationships.organization.data).toEqual({ id: 'acme', type: 'organizations' })
    expect(data.links.self).toBe('/api/v2/organizations/acme/registry-modules/private/acme/vpc/aws')
  })

  it('accepts underscores, dashes, explicit private and no-code', async () => {
    const response = await test.api('POST', base, {
      body: doc('registry-modules', { name: 'another_name-2', provider: 'google', 'registry-name': 'private', 'no-code': true })
    })
    expect(response.status).toBe(201)
    expect(response.body.data.attributes['no-code']).toBe(true)
  })

  it('creates a public curation record under the namespace given', async () => {
    const response = await test.api('POST', base, {
      body: doc('registry-modules', { name: 'vpc', provider: 'aws', 'registry-name': 'public', namespace: 'terraform-aws-modules' })
    })
    expect(response.status).toBe(201)
    expect(response.body.data.attributes).toMatchObject({ 'registry-name': 'public', namespace: 'terraform-aws-modules' })
    expect(response.body.data.links.self).toBe('/api/v2/organizations/acme/registry-modules/public/terraform-aws-modules/vpc/aws')
  })

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['a missing name', { provider: 'aws' }, 'name'],
    ['a missing provider', { name: 'x' }, 'provider'],
    ['a name with a space', { name: 'a b', provider: 'aws' }, 'name'],
    ['a name ending in a dash', { name: 'net-', provider: 'aws' }, 'name'],
    ['a name starting with an underscore', { name: '_net', provider: 'aws' }, 'name'],
    ['a name of 65 characters', { name: 'n'.repeat(65), provider: 'aws' }, 'name'],
    ['an uppercase provider', { name: 'x', provider: 'AWS' }, 'provider'],
    ['a provider with a dash', { name: 'x', provider: 'my-cloud' }, 'provider'],
    ['a provider of 65 characters', { name: 'x', provider: 'p'.repeat(65) }, 'provider'],
    ['a namespace on a private module', { name: 'x', provider: 'aws', namespace: 'elsewhere' }, 'namespace'],
    ['a public module without namespace', { name: 'x', provider: 'aws', 'registry-name': 'public' }, 'namespace'],
    ['a bad public namespace', { name: 'x', provider: 'aws', 'registry-name': 'public', namespace: 'a/b' }, 'namespace'],
    ['an unknown registry', { name: 'x', provider: 'aws', 'registry-name': 'secret' }, 'registry-name'],
    ['a number as name', { name: 7, provider: 'aws' }, 'name'],
    ['a string as no-code', { name: 'x', provider: 'aws', 'no-code': 'yes' }, 'no-code']
  ]
  it.each(invalid)('answers 422 for %s', async (_label, attributes, attribute) => {
    const response = await test.api('POST', base, { body: doc('registry-modules', attributes) })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].source).toEqual({ pointer: `/data/attributes/${attribute}` })
  })

  it('refuses a module that exists already, and a wrong type', async () => {
    await createModule(test, 'acme', 'dup', 'aws')
    const again = await test.api('POST', base, { body: doc('registry-modules', { name: 'dup', provider: 'aws' }) })
    expect(again.status).toBe(422)
    expect(again.body.errors[0].detail).toMatch(/already exists/)
    expect(again.body.errors[0].code).toBe('module-exists')
    const wrongType = await test.api('POST', base, { body: doc('registry-module-versions', { name: 'x', provider: 'aws' }) })
    expect(wrongType.status).toBe(422)
    expect(wrongType.body.errors[0].source.pointer).toBe('/data/type')
  })
})

describe('list modules', () => {
  beforeAll(async () => {
    for (const [name, provider] of [
      ['list-alpha', 'aws'],
      ['list-beta', 'aws'],
      ['list-gamma', 'azurerm']
    ]) {
      await createModule(test, 'other', name!, provider!)
    }
    await createModule(test, 'other', 'curated', 'aws', { 'registry-name': 'public', namespace: 'hashicorp' })
  })
  const names = (body: { data: Array<{ attributes: { name: string } }> }) => body.data.map((module) => module.attributes.name)

  it('lists the organization’s modules with links and pagination', async () => {
    const response = await test.api('GET', '/organizations/other/registry-modules')
    expect(response.status).toBe(200)
    expect(names(response.body)).toEqual(['curated', 'list-alpha', 'list-beta', 'list-gamma'])
    expect(response.body.meta.pagination).toEqual({
      'current-page': 1,
      'page-size': 20,
      'prev-page': null,
      'next-page': null,
      'total-pages': 1,
      'total-count': 4
    })
    expect(response.body.links.prev).toBeNull()
    expect(response.body.links.next).toBeNull()
    expect(response.body.data[0].attributes).not.toHaveProperty('vcs-repo')
    // The list shows each module exactly as it is shown alone, with its description and downloads (Homeport's own; none before a version is published).
    const single = await test.api('GET', '/organizations/other/registry-modules/private/other/list-alpha/aws')
    expect(response.body.data[1]).toEqual({ ...single.body.data, attributes: { ...single.body.data.attributes, description: '', downloads: 0 } })
  })

  it('describes each module by its latest README, and counts the providers matching all but the provider filter (Homeport’s own)', async () => {
    await publish(test, 'other', 'described', 'google', '1.0.0', { 'README.md': '# Described\n\nCreates the network of a project.\n', 'main.tf': '' })
    await publish(test, 'other', 'described', 'google', '1.1.0', { 'README.md': '# Described\n\nCreates the network of a project, and its routes.\n', 'main.tf': '' })
    const all = await test.api('GET', '/organizations/other/registry-modules?q=described')
    expect(all.body.data.map((entry: { attributes: { description: string } }) => entry.attributes.description)).toEqual(['Creates the network of a project, and its routes.'])
    const everything = await test.api('GET', '/organizations/other/registry-modules')
    expect(everything.body.meta['provider-counts']).toEqual({ aws: 3, azurerm: 1, google: 1 })
    // The counts ignore the provider filter (so the other providers stay offered) and follow the others.
    const aws = await test.api('GET', '/organizations/other/registry-modules?filter[provider]=aws&filter[registry_name]=private')
    expect(names(aws.body)).toEqual(['list-alpha', 'list-beta'])
    expect(aws.body.meta['provider-counts']).toEqual({ aws: 2, azurerm: 1, google: 1 })
    await test.api('DELETE', '/organizations/other/registry-modules/private/other/described/google')
  })

  it('filters by q, registry, provider and organization, with brackets encoded or not', async () => {
    expect(names((await test.api('GET', '/organizations/other/registry-modules?q=beta')).body)).toEqual(['list-beta'])
    expect(names((await test.api('GET', '/organizations/other/registry-modules?q=AZURE')).body)).toEqual(['list-gamma'])
    expect(names((await test.api('GET', '/organizations/other/registry-modules?q=hashicorp')).body)).toEqual(['curated'])
    expect(names((await test.api('GET', '/organizations/other/registry-modules?filter%5Bregistry_name%5D=public')).body)).toEqual(['curated'])
    expect(names((await test.api('GET', '/organizations/other/registry-modules?filter[provider]=azurerm')).body)).toEqual(['list-gamma'])
    expect(names((await test.api('GET', '/organizations/other/registry-modules?filter[organization_name]=other')).body)).toEqual([
      'list-alpha',
      'list-beta',
      'list-gamma'
    ])
  })

  it('paginates with page[number] and page[size]', async () => {
    const second = await test.api('GET', '/organizations/other/registry-modules?page%5Bnumber%5D=2&page%5Bsize%5D=3')
    expect(names(second.body)).toEqual(['list-gamma'])
    expect(second.body.meta.pagination).toMatchObject({ 'current-page': 2, 'prev-page': 1, 'next-page': null, 'total-pages': 2 })
    expect(second.body.links.prev).toContain('page%5Bnumber%5D=1')
    const beyond = await test.api('GET', '/organizations/other/registry-modules?page[number]=999&page[size]=100')
    expect(beyond.body.data).toEqual([])
    expect(beyond.body.meta.pagination['current-page']).toBe(999)
  })

  it('answers 404 for an organization the caller cannot see', async () => {
    const outsider = await createTeamWithToken(test, 'acme', 'list-outsiders')
    expect((await test.api('GET', '/organizations/other/registry-modules', { token: outsider.token })).status).toBe(404)
    expect((await test.api('GET', '/organizations/nowhere/registry-modules')).status).toBe(404)
  })
})

describe('versions', () => {
  beforeAll(async () => {
    await createModule(test, 'acme', 'versioned', 'aws')
  })
  const versions = '/organizations/acme/registry-modules/private/acme/versioned/aws/versions'

  it('creates a pending version with an upload link, listed in version-statuses at once', async () => {
    const response = await test.api('POST', versions, { body: doc('registry-module-versions', { version: '1.2.3', 'commit-sha': null }) })
    expect(response.status).toBe(201)
    const { data } = response.body
    expect(data.type).toBe('registry-module-versions')
    expect(data.id).toMatch(/^modver-/)
    expect(data.attributes).toMatchObject({ version: '1.2.3', status: 'pending', source: 'tfe-api' })
    expect(data.attributes['created-at']).toMatch(ISO_MS)
    expect(data.relationships['registry-module'].data.type).toBe('registry-modules')
    expect(data.links.upload).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/archivist\/v1\/object\/modver-[A-Za-z0-9]{16}\.\d+\.[A-Za-z0-9_-]{43}$/)
    const module = await test.api('GET', '/organizations/acme/registry-modules/private/acme/versioned/aws')
    expect(module.body.data.attributes['version-statuses']).toEqual([{ version: '1.2.3', status: 'pending' }])
    expect(module.body.data.id).toBe(data.relationships['registry-module'].data.id)
  })

  it('says when each published version was published, and from which commit (Homeport’s published-versions)', async () => {
    await publish(test, 'acme', 'dated', 'aws', '1.0.0', { 'main.tf': 'variable "x" {}\n' })
    await createVersion(test, 'acme', 'dated', 'aws', '1.1.0')
    const module = await test.api('GET', `${base}/private/acme/dated/aws`)
    expect(module.body.data.attributes['published-versions']).toEqual([{ version: '1.0.0', 'published-at': expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/), tag: null, 'commit-sha': null }])
    // Newest first, as HCP lists them.
    expect(module.body.data.attributes['version-statuses']).toEqual([
      { version: '1.1.0', status: 'pending' },
      { version: '1.0.0', status: 'ok' }
    ])
  })

  it('normalizes a leading v, keeps prerelease and build metadata, stores the commit', async () => {
    const prefixed = await test.api('POST', versions, { body: doc('registry-module-versions', { version: 'v2.0.0' }) })
    expect(prefixed.body.data.attributes.version).toBe('2.0.0')
    const prerelease = await test.api('POST', versions, {
      body: doc('registry-module-versions', { version: '1.2.3-alpha+feature', 'commit-sha': 'abc1234def' })
    })
    expect(prerelease.status).toBe(201)
    expect(prerelease.body.data.attributes.version).toBe('1.2.3-alpha+feature')
    expect(prerelease.body.data.attributes['commit-sha']).toBe('abc1234def')
  })

  it('refuses duplicates, invalid versions and commits', async () => {
    for (const version of ['1.2.3', 'v1.2.3']) {
      const response = await test.api('POST', versions, { body: doc('registry-module-versions', { version }) })
      expect(response.status).toBe(422)
      expect(response.body.errors[0].detail).toMatch(/already exists/)
      expect(response.body.errors[0].code).toBe('version-exists')
    }
    for (const version of ['1.2', 'latest', '01.2.3', '']) {
      const response = await test.api('POST', versions, { body: doc('registry-module-versions', { version }) })
      expect(response.status).toBe(422)
      expect(response.body.errors[0].source.pointer).toBe('/data/attributes/version')
    }
    const missing = await test.api('POST', versions, { body: doc('registry-module-versions', {}) })
    expect(missing.status).toBe(422)
    const badSha = await test.api('POST', versions, { body: doc('registry-module-versions', { version: '9.9.9', 'commit-sha': 'not hex!' }) })
    expect(badSha.status).toBe(422)
    expect(badSha.body.errors[0].source.pointer).toBe('/data/attributes/commit-sha')
    // git abbreviates commits to as few as 4 hexadecimal digits.
    const short = await test.api('POST', versions, { body: doc('registry-module-versions', { version: '9.9.9', 'commit-sha': 'abc123' }) })
    expect(short.status).toBe(201)
    expect(short.body.data.attributes['commit-sha']).toBe('abc123')
    const tooShort = await test.api('POST', versions, { body: doc('registry-module-versions', { version: '9.9.10', 'commit-sha': 'abc' }) })
    expect(tooShort.body.errors[0].detail).toBe('"abc" is not a commit SHA (4 to 64 hexadecimal digits, as git abbreviates them).')
  })

  it('answers 403 for a public module and 404 for an unknown one', async () => {
    const publicVersions = '/organizations/acme/registry-modules/public/terraform-aws-modules/vpc/aws/versions'
    const response = await test.api('POST', publicVersions, { body: doc('registry-module-versions', { version: '1.0.0' }) })
    expect(response.status).toBe(403)
    const unknown = await test.api('POST', '/organizations/acme/registry-modules/private/acme/nothing/aws/versions', {
      body: doc('registry-module-versions', { version: '1.0.0' })
    })
    expect(unknown.status).toBe(404)
    const wrongNamespace = await test.api('POST', '/organizations/acme/registry-modules/private/other/versioned/aws/versions', {
      body: doc('registry-module-versions', { version: '1.0.0' })
    })
    expect(wrongNamespace.status).toBe(404)
  })

  it('reads a version with a link to upload it (go-tfe ReadVersion), and 404 for an unknown one', async () => {
    const response = await test.api('GET', '/organizations/acme/registry-modules/private/acme/versioned/aws/version?module_version=1.2.3')
    expect(response.status).toBe(200)
    expect(response.body.data.attributes.version).toBe('1.2.3')
    expect(response.body.data.links.upload).toContain('/object/')
    const again = await test.api('GET', '/organizations/acme/registry-modules/private/acme/versioned/aws/version?module_version=1.2.3')
    expect(again.body.data.links.upload).toBe(response.body.data.links.upload)
    expect((await test.api('GET', '/organizations/acme/registry-modules/private/acme/versioned/aws/version?module_version=7.7.7')).status).toBe(404)
    expect((await test.api('GET', '/organizations/acme/registry-modules/private/acme/versioned/aws/version')).status).toBe(400)
  })

  it('has a deprecated form that behaves the same', async () => {
    const response = await test.api('POST', '/registry-modules/acme/versioned/aws/versions', {
      body: doc('registry-module-versions', { version: '3.0.0' })
    })
    expect(response.status).toBe(201)
    expect(response.body.data.links.upload).toContain('/archivist/v1/object/')
    const duplicate = await test.api('POST', '/registry-modules/acme/versioned/aws/versions', {
      body: doc('registry-module-versions', { version: '3.0.0' })
    })
    expect(duplicate.status).toBe(422)
  })

  it('keeps at most 100 versions waiting for their archive in one module, and says so', async () => {
    await createModule(test, 'acme', 'piled', 'aws')
    const created = await Promise.all(Array.from({ length: MAX_WAITING_VERSIONS }, (_, i) => createVersion(test, 'acme', 'piled', 'aws', `0.0.${i}`)))
    const path = '/organizations/acme/registry-modules/private/acme/piled/aws'
    const refused = await test.api('POST', `${path}/versions`, { body: doc('registry-module-versions', { version: '1.0.0' }) })
    expect(refused.status).toBe(422)
    expect(refused.body.errors[0]).toMatchObject({
      detail: 'acme/piled/aws has 100 versions still waiting for their archive, the most Homeport keeps; upload their archives or delete some before creating more.',
      source: { pointer: '/data/attributes/version' }
    })
    expect((await test.api('GET', path)).body.data.attributes['version-statuses']).toHaveLength(MAX_WAITING_VERSIONS)
    // Once one has its archive, there is room again.
    expect((await upload(created[0].links.upload as string, await moduleArchive({ 'main.tf': '' }))).status).toBe(200)
    expect((await test.api('POST', `${path}/versions`, { body: doc('registry-module-versions', { version: '1.0.0' }) })).status).toBe(201)
  })
})

describe('get a module', () => {
  it('reads by address, by the deprecated address and by id', async () => {
    const created = await createModule(test, 'acme', 'readable', 'aws')
    const byAddress = await test.api('GET', '/organizations/acme/registry-modules/private/acme/readable/aws')
    expect(byAddress.status).toBe(200)
    expect(byAddress.body.data).toEqual(created)
    const deprecated = await test.api('GET', '/registry-modules/show/acme/readable/aws')
    expect(deprecated.body.data).toEqual(created)
    const byId = await test.api('GET', `/registry-modules/${created.id as string}`)
    expect(byId.body.data).toEqual(created)
    const publicModule = await test.api('GET', '/organizations/acme/registry-modules/public/terraform-aws-modules/vpc/aws')
    expect(publicModule.status).toBe(200)
  })

  it('answers 404 for unknown modules, registries and namespaces', async () => {
    for (const path of [
      '/organizations/acme/registry-modules/private/acme/nothing/aws',
      '/organizations/acme/registry-modules/private/acme/readable/gcp',
      '/organizations/acme/registry-modules/private/other/readable/aws',
      '/organizations/acme/registry-modules/internal/acme/readable/aws',
      '/organizations/acme/registry-modules/public/acme/readable/aws',
      '/registry-modules/mod-doesnotexist'
    ]) {
      expect((await test.api('GET', path)).status, path).toBe(404)
    }
  })
})

describe('update a module', () => {
  it('enables tests and sets no-code, keeping the rest', async () => {
    await createModule(test, 'acme', 'tested', 'aws')
    const path = '/organizations/acme/registry-modules/private/acme/tested/aws/'
    const response = await test.api('PATCH', path, { body: doc('registry-modules', { 'test-config': { 'tests-enabled': true } }) })
    expect(response.status).toBe(200)
    const testConfig = response.body.data.attributes['test-config']
    expect(testConfig).toMatchObject({ 'tests-enabled': true })
    expect(testConfig.id).toMatch(/^tc-/)
    const noCode = await test.api('PATCH', path, { body: doc('registry-modules', { 'no-code': true }) })
    expect(noCode.body.data.attributes['no-code']).toBe(true)
    expect(noCode.body.data.attributes['test-config']).toEqual(testConfig)
    // go-tfe sends an empty tag-bindings relationship with every update.
    const withRelationships = await test.api('PATCH', path, {
      body: doc('registry-modules', { 'no-code': false }, { relationships: { 'tag-bindings': { data: [] } } })
    })
    expect(withRelationships.status).toBe(200)
  })

  it('refuses VCS settings on a module without VCS, and branch with tags', async () => {
    await createModule(test, 'acme', 'no-vcs', 'aws')
    const path = '/organizations/acme/registry-modules/private/acme/no-vcs/aws'
    const branch = await test.api('PATCH', path, { body: doc('registry-modules', { 'vcs-repo': { branch: 'main' } }) })
    expect(branch.status).toBe(422)
    expect(branch.body.errors[0].detail).toMatch(/not published from a VCS/)
    const both = await test.api('PATCH', path, { body: doc('registry-modules', { 'vcs-repo': { branch: 'main', tags: true } }) })
    expect(both.status).toBe(422)
    expect(both.body.errors[0].detail).toMatch(/cannot be given together/)
    const wrongType = await test.api('PATCH', path, { body: doc('registry-modules', { 'test-config': { 'tests-enabled': 'on' } }) })
    expect(wrongType.body.errors[0].source.pointer).toBe('/data/attributes/test-config/tests-enabled')
  })
})

describe('delete', () => {
  it('never leaves a module with no version when its last two versions are deleted at once', async () => {
    for (let round = 0; round < 5; round++) {
      const name = `racing-${round}`
      await createModule(test, 'acme', name, 'aws')
      await createVersion(test, 'acme', name, 'aws', '1.0.0')
      await createVersion(test, 'acme', name, 'aws', '1.1.0')
      const path = `/organizations/acme/registry-modules/private/acme/${name}/aws`
      const statuses = await Promise.all(['1.0.0', '1.1.0'].map((version) => test.api('DELETE', `${path}/${version}`).then((r) => r.status)))
      expect(statuses).toEqual([204, 204])
      expect((await test.api('GET', path)).status).toBe(404)
      const left = (await test.server.services.store.modules.all()).filter((module) => module.name === name)
      expect(left).toEqual([])
    }
  })

  it('answers a race it lost with 404, never 500: deleting the same version twice at once', async () => {
    await createModule(test, 'acme', 'twice', 'aws')
    for (const version of ['1.0.0', '1.1.0', '1.2.0']) await createVersion(test, 'acme', 'twice', 'aws', version)
    const path = '/organizations/acme/registry-modules/private/acme/twice/aws/1.1.0'
    const statuses = (await Promise.all([1, 2, 3].map(() => test.api('DELETE', path).then((r) => r.status)))).sort()
    expect(statuses).toEqual([204, 404, 404])
  })

  const module = '/organizations/acme/registry-modules/private/acme/doomed'

  it('deletes a version; the last version takes the provider, the last provider the module', async () => {
    await createModule(test, 'acme', 'doomed', 'aws')
    await createModule(test, 'acme', 'doomed', 'azurerm')
    await createVersion(test, 'acme', 'doomed', 'aws', '1.0.0')
    await createVersion(test, 'acme', 'doomed', 'aws', '1.1.0')

    expect((await test.api('DELETE', `${module}/aws/1.0.0`)).status).toBe(204)
    const after = await test.api('GET', `${module}/aws`)
    expect(after.body.data.attributes['version-statuses'].map((v: { version: string }) => v.version)).toEqual(['1.1.0'])
    expect((await test.api('DELETE', `${module}/aws/1.0.0`)).status).toBe(404)

    expect((await test.api('DELETE', `${module}/aws/v1.1.0`)).status).toBe(204)
    expect((await test.api('GET', `${module}/aws`)).status).toBe(404)
    expect((await test.api('GET', `${module}/azurerm`)).status).toBe(200)

    expect((await test.api('DELETE', `${module}/azurerm`)).status).toBe(204)
    expect((await test.api('DELETE', `${module}/azurerm`)).status).toBe(404)
    expect((await test.api('DELETE', module)).status).toBe(404)
  })

  it('deletes every provider of a module with the short form', async () => {
    await createModule(test, 'acme', 'whole', 'aws')
    await createModule(test, 'acme', 'whole', 'google')
    expect((await test.api('DELETE', '/organizations/acme/registry-modules/private/acme/whole')).status).toBe(204)
    expect((await test.api('GET', '/organizations/acme/registry-modules/private/acme/whole/aws')).status).toBe(404)
    expect((await test.api('GET', '/organizations/acme/registry-modules/private/acme/whole/google')).status).toBe(404)
  })

  it('deletes a public module only whole, and only the organization’s record', async () => {
    await createModule(test, 'other', 'eks', 'aws', { 'registry-name': 'public', namespace: 'terraform-aws-modules' })
    await createModule(test, 'acme', 'eks', 'aws', { 'registry-name': 'public', namespace: 'terraform-aws-modules' })
    const path = '/organizations/acme/registry-modules/public/terraform-aws-modules/eks'
    expect((await test.api('DELETE', `${path}/aws`)).status).toBe(404)
    expect((await test.api('DELETE', `${path}/aws/1.0.0`)).status).toBe(404)
    expect((await test.api('DELETE', path)).status).toBe(204)
    expect((await test.api('GET', `${path}/aws`)).status).toBe(404)
    expect((await test.api('GET', '/organizations/other/registry-modules/public/terraform-aws-modules/eks/aws')).status).toBe(200)
  })

  it('has deprecated forms that behave the same', async () => {
    await createModule(test, 'acme', 'old-style', 'aws')
    await createModule(test, 'acme', 'old-style', 'gcp')
    await createVersion(test, 'acme', 'old-style', 'aws', '1.0.0')
    await createVersion(test, 'acme', 'old-style', 'aws', '2.0.0')
    expect((await test.api('POST', '/registry-modules/actions/delete/acme/old-style/aws/1.0.0')).status).toBe(204)
    expect((await test.api('POST', '/registry-modules/actions/delete/acme/old-style/aws')).status).toBe(204)
    expect((await test.api('GET', '/organizations/acme/registry-modules/private/acme/old-style/aws')).status).toBe(404)
    expect((await test.api('POST', '/registry-modules/actions/delete/acme/old-style')).status).toBe(204)
    expect((await test.api('GET', '/organizations/acme/registry-modules/private/acme/old-style/gcp')).status).toBe(404)
    expect((await test.api('POST', '/registry-modules/actions/delete/acme/old-style')).status).toBe(404)

    // The shortest form reaches the organization's public records of that name too (go-tfe cleans them up with it).
    const curated = await test.api('POST', '/organizations/acme/registry-modules', {
      body: doc('registry-modules', { name: 'old-style', provider: 'aws', namespace: 'terraform-aws-modules', 'registry-name': 'public' })
    })
    expect(curated.status).toBe(201)
    await createModule(test, 'acme', 'old-style', 'aws')
    expect((await test.api('POST', '/registry-modules/actions/delete/acme/old-style')).status).toBe(204)
    expect((await test.api('GET', '/organizations/acme/registry-modules/public/terraform-aws-modules/old-style/aws')).status).toBe(404)
    expect((await test.api('GET', '/organizations/acme/registry-modules/private/acme/old-style/aws')).status).toBe(404)
  })

  it('takes the organization’s modules with it when the organization is destroyed', async () => {
    await createOrganization(test, 'short-lived')
    await createModule(test, 'short-lived', 'gone', 'aws')
    expect((await test.api('DELETE', '/organizations/short-lived')).status).toBe(204)
    await createOrganization(test, 'short-lived')
    expect((await test.api('GET', '/organizations/short-lived/registry-modules')).body.data).toEqual([])
  })
})

describe('permissions', () => {
  let owners: string
  let publishers: string
  let readers: string
  let outsiders: string
  beforeAll(async () => {
    await createModule(test, 'acme', 'guarded', 'aws')
    owners = (await ownersToken(test, 'acme')).token
    publishers = (await createTeamWithToken(test, 'acme', 'perm-publishers', true)).token
    readers = (await createTeamWithToken(test, 'acme', 'perm-readers', false)).token
    outsiders = (await createTeamWithToken(test, 'other', 'perm-outsiders', true)).token
  })
  const guarded = '/organizations/acme/registry-modules/private/acme/guarded/aws'

  it('lets teams with Manage modules create modules and versions, and no one else', async () => {
    const cases = [
      [owners, 201],
      [publishers, 201],
      [readers, 404],
      [outsiders, 404]
    ] as const
    for (const [index, [token, expected]] of cases.entries()) {
      const module = await test.api('POST', base, { token, body: doc('registry-modules', { name: `by-team-${index}`, provider: 'aws' }) })
      expect(module.status).toBe(expected)
      const version = await test.api('POST', `${guarded}/versions`, {
        token,
        body: doc('registry-module-versions', { version: `1.0.${index}` })
      })
      expect(version.status).toBe(expected)
    }
  })

  it('lets every team of the organization read modules, and hides them from others', async () => {
    for (const token of [owners, publishers, readers]) {
      const response = await test.api('GET', guarded, { token })
      expect(response.status).toBe(200)
    }
    expect((await test.api('GET', guarded, { token: readers })).body.data.attributes.permissions).toEqual({
      'can-delete': false,
      'can-resync': false,
      'can-retry': false
    })
    expect((await test.api('GET', guarded, { token: outsiders })).status).toBe(404)
  })

  it('lets only owners update and delete', async () => {
    for (const token of [publishers, readers, outsiders]) {
      expect((await test.api('PATCH', guarded, { token, body: doc('registry-modules', { 'no-code': true }) })).status).toBe(404)
      expect((await test.api('DELETE', guarded, { token })).status).toBe(404)
      expect((await test.api('DELETE', '/organizations/acme/registry-modules/private/acme/guarded', { token })).status).toBe(404)
    }
    expect((await test.api('PATCH', guarded, { token: owners, body: doc('registry-modules', { 'no-code': true }) })).status).toBe(200)
    expect((await test.api('DELETE', guarded, { token: owners })).status).toBe(204)
  })
})

describe('public module curation switched off', () => {
  let closed: TestServer
  beforeAll(async () => {
    closed = await startTestServer({ publicCuration: false })
    await createOrganization(closed, 'acme')
  })
  afterAll(async () => {
    await closed.close()
  })

  it('answers 403 to create, get and delete of public modules, and serves private ones', async () => {
    const create = await closed.api('POST', base, {
      body: doc('registry-modules', { name: 'vpc', provider: 'aws', 'registry-name': 'public', namespace: 'terraform-aws-modules' })
    })
    expect(create.status).toBe(403)
    expect(create.body.errors[0].detail).toMatch(/curation is disabled/)
    expect((await closed.api('GET', '/organizations/acme/registry-modules/public/terraform-aws-modules/vpc/aws')).status).toBe(403)
    expect((await closed.api('DELETE', '/organizations/acme/registry-modules/public/terraform-aws-modules/vpc')).status).toBe(403)
    expect((await closed.api('POST', base, { body: doc('registry-modules', { name: 'vpc', provider: 'aws' }) })).status).toBe(201)
  })
})

describe('self-hosted edition', () => {
  let selfHosted: TestServer
  beforeAll(async () => {
    selfHosted = await startTestServer({ edition: 'self-hosted' })
    await createOrganization(selfHosted, 'acme')
  })
  afterAll(async () => {
    await selfHosted.close()
  })

  it('keeps private modules only', async () => {
    const create = await selfHosted.api('POST', base, {
      body: doc('registry-modules', { name: 'vpc', provider: 'aws', 'registry-name': 'public', namespace: 'terraform-aws-modules' })
    })
    expect(create.status).toBe(422)
    expect(create.body.errors[0].source.pointer).toBe('/data/attributes/registry-name')
    expect((await selfHosted.api('GET', '/organizations/acme/registry-modules/public/terraform-aws-modules/vpc/aws')).status).toBe(404)
    expect((await selfHosted.api('POST', base, { body: doc('registry-modules', { name: 'vpc', provider: 'aws' }) })).status).toBe(201)
  })
})
