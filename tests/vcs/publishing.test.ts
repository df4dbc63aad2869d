import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Repo } from '../helpers/git-repos.js'
import { createModule, createOrganization, createTeamWithToken, doc, ownersToken, startTestServer, type TestServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'

const POLL_MS = 200
let test: TestServer
let repos: string
let tokenId: string
let network: Repo

const moduleFiles = (description: string) => ({
  'README.md': `# Network\n\n${description}\n`,
  'main.tf': 'variable "cidr" {\n  type = string\n}\n\noutput "cidr" {\n  value = var.cidr\n}\n'
})

beforeAll(async () => {
  repos = await mkdtemp(join(tmpdir(), 'homeport-repos-'))
  test = await startTestServer({ vcsPollIntervalMs: POLL_MS })
  await createOrganization(test, 'acme')
  network = await Repo.create(repos, 'acme', 'terraform-aws-network', moduleFiles('First release.'))
  await network.tag('v1.0.0')
  await network.commit({ 'README.md': '# Network\n\nSecond release.\n' }, 'second')
  await network.tag('1.1.0', true)
  await network.tag('not-a-version')
  const connection = await test.api('POST', '/organizations/acme/oauth-clients', {
    body: doc('oauth-clients', { 'service-provider': 'git', 'http-url': repos, name: 'my repositories' })
  })
  expect(connection.status).toBe(201)
  tokenId = connection.body.data.relationships['oauth-tokens'].data[0].id
})
afterAll(async () => {
  await test.close()
  await rm(repos, { recursive: true, force: true })
})

const modulePath = (name: string, provider = 'aws') => `/organizations/acme/registry-modules/private/acme/${name}/${provider}`

function publishBody(identifier: string, vcsRepo: Record<string, unknown> = {}, attributes: Record<string, unknown> = {}) {
  return doc('registry-modules', { ...attributes, 'vcs-repo': { identifier, 'oauth-token-id': tokenId, 'display-identifier': identifier, ...vcsRepo } })
}

/** Waits until the module's versions are all settled and `expected` are among them. */
async function versionsOf(name: string, expected: string[], provider = 'aws') {
  return eventually(async () => {
    const module = await test.api('GET', modulePath(name, provider))
    const statuses = module.body.data.attributes['version-statuses'] as Array<{ version: string; status: string; error?: string }>
    const settled = statuses.every((entry) => !['pending', 'cloning', 'reg_ingressing'].includes(entry.status))
    if (!settled || !expected.every((version) => statuses.some((entry) => entry.version === version))) throw new Error(`${name} never had ${expected.join(', ')}: ${JSON.stringify(statuses)}`)
    return { module: module.body.data, statuses }
  })
}

describe('VCS connections (oauth-clients)', () => {
  it('connects a folder of repositories, with one token', async () => {
    const list = await test.api('GET', '/organizations/acme/oauth-clients')
    expect(list.body.data).toHaveLength(1)
    const client = list.body.data[0]
    expect(client.type).toBe('oauth-clients')
    expect(client.attributes).toMatchObject({ name: 'my repositories', 'service-provider': 'git', 'http-url': pathToFileURL(repos).toString() })
    const token = await test.api('GET', `/oauth-tokens/${tokenId}`)
    expect(token.body.data.relationships['oauth-client'].data.id).toBe(client.id)
    expect((await test.api('GET', `/oauth-clients/${client.id as string}/oauth-tokens`)).body.data[0].id).toBe(tokenId)
    expect((await test.api('GET', '/organizations/acme/oauth-tokens')).body.data[0].id).toBe(tokenId)
  })

  it('refuses other providers, missing folders and relative paths', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ 'service-provider': 'github', 'http-url': repos }, 'service-provider'],
      [{ 'service-provider': 'git', 'http-url': join(repos, 'nothing-here') }, 'http-url'],
      [{ 'service-provider': 'git', 'http-url': 'relative/path' }, 'http-url'],
      [{ 'service-provider': 'git' }, 'http-url']
    ]
    for (const [attributes, attribute] of cases) {
      const response = await test.api('POST', '/organizations/acme/oauth-clients', { body: doc('oauth-clients', attributes) })
      expect(response.status).toBe(422)
      expect(response.body.errors[0].source.pointer).toBe(`/data/attributes/${attribute}`)
    }
  })

  it('accepts base git URLs, and lets only owners manage connections', async () => {
    const remote = await test.api('POST', '/organizations/acme/oauth-clients', {
      body: doc('oauth-clients', { 'service-provider': 'git', 'http-url': 'ssh://git@git.example.com/' })
    })
    expect(remote.status).toBe(201)
    expect(remote.body.data.attributes['http-url']).toBe('ssh://git@git.example.com')
    const publisher = await createTeamWithToken(test, 'acme', 'conn-publishers', true)
    const reader = await createTeamWithToken(test, 'acme', 'conn-readers', false)
    expect((await test.api('GET', '/organizations/acme/oauth-clients', { token: publisher.token })).status).toBe(200)
    expect((await test.api('GET', '/organizations/acme/oauth-clients', { token: reader.token })).status).toBe(404)
    const create = await test.api('POST', '/organizations/acme/oauth-clients', {
      token: publisher.token,
      body: doc('oauth-clients', { 'service-provider': 'git', 'http-url': repos })
    })
    expect(create.status).toBe(404)
    expect((await test.api('DELETE', `/oauth-clients/${remote.body.data.id as string}`, { token: publisher.token })).status).toBe(404)
    expect((await test.api('DELETE', `/oauth-clients/${remote.body.data.id as string}`)).status).toBe(204)
    expect((await test.api('GET', `/oauth-clients/${remote.body.data.id as string}`)).status).toBe(404)
  })

  it('lists the repositories of a folder connection to pick from (Homeport’s own), and says a remote cannot be listed', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'homeport-listed-'))
    const outside = await mkdtemp(join(tmpdir(), 'homeport-outside-'))
    try {
      await Repo.create(folder, 'platform', 'terraform-aws-dns', moduleFiles('DNS.'))
      await Repo.create(folder, 'platform', 'terraform-aws-vpc', moduleFiles('VPC.'))
      execFileSync('git', ['init', '--quiet', '--bare', join(folder, 'security', 'terraform-aws-iam.git')])
      await mkdir(join(folder, 'platform', 'just-a-folder'), { recursive: true })
      await mkdir(join(folder, '.hidden', 'repo', '.git'), { recursive: true })
      await Repo.create(outside, 'secret', 'terraform-aws-secret', moduleFiles('Secret.'))
      await symlink(join(outside, 'secret'), join(folder, 'linked'))
      const connection = await test.api('POST', '/organizations/acme/oauth-clients', { body: doc('oauth-clients', { 'service-provider': 'git', 'http-url': folder }) })
      const id = connection.body.data.id as string
      const listed = await test.api('GET', `/oauth-clients/${id}/repositories`)
      expect(listed.status).toBe(200)
      expect(listed.body.data.map((entry: { id: string }) => entry.id)).toEqual(['platform/terraform-aws-dns', 'platform/terraform-aws-vpc', 'security/terraform-aws-iam'])
      expect(listed.body.data[0]).toEqual({ id: 'platform/terraform-aws-dns', type: 'vcs-repositories', attributes: { identifier: 'platform/terraform-aws-dns' } })
      expect(listed.body.meta).toEqual({ listable: true })
      // Who may not see connections may not list them either.
      const reader = await createTeamWithToken(test, 'acme', 'list-readers', false)
      expect((await test.api('GET', `/oauth-clients/${id}/repositories`, { token: reader.token })).status).toBe(404)
      await test.api('DELETE', `/oauth-clients/${id}`)

      const remote = await test.api('POST', '/organizations/acme/oauth-clients', { body: doc('oauth-clients', { 'service-provider': 'git', 'http-url': 'https://git.example.com/' }) })
      const unlisted = await test.api('GET', `/oauth-clients/${remote.body.data.id as string}/repositories`)
      expect(unlisted.body).toEqual({ data: [], meta: { listable: false } })
      await test.api('DELETE', `/oauth-clients/${remote.body.data.id as string}`)
    } finally {
      await rm(folder, { recursive: true, force: true })
      await rm(outside, { recursive: true, force: true })
    }
  })
})

describe('a folder that holds repositories itself', () => {
  it('lists them as <folder>/<repository>, and publishes from one', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'homeport-flat-'))
    try {
      // `Repo.create(parent, 'team-repos', …)` makes parent/team-repos/<name>: the connection is to team-repos itself.
      const flat = await Repo.create(parent, 'team-repos', 'terraform-aws-dns', moduleFiles('DNS.'))
      await flat.tag('v1.0.0')
      await Repo.create(parent, 'team-repos', 'terraform-aws-vpc', moduleFiles('VPC.'))
      const connection = await test.api('POST', '/organizations/acme/oauth-clients', { body: doc('oauth-clients', { 'service-provider': 'git', 'http-url': join(parent, 'team-repos') }) })
      const id = connection.body.data.id as string
      const token = connection.body.data.relationships['oauth-tokens'].data[0].id as string
      const listed = await test.api('GET', `/oauth-clients/${id}/repositories`)
      expect(listed.body.data.map((entry: { id: string }) => entry.id)).toEqual(['team-repos/terraform-aws-dns', 'team-repos/terraform-aws-vpc'])
      const created = await test.api('POST', '/organizations/acme/registry-modules/vcs', {
        body: doc('registry-modules', { 'vcs-repo': { identifier: 'team-repos/terraform-aws-dns', 'oauth-token-id': token, 'display-identifier': 'team-repos/terraform-aws-dns' } })
      })
      expect(created.status).toBe(201)
      await eventually(async () => {
        const read = await test.api('GET', modulePath('dns'))
        expect(read.body.data.attributes['version-statuses']).toEqual([{ version: '1.0.0', status: 'ok' }])
      })
      await test.api('DELETE', '/organizations/acme/registry-modules/private/acme/dns')
      await test.api('DELETE', `/oauth-clients/${id}`)
    } finally {
      await rm(parent, { recursive: true, force: true })
    }
  })
})

describe('who may point Homeport at a repository', () => {
  const connect = (token: string, httpUrl: string, server = test) =>
    server.api('POST', '/organizations/acme/oauth-clients', { token, body: doc('oauth-clients', { 'service-provider': 'git', 'http-url': httpUrl }) })

  it('lets only the site admin name a folder or a remote, and tells owners nothing about folders', async () => {
    const owners = await ownersToken(test, 'acme')
    const answers = []
    for (const httpUrl of ['/root', '/etc', '/no/such/folder', 'file:///etc', repos, 'ssh://git@git.example.com/', 'https://git.example.com/']) {
      const response = await connect(owners.token, httpUrl)
      expect(response.status, httpUrl).toBe(403)
      answers.push(response.body.errors[0].detail)
    }
    // The same answer for a folder that exists and one that does not: no existence oracle.
    expect(new Set(answers).size).toBe(1)
    expect(answers[0]).toMatch(/Only the site admin can create VCS connections.*--git-roots/)
  })

  it('lets owners connect folders inside --git-roots, links resolved, and nothing else', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'homeport-outside-'))
    const rooted = await startTestServer({ gitRoots: [repos] })
    try {
      await createOrganization(rooted, 'acme')
      const owners = await ownersToken(rooted, 'acme')
      await symlink(outside, join(repos, 'sneaky-link'))
      const inside = await connect(owners.token, join(repos, 'acme'), rooted)
      expect(inside.status).toBe(201)
      expect(inside.body.data.attributes['http-url']).toBe(pathToFileURL(join(repos, 'acme')).toString())
      for (const httpUrl of [outside, join(repos, 'sneaky-link'), join(repos, '..'), '/no/such/folder', 'git://127.0.0.1/x']) {
        const response = await connect(owners.token, httpUrl, rooted)
        expect(response.status, httpUrl).toBe(403)
        expect(response.body.errors[0].detail).toMatch(/inside .* \(--git-roots\)/)
      }
      // Inside the roots, a missing folder may be named as missing.
      expect((await connect(owners.token, join(repos, 'nothing-here'), rooted)).status).toBe(422)

      // A connection whose folder no longer lies inside the roots (a restart with other roots) stops working.
      await rooted.stop()
      const moved = await startTestServer({ dataDir: rooted.dataDir, gitRoots: [outside] })
      try {
        const token = inside.body.data.relationships['oauth-tokens'].data[0].id as string
        const response = await moved.api('POST', '/organizations/acme/registry-modules/vcs', {
          body: doc('registry-modules', { 'vcs-repo': { identifier: 'acme/terraform-aws-network', 'oauth-token-id': token } })
        })
        expect(response.status).toBe(422)
        expect(response.body.errors[0].detail).toMatch(/outside the folders this Homeport lets organizations use/)
      } finally {
        await moved.close()
      }
    } finally {
      await rm(join(repos, 'sneaky-link'), { force: true })
      await rm(outside, { recursive: true, force: true })
      await rooted.close().catch(() => undefined)
    }
  })

  it('never puts git’s own error output in an answer', async () => {
    const unreachable = await test.api('POST', '/organizations/acme/oauth-clients', {
      body: doc('oauth-clients', { 'service-provider': 'git', 'http-url': 'git://127.0.0.1:9/' })
    })
    expect(unreachable.status).toBe(201)
    const token = unreachable.body.data.relationships['oauth-tokens'].data[0].id as string
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      const response = await test.api('POST', '/organizations/acme/registry-modules/vcs', {
        body: doc('registry-modules', { 'vcs-repo': { identifier: 'acme/terraform-aws-network', 'oauth-token-id': token } })
      })
      expect(response.status).toBe(422)
      expect(response.body.errors[0].detail).toBe('The repository acme/terraform-aws-network cannot be read: the repository’s host cannot be reached')
      expect(JSON.stringify(response.body)).not.toMatch(/fatal|127\.0\.0\.1:9|Connection refused/i)
      // The operator still sees what git said.
      expect(errors.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(/git ls-remote failed: .*127\.0\.0\.1/)
    } finally {
      errors.mockRestore()
      await test.api('DELETE', `/oauth-clients/${unreachable.body.data.id as string}`)
    }
  })
})

describe('tag-based publishing', () => {
  let published: { id: string; attributes: Record<string, unknown> }

  it('creates the module, named after the repository, with every vcs-repo field', async () => {
    const response = await test.api('POST', '/organizations/acme/registry-modules/vcs', { body: publishBody('acme/terraform-aws-network') })
    expect(response.status).toBe(201)
    published = response.body.data
    expect(published.attributes).toMatchObject({
      name: 'network',
      provider: 'aws',
      namespace: 'acme',
      'registry-name': 'private',
      'publishing-mechanism': 'git_tag',
      permissions: { 'can-delete': true, 'can-resync': true, 'can-retry': true }
    })
    const vcsRepo = published.attributes['vcs-repo'] as Record<string, unknown>
    expect(vcsRepo).toMatchObject({
      branch: '',
      'ingress-submodules': true,
      identifier: 'acme/terraform-aws-network',
      'display-identifier': 'acme/terraform-aws-network',
      'oauth-token-id': tokenId,
      'service-provider': 'git',
      tags: true,
      'source-directory': '',
      'tag-prefix': '',
      'repository-http-url': `${pathToFileURL(repos).toString()}/acme/terraform-aws-network`
    })
    expect(vcsRepo['webhook-url']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\/vcs\/[A-Za-z0-9_-]{43}$/)
    // A read-only team sees neither the webhook's secret URL nor where the repository lies on this machine.
    const reader = await createTeamWithToken(test, 'acme', 'vcs-readers')
    const read = await test.api('GET', modulePath('network'), { token: reader.token })
    expect(read.body.data.attributes['vcs-repo']).toMatchObject({ 'webhook-url': null, 'repository-http-url': null, identifier: 'acme/terraform-aws-network' })
    // The list leaves vcs-repo out.
    const list = await test.api('GET', '/organizations/acme/registry-modules?q=network')
    expect(list.body.data[0].attributes).not.toHaveProperty('vcs-repo')
  })

  it('publishes every tag that is a semantic version, and ignores the rest', async () => {
    const { statuses, module } = await versionsOf('network', ['1.0.0', '1.1.0'])
    expect(statuses.map((entry) => [entry.version, entry.status]).sort()).toEqual([
      ['1.0.0', 'ok'],
      ['1.1.0', 'ok']
    ])
    expect(module.attributes.status).toBe('setup_complete')
    const detail = await test.api('GET', '/api/registry/v1/modules/acme/network/aws/1.0.0')
    expect(detail.body.description).toBe('First release.')
    expect(detail.body.source).toBe(`${pathToFileURL(repos).toString()}/acme/terraform-aws-network`)
    expect((await test.api('GET', '/api/registry/v1/modules/acme/network/aws/1.1.0')).body.description).toBe('Second release.')
  })

  it('publishes a new tag by itself within the poll interval', async () => {
    await network.commit({ 'README.md': '# Network\n\nThird release.\n' }, 'third')
    await network.tag('v1.2.0')
    const started = Date.now()
    await versionsOf('network', ['1.2.0'])
    expect(Date.now() - started).toBeLessThan(POLL_MS * 10 + 5000)
    expect((await test.api('GET', '/api/registry/v1/modules/acme/network/aws')).body.version).toBe('1.2.0')
  })

  it('publishes at once on a push to the module’s webhook', async () => {
    await network.commit({ 'README.md': '# Network\n\nFourth release.\n' }, 'fourth')
    await network.tag('v1.3.0')
    const module = await test.api('GET', modulePath('network'))
    const webhook = module.body.data.attributes['vcs-repo']['webhook-url'] as string
    const response = await fetch(webhook, { method: 'POST', body: '{}' })
    expect(response.status).toBe(202)
    await versionsOf('network', ['1.3.0'])
    expect((await fetch(webhook.replace(/[^/]+$/, 'unknown'), { method: 'POST' })).status).toBe(404)
  })

  it('reads the tags again on resync', async () => {
    const response = await test.api('POST', `${modulePath('network')}/actions/resync`)
    expect(response.status).toBe(202)
    expect((await test.api('POST', `${modulePath('network')}/actions/resync`, { token: (await createTeamWithToken(test, 'acme', 'resync-readers')).token })).status).toBe(404)
  })

  it('refuses versions through HCP’s create a module version (`POST …/versions`) for a tag-based module', async () => {
    const response = await test.api('POST', `${modulePath('network')}/versions`, { body: doc('registry-module-versions', { version: '9.0.0' }) })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].detail).toMatch(/push a tag/)
  })

  it('publishes a tag whose tree has no Terraform files, with a warning', async () => {
    const docs = await Repo.create(repos, 'acme', 'terraform-null-docs', { 'README.md': '# Only docs\n' })
    await docs.tag('v0.1.0')
    expect((await test.api('POST', '/organizations/acme/registry-modules/vcs', { body: publishBody('acme/terraform-null-docs') })).status).toBe(201)
    const { statuses } = await versionsOf('docs', ['0.1.0'], 'null')
    expect(statuses).toEqual([{ version: '0.1.0', status: 'ok' }])
    const version = await test.api('GET', `${modulePath('docs', 'null')}/version?module_version=0.1.0`)
    expect(version.body.data.attributes.warnings[0]).toMatch(/no Terraform files/)
  })

  it('leaves a repository without version tags in no_version_tags', async () => {
    const bare = await Repo.create(repos, 'acme', 'terraform-aws-untagged', moduleFiles('Never tagged.'))
    await bare.tag('latest')
    expect((await test.api('POST', '/organizations/acme/registry-modules/vcs', { body: publishBody('acme/terraform-aws-untagged') })).status).toBe(201)
    await eventually(async () => expect((await test.api('GET', modulePath('untagged'))).body.data.attributes.status).toBe('no_version_tags'))
  })
})

describe('refusals', () => {
  it('refuses a repository that does not exist', async () => {
    const response = await test.api('POST', '/organizations/acme/registry-modules/vcs', { body: publishBody('acme/terraform-aws-ghost') })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].source.pointer).toBe('/data/attributes/vcs-repo/identifier')
    expect(response.body.errors[0].detail).toMatch(/no repository/)
  })

  it('refuses identifiers that try to leave the connection’s folder, by ../ or by a link', async () => {
    const secret = await mkdtemp(join(tmpdir(), 'homeport-secret-'))
    try {
      await Repo.create(secret, 'x', 'terraform-aws-secret', moduleFiles('Private.'))
      await mkdir(join(repos, 'sneaky'), { recursive: true })
      await symlink(join(secret, 'x', 'terraform-aws-secret'), join(repos, 'sneaky', 'terraform-aws-link'))
      for (const identifier of ['../terraform-aws-network', 'acme/../../etc', '..', 'acme/..', '-acme/x', 'a/b/c']) {
        const response = await test.api('POST', '/organizations/acme/registry-modules/vcs', { body: publishBody(identifier) })
        expect(response.status, identifier).toBe(422)
        expect(response.body.errors[0].source.pointer).toBe('/data/attributes/vcs-repo/identifier')
      }
      const linked = await test.api('POST', '/organizations/acme/registry-modules/vcs', { body: publishBody('sneaky/terraform-aws-link') })
      expect(linked.status).toBe(422)
      expect(linked.body.errors[0].detail).toMatch(/outside the connection/)
    } finally {
      await rm(secret, { recursive: true, force: true })
    }
  })

  it('refuses app installations, alone or with a token, and unknown tokens', async () => {
    const alone = await test.api('POST', '/organizations/acme/registry-modules/vcs', {
      body: doc('registry-modules', { 'vcs-repo': { identifier: 'acme/terraform-aws-network', 'github-app-installation-id': 'ghain-1' } })
    })
    expect(alone.status).toBe(422)
    expect(alone.body.errors[0].source.pointer).toBe('/data/attributes/vcs-repo/github-app-installation-id')
    expect(alone.body.errors[0].detail).toMatch(/no app installation/)
    const both = await test.api('POST', '/organizations/acme/registry-modules/vcs', {
      body: publishBody('acme/terraform-aws-network', { 'github-app-installation-id': 'ghain-1' })
    })
    expect(both.status).toBe(422)
    expect(both.body.errors[0].detail).toMatch(/cannot be given together/)
    const unknown = await test.api('POST', '/organizations/acme/registry-modules/vcs', {
      body: publishBody('acme/terraform-aws-network', { 'oauth-token-id': 'ot-unknown' })
    })
    expect(unknown.status).toBe(422)
    expect(unknown.body.errors[0].source.pointer).toBe('/data/attributes/vcs-repo/oauth-token-id')
    const missing = await test.api('POST', '/organizations/acme/registry-modules/vcs', { body: doc('registry-modules', { name: 'x' }) })
    expect(missing.status).toBe(422)
  })

  it('needs a name and provider for a repository not named terraform-<provider>-<name>', async () => {
    await Repo.create(repos, 'acme', 'infrastructure', moduleFiles('Odd name.'))
    const response = await test.api('POST', '/organizations/acme/registry-modules/vcs', { body: publishBody('acme/infrastructure') })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].detail).toMatch(/terraform-<provider>-<name>/)
    const named = await test.api('POST', '/organizations/acme/registry-modules/vcs', {
      body: publishBody('acme/infrastructure', {}, { name: 'infra', provider: 'google' })
    })
    expect(named.status).toBe(201)
    expect(named.body.data.attributes).toMatchObject({ name: 'infra', provider: 'google' })
  })

  it('refuses to delete a connection that modules publish through', async () => {
    const clients = await test.api('GET', '/organizations/acme/oauth-clients')
    const response = await test.api('DELETE', `/oauth-clients/${clients.body.data[0].id as string}`)
    expect(response.status).toBe(422)
    expect(response.body.errors[0].detail).toMatch(/publish(es)? through this connection/)
  })
})

describe('branch-based publishing', () => {
  let storage: Repo
  let first: string

  it('builds versions created through HCP’s create a module version (`POST …/versions`) from their commit', async () => {
    storage = await Repo.create(repos, 'acme', 'terraform-aws-storage', { 'main.tf': 'output "generation" {\n  value = 1\n}\n' })
    first = await storage.git('rev-parse', 'HEAD')
    await storage.commit({ 'main.tf': 'output "generation" {\n  value = 2\n}\n\noutput "second" {\n  value = true\n}\n' }, 'second')
    const published = await test.api('POST', '/organizations/acme/registry-modules/vcs', {
      body: publishBody('acme/terraform-aws-storage', { branch: 'main' }, { 'initial-version': '0.1.0' })
    })
    expect(published.status).toBe(201)
    expect(published.body.data.attributes['publishing-mechanism']).toBe('branch')
    expect(published.body.data.attributes['vcs-repo']).toMatchObject({ branch: 'main', tags: false })

    const version = await test.api('POST', `${modulePath('storage')}/versions`, {
      body: doc('registry-module-versions', { version: '0.0.1', 'commit-sha': first.slice(0, 10) })
    })
    expect(version.status).toBe(201)
    expect(version.body.data.attributes).toMatchObject({ status: 'cloning', source: 'git', 'commit-sha': first })
    expect(version.body.data.links.upload).toBeUndefined()

    await versionsOf('storage', ['0.0.1', '0.1.0'])
    const old = await test.api('GET', '/api/registry/v1/modules/acme/storage/aws/0.0.1')
    expect(old.body.root.outputs.map((output: { name: string }) => output.name)).toEqual(['generation'])
    const head = await test.api('GET', '/api/registry/v1/modules/acme/storage/aws/0.1.0')
    expect(head.body.root.outputs.map((output: { name: string }) => output.name)).toEqual(['generation', 'second'])
  })

  it('refuses a commit the repository does not have', async () => {
    const response = await test.api('POST', `${modulePath('storage')}/versions`, {
      body: doc('registry-module-versions', { version: '0.2.0', 'commit-sha': 'deadbeefdeadbeef' })
    })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].detail).toMatch(/no commit/)
  })

  it('switches between branch and tags (HCP’s update a module), for owners only', async () => {
    const path = modulePath('storage')
    const both = await test.api('PATCH', path, { body: doc('registry-modules', { 'vcs-repo': { branch: 'main', tags: true } }) })
    expect(both.status).toBe(422)
    const ghost = await test.api('PATCH', path, { body: doc('registry-modules', { 'vcs-repo': { branch: 'ghost' } }) })
    expect(ghost.status).toBe(422)
    expect(ghost.body.errors[0].detail).toMatch(/no branch "ghost"/)
    const publisher = await createTeamWithToken(test, 'acme', 'switch-publishers', true)
    expect((await test.api('PATCH', path, { token: publisher.token, body: doc('registry-modules', { 'vcs-repo': { tags: true } }) })).status).toBe(404)

    await storage.tag('v2.0.0')
    const toTags = await test.api('PATCH', path, { body: doc('registry-modules', { 'vcs-repo': { tags: true }, 'test-config': { 'tests-enabled': true } }) })
    expect(toTags.status).toBe(200)
    expect(toTags.body.data.attributes['publishing-mechanism']).toBe('git_tag')
    expect(toTags.body.data.attributes['test-config']['tests-enabled']).toBe(true)
    await versionsOf('storage', ['2.0.0'])

    await storage.git('branch', 'release')
    const toBranch = await test.api('PATCH', path, { body: doc('registry-modules', { 'vcs-repo': { branch: 'release' } }) })
    expect(toBranch.status).toBe(200)
    expect(toBranch.body.data.attributes['publishing-mechanism']).toBe('branch')
    expect(toBranch.body.data.attributes['vcs-repo'].branch).toBe('release')
  })
})

describe('monorepos', () => {
  it('publishes a module from its folder and its own tags', async () => {
    const mono = await Repo.create(repos, 'acme', 'platform', {
      'network/main.tf': 'output "network" {\n  value = 1\n}\n',
      'storage/main.tf': 'output "storage" {\n  value = 1\n}\n',
      'README.md': '# Platform monorepo\n'
    })
    await mono.tag('network/v1.2.0')
    await mono.tag('storage/v2.0.0')
    await mono.tag('v9.9.9')
    const response = await test.api('POST', '/organizations/acme/registry-modules/vcs', {
      body: publishBody('acme/platform', { 'source-directory': 'network/', 'tag-prefix': 'network/' }, { name: 'platform-network', provider: 'aws' })
    })
    expect(response.status).toBe(201)
    expect(response.body.data.attributes['vcs-repo']).toMatchObject({ 'source-directory': 'network', 'tag-prefix': 'network/' })
    const { statuses } = await versionsOf('platform-network', ['1.2.0'])
    expect(statuses).toEqual([{ version: '1.2.0', status: 'ok' }])
    const detail = await test.api('GET', '/api/registry/v1/modules/acme/platform-network/aws/1.2.0')
    expect(detail.body.root.outputs).toEqual([{ name: 'network', description: '' }])
    expect(detail.body.root.readme).toBe('')
    const escape = await test.api('POST', '/organizations/acme/registry-modules/vcs', {
      body: publishBody('acme/platform', { 'source-directory': '../x' }, { name: 'escape', provider: 'aws' })
    })
    expect(escape.status).toBe(422)
  })

  it('fails a version whose tag lacks the folder, and retries it once fixed', async () => {
    const mono = await Repo.create(repos, 'acme', 'terraform-aws-moving', { 'main.tf': 'output "root" {\n  value = 1\n}\n' })
    await mono.tag('v1.0.0')
    await test.api('POST', '/organizations/acme/registry-modules/vcs', { body: publishBody('acme/terraform-aws-moving', { 'source-directory': 'modules/x' }) })
    const { statuses } = await versionsOf('moving', ['1.0.0'])
    expect(statuses[0]).toMatchObject({ status: 'clone_failed', error: expect.stringMatching(/has no folder "modules\/x"/) })
    await test.api('PATCH', modulePath('moving'), { body: doc('registry-modules', { 'vcs-repo': { 'source-directory': '' } }) })
    const retry = await test.api('POST', `${modulePath('moving')}/1.0.0/actions/retry`)
    expect(retry.status).toBe(202)
    expect((await versionsOf('moving', ['1.0.0'])).statuses[0]).toEqual({ version: '1.0.0', status: 'ok' })
    expect((await test.api('POST', `${modulePath('moving')}/1.0.0/actions/retry`)).status).toBe(422)
  })
})

describe('an archive too large to keep', () => {
  it('fails the version and leaves no git running', async () => {
    const small = await startTestServer({ maxArchiveBytes: 256 * 1024, vcsPollIntervalMs: 60_000 })
    try {
      await createOrganization(small, 'acme')
      const big = await Repo.create(repos, 'acme', 'terraform-aws-bulky', { 'main.tf': 'output "x" {\n  value = 1\n}\n', 'blob.txt': randomBytes(4 * 1024 * 1024).toString('base64') })
      await big.tag('v1.0.0')
      const connection = await small.api('POST', '/organizations/acme/oauth-clients', { body: doc('oauth-clients', { 'service-provider': 'git', 'http-url': repos }) })
      const token = connection.body.data.relationships['oauth-tokens'].data[0].id as string
      const published = await small.api('POST', '/organizations/acme/registry-modules/vcs', {
        body: doc('registry-modules', { 'vcs-repo': { identifier: 'acme/terraform-aws-bulky', 'oauth-token-id': token } })
      })
      expect(published.status).toBe(201)
      await eventually(async () => {
        const module = await small.api('GET', '/organizations/acme/registry-modules/private/acme/bulky/aws')
        const entry = (module.body.data.attributes['version-statuses'] as Array<{ status: string; error?: string }>)[0]
        expect(entry).toMatchObject({ status: 'clone_failed', error: expect.stringMatching(/larger than/) })
      })
      // The server runs in this test's process: no git it started is left running (its own children only, not the machine's).
      await eventually(() => expect(childCommands().filter((line) => line.includes('git archive') || line.includes('git-archive'))).toEqual([]))
    } finally {
      await small.close()
    }
  }, 60_000)
})

describe('the deprecated endpoint and plain modules', () => {
  it('publishes through POST /registry-modules, the token deciding the organization', async () => {
    const repo = await Repo.create(repos, 'acme', 'terraform-aws-legacy', moduleFiles('Legacy.'))
    await repo.tag('v0.0.1')
    const response = await test.api('POST', '/registry-modules', { body: publishBody('acme/terraform-aws-legacy') })
    expect(response.status).toBe(201)
    expect(response.body.data.attributes.namespace).toBe('acme')
    await versionsOf('legacy', ['0.0.1'])
    const bad = await test.api('POST', '/registry-modules', { body: publishBody('acme/terraform-aws-legacy', { 'oauth-token-id': 'ot-nope' }) })
    expect(bad.status).toBe(422)
  })

  it('keeps resync for VCS modules only', async () => {
    await createModule(test, 'acme', 'uploaded', 'aws')
    expect((await test.api('POST', `${modulePath('uploaded')}/actions/resync`)).status).toBe(422)
  })
})

/** The command lines of this process's children (pgrep exits 1 when there are none). */
function childCommands(): string[] {
  try {
    return execFileSync('pgrep', ['-a', '-P', String(process.pid)], { encoding: 'utf8' }).split('\n').filter(Boolean)
  } catch {
    return []
  }
}
