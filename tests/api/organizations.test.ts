import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createModule, createOrganization, doc, startTestServer, type TestServer } from '../helpers/server.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

let test: TestServer
beforeAll(async () => {
  test = await startTestServer()
})
afterAll(async () => {
  await test.close()
})

/** The organizations the store holds, whichever store it is. */
async function organizationFiles(): Promise<string[]> {
  return (await test.server.services.store.organizations.all()).map((org) => org.id).sort()
}

describe('authentication', () => {
  it('answers the readiness ping without a token', async () => {
    const response = await test.api('GET', '/ping', { token: null })
    expect(response.status).toBe(204)
    expect(response.headers.get('tfp-api-version')).toBe('2.6')
  })

  it('refuses a request without a token with a JSON:API 401', async () => {
    const response = await test.api('GET', '/organizations', { token: null })
    expect(response.status).toBe(401)
    expect(response.headers.get('content-type')).toContain('application/vnd.api+json')
    expect(response.headers.get('www-authenticate')).toBe('Bearer')
    expect(response.body.errors[0]).toMatchObject({ status: '401', title: 'unauthorized' })
    expect(response.body.errors[0].detail).toMatch(/Authorization: Bearer/)
  })

  it('refuses an unknown token', async () => {
    const response = await test.api('GET', '/organizations', { token: 'hp1.not-a-real-token' })
    expect(response.status).toBe(401)
    expect(response.body.errors[0].detail).toMatch(/not valid/)
  })

  it('answers an unknown endpoint with a JSON:API 404', async () => {
    const response = await test.api('GET', '/no-such-thing')
    expect(response.status).toBe(404)
    expect(response.body.errors[0].status).toBe('404')
  })
})

describe('create an organization', () => {
  it('applies every default and includes the entitlement set', async () => {
    const response = await test.api('POST', '/organizations', {
      body: doc('organizations', { name: 'defaults', email: 'admin@defaults.example' })
    })
    expect(response.status).toBe(201)
    expect(response.headers.get('content-type')).toContain('application/vnd.api+json')
    const { data, included } = response.body
    expect(data.id).toBe('defaults')
    expect(data.type).toBe('organizations')
    expect(data.links.self).toBe('/api/v2/organizations/defaults')
    expect(data.attributes).toMatchObject({
      name: 'defaults',
      email: 'admin@defaults.example',
      'session-timeout': 20160,
      'session-remember': 20160,
      'collaborator-auth-policy': 'password',
      'cost-estimation-enabled': false,
      'send-passing-statuses-for-untriggered-speculative-plans': false,
      'aggregated-commit-status-enabled': true,
      'speculative-plan-management-enabled': true,
      'owners-team-saml-role-id': null,
      'assessments-enforced': false,
      'two-factor-conformant': true,
      'allow-force-delete-workspaces': false,
      'default-execution-mode': 'remote',
      'plan-expired': false,
      'plan-expires-at': null,
      'plan-is-trial': false,
      'saml-enabled': false
    })
    expect(data.attributes['external-id']).toMatch(/^org-[A-Za-z0-9]{16}$/)
    expect(data.attributes['created-at']).toMatch(ISO_MS)
    expect(data.attributes.permissions).toMatchObject({ 'can-update': true, 'can-destroy': true, 'can-create-module': true })
    expect(data.relationships['default-agent-pool']).toEqual({ data: null })
    expect(data.relationships['entitlement-set']).toEqual({
      data: { id: data.attributes['external-id'], type: 'entitlement-sets' },
      links: { related: '/api/v2/organizations/defaults/entitlement-set' }
    })
    for (const name of ['oauth-tokens', 'authentication-token', 'subscription']) {
      expect(data.relationships[name].links.related).toBe(`/api/v2/organizations/defaults/${name}`)
    }
    // Self-hosted relationships do not exist in the hosted edition.
    expect(data.relationships['module-producers']).toBeUndefined()
    expect(included).toHaveLength(1)
    expect(included[0].type).toBe('entitlement-sets')
    expect(included[0].id).toBe(data.attributes['external-id'])
    expect(included[0].attributes['private-module-registry']).toBe(true)
    expect(included[0].attributes).not.toHaveProperty('private-policy-agents')
    expect(included[0].attributes).not.toHaveProperty('private-vcs')
  })

  it('accepts application/json as well as the JSON:API media type', async () => {
    const response = await test.api('POST', '/organizations', {
      body: doc('organizations', { name: 'plain-json', email: 'a@plain.example' }),
      contentType: 'application/json'
    })
    expect(response.status).toBe(201)
  })

  it('keeps every attribute given', async () => {
    const given = {
      'session-timeout': 60,
      'session-remember': 120,
      'collaborator-auth-policy': 'two_factor_mandatory',
      'cost-estimation-enabled': true,
      'speculative-plan-management-enabled': false,
      'owners-team-saml-role-id': 'admins',
      'assessments-enforced': true,
      'allow-force-delete-workspaces': true,
      'default-execution-mode': 'local'
    }
    const response = await test.api('POST', '/organizations', { body: doc('organizations', { name: 'custom_Org-1', email: 'ops@custom.example', ...given }) })
    expect(response.status).toBe(201)
    expect(response.body.data.attributes).toMatchObject(given)
  })

  it('refuses a second organization with the same name, whatever its case', async () => {
    await createOrganization(test, 'unique-one')
    for (const name of ['unique-one', 'UNIQUE-one']) {
      const response = await test.api('POST', '/organizations', {
        body: doc('organizations', { name, email: 'x@y.example' })
      })
      expect(response.status).toBe(422)
      expect(response.body.errors[0].source).toEqual({ pointer: '/data/attributes/name' })
      expect(response.body.errors[0].detail).toMatch(/already exists/)
      // The stable code a client decides on, whatever the words say.
      expect(response.body.errors[0].code).toBe('name-taken')
    }
  })

  const invalidBodies: Array<[string, unknown, string]> = [
    ['a missing name', doc('organizations', { email: 'a@b.example' }), '/data/attributes/name'],
    ['a missing email', doc('organizations', { name: 'no-email' }), '/data/attributes/email'],
    ['a name with a space', doc('organizations', { name: 'bad name', email: 'a@b.example' }), '/data/attributes/name'],
    ['a name with a dot', doc('organizations', { name: 'bad.name', email: 'a@b.example' }), '/data/attributes/name'],
    ['a name of 65 characters', doc('organizations', { name: 'n'.repeat(65), email: 'a@b.example' }), '/data/attributes/name'],
    ['an invalid e-mail', doc('organizations', { name: 'bad-email', email: 'not-an-address' }), '/data/attributes/email'],
    ['a number as name', doc('organizations', { name: 42, email: 'a@b.example' }), '/data/attributes/name'],
    [
      'a string for a boolean',
      doc('organizations', { name: 'typed', email: 'a@b.example', 'cost-estimation-enabled': 'yes' }),
      '/data/attributes/cost-estimation-enabled'
    ],
    [
      'a fraction of a minute',
      doc('organizations', { name: 'typed', email: 'a@b.example', 'session-timeout': 1.5 }),
      '/data/attributes/session-timeout'
    ],
    [
      'zero minutes',
      doc('organizations', { name: 'typed', email: 'a@b.example', 'session-remember': 0 }),
      '/data/attributes/session-remember'
    ],
    [
      'an unknown auth policy',
      doc('organizations', { name: 'typed', email: 'a@b.example', 'collaborator-auth-policy': 'sms' }),
      '/data/attributes/collaborator-auth-policy'
    ],
    [
      'an unknown execution mode',
      doc('organizations', { name: 'typed', email: 'a@b.example', 'default-execution-mode': 'cloud' }),
      '/data/attributes/default-execution-mode'
    ],
    ['a wrong type', doc('workspaces', { name: 'typed', email: 'a@b.example' }), '/data/type'],
    ['no data', { meta: {} }, '/data'],
    ['attributes that are not an object', { data: { type: 'organizations', attributes: [] } }, '/data/attributes']
  ]
  it.each(invalidBodies)('answers 422 for %s and writes nothing', async (_name, body, pointer) => {
    const before = await organizationFiles()
    const response = await test.api('POST', '/organizations', { body })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].status).toBe('422')
    expect(response.body.errors[0].source).toEqual({ pointer })
    expect(await organizationFiles()).toEqual(before)
  })

  it('answers 400 for malformed JSON, 415 for another media type, 422 for no body, 413 for a huge body', async () => {
    const before = await organizationFiles()
    const malformed = await test.api('POST', '/organizations', { raw: '{"data": {', contentType: 'application/vnd.api+json' })
    expect(malformed.status).toBe(400)
    expect(malformed.body.errors[0].detail).toMatch(/not valid JSON/)
    const text = await test.api('POST', '/organizations', { raw: 'name=acme', contentType: 'application/x-www-form-urlencoded' })
    expect(text.status).toBe(415)
    const empty = await test.api('POST', '/organizations')
    expect(empty.status).toBe(422)
    const huge = await test.api('POST', '/organizations', {
      body: doc('organizations', { name: 'huge', email: 'a@b.example', padding: 'x'.repeat(2 * 1024 * 1024) })
    })
    expect(huge.status).toBe(413)
    expect(huge.body.errors[0].status).toBe('413')
    expect(await organizationFiles()).toEqual(before)
  })

  it('turns aggregated commit statuses off when passing statuses for untriggered plans are asked for', async () => {
    const response = await test.api('POST', '/organizations', {
      body: doc('organizations', {
        name: 'passing',
        email: 'a@b.example',
        'send-passing-statuses-for-untriggered-speculative-plans': true
      })
    })
    expect(response.status).toBe(201)
    expect(response.body.data.attributes['send-passing-statuses-for-untriggered-speculative-plans']).toBe(true)
    expect(response.body.data.attributes['aggregated-commit-status-enabled']).toBe(false)
  })

  it('refuses aggregated commit statuses together with passing statuses for untriggered plans', async () => {
    const response = await test.api('POST', '/organizations', {
      body: doc('organizations', {
        name: 'conflict',
        email: 'a@b.example',
        'send-passing-statuses-for-untriggered-speculative-plans': true,
        'aggregated-commit-status-enabled': true
      })
    })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].source.pointer).toBe('/data/attributes/aggregated-commit-status-enabled')
  })

  it('requires an agent pool for agent execution and refuses one otherwise', async () => {
    const noPool = await test.api('POST', '/organizations', {
      body: doc('organizations', { name: 'agents', email: 'a@b.example', 'default-execution-mode': 'agent' })
    })
    expect(noPool.status).toBe(422)
    expect(noPool.body.errors[0]).toMatchObject({
      detail: "Default agent pool must be specified when using 'agent' execution mode",
      source: { pointer: '/data/attributes/default-agent-pool-id' }
    })
    for (const mode of ['remote', 'local']) {
      const response = await test.api('POST', '/organizations', {
        body: doc('organizations', {
          name: 'agents',
          email: 'a@b.example',
          'default-execution-mode': mode,
          'default-agent-pool-id': 'apool-1'
        })
      })
      expect(response.status).toBe(422)
      expect(response.body.errors[0].detail).toBe("Default agent pool must not be specified unless using 'agent' execution mode")
    }
    const withPool = await test.api('POST', '/organizations', {
      body: doc('organizations', {
        name: 'agents',
        email: 'a@b.example',
        'default-execution-mode': 'agent',
        'default-agent-pool-id': 'apool-1'
      })
    })
    expect(withPool.status).toBe(201)
    expect(withPool.body.data.relationships['default-agent-pool'].data).toEqual({ id: 'apool-1', type: 'agent-pools' })
  })

  it('lets only a site admin create organizations', async () => {
    await createOrganization(test, 'creator-check')
    const teams = await test.api('GET', '/organizations/creator-check/teams')
    const owners = teams.body.data[0].id as string
    const token = (await test.api('POST', `/teams/${owners}/authentication-token`)).body.data.attributes.token as string
    const response = await test.api('POST', '/organizations', {
      token,
      body: doc('organizations', { name: 'by-a-team', email: 'a@b.example' })
    })
    expect(response.status).toBe(404)
  })
})

describe('list organizations', () => {
  beforeAll(async () => {
    await createOrganization(test, 'list-alpha', { email: 'ops@alpha.example' })
    await createOrganization(test, 'list-beta', { email: 'ops@beta.example' })
    await createOrganization(test, 'list-gamma', { email: 'team@alpha.example' })
  })

  const names = (body: { data: Array<{ id: string }> }) => body.data.map((org) => org.id)

  it('returns everything, unpaginated, when no page parameter is given', async () => {
    const response = await test.api('GET', '/organizations')
    expect(response.status).toBe(200)
    expect(names(response.body)).toEqual(expect.arrayContaining(['list-alpha', 'list-beta', 'list-gamma']))
    expect(response.body.meta).toBeUndefined()
    expect(response.body.data[0].attributes['plan-identifier']).toBeTypeOf('string')
  })

  it('searches name and e-mail with q', async () => {
    expect(names((await test.api('GET', '/organizations?q=alpha')).body).sort()).toEqual(['list-alpha', 'list-gamma'])
    expect(names((await test.api('GET', '/organizations?q=list-beta')).body)).toEqual(['list-beta'])
  })

  it('needs both q[email] and q[name] to match, with brackets encoded or not', async () => {
    const both = await test.api('GET', '/organizations?q%5Bemail%5D=alpha.example&q%5Bname%5D=gamma')
    expect(names(both.body)).toEqual(['list-gamma'])
    const plain = await test.api('GET', '/organizations?q[email]=alpha.example&q[name]=list')
    expect(names(plain.body).sort()).toEqual(['list-alpha', 'list-gamma'])
    const none = await test.api('GET', '/organizations?q[email]=beta.example&q[name]=alpha')
    expect(names(none.body)).toEqual([])
  })

  it('lets q take precedence over q[email] and q[name]', async () => {
    const response = await test.api('GET', '/organizations?q=list-beta&q[name]=alpha')
    expect(names(response.body)).toEqual(['list-beta'])
  })

  it('paginates when a page parameter is given, with links and null at the ends', async () => {
    const all = names((await test.api('GET', '/organizations')).body)
    const first = await test.api('GET', '/organizations?page%5Bsize%5D=2')
    expect(first.body.data).toHaveLength(2)
    expect(first.body.meta.pagination).toEqual({
      'current-page': 1,
      'page-size': 2,
      'prev-page': null,
      'next-page': 2,
      'total-pages': Math.ceil(all.length / 2),
      'total-count': all.length
    })
    expect(first.body.links.prev).toBeNull()
    expect(first.body.links.next).toContain('page%5Bnumber%5D=2')
    expect(first.body.links.self).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2\/organizations\?/)
    const lastPage = Math.ceil(all.length / 2)
    const last = await test.api('GET', `/organizations?page[number]=${lastPage}&page[size]=2`)
    expect(last.body.meta.pagination['next-page']).toBeNull()
    expect(last.body.links.next).toBeNull()
    expect(last.body.meta.pagination['prev-page']).toBe(lastPage - 1)
    const numberOnly = await test.api('GET', '/organizations?page[number]=1')
    expect(numberOnly.body.meta.pagination['page-size']).toBe(20)
    const beyond = await test.api('GET', '/organizations?page[number]=999&page[size]=100')
    expect(beyond.body.data).toEqual([])
    expect(beyond.body.meta.pagination['current-page']).toBe(999)
  })

  it('refuses a page number that is not a positive whole number', async () => {
    const response = await test.api('GET', '/organizations?page[number]=0')
    expect(response.status).toBe(400)
    expect(response.body.errors[0].source).toEqual({ parameter: 'page[number]' })
  })

  it('includes entitlement sets on request', async () => {
    const response = await test.api('GET', '/organizations?q=list-beta&include=entitlement_set')
    expect(response.body.included).toHaveLength(1)
    expect(response.body.included[0].type).toBe('entitlement-sets')
  })
})

describe('show, update and destroy', () => {
  it('shows an organization, and 404 for an unknown one', async () => {
    const created = await createOrganization(test, 'show-me')
    const response = await test.api('GET', '/organizations/show-me')
    expect(response.status).toBe(200)
    expect(response.body.data).toEqual(created)
    expect((await test.api('GET', '/organizations/no-such-org')).status).toBe(404)
  })

  it('includes the entitlement set with include=entitlement_set, and refuses unknown includes', async () => {
    await createOrganization(test, 'includer')
    const response = await test.api('GET', '/organizations/includer?include=entitlement_set')
    expect(response.body.included[0].attributes).toHaveProperty('private-vcs')
    const unknown = await test.api('GET', '/organizations/includer?include=workspaces')
    expect(unknown.status).toBe(400)
    expect(unknown.body.errors[0].source).toEqual({ parameter: 'include' })
  })

  it('answers an unknown include with 400 on every endpoint, as JSON:API says, and what each can include with 200', async () => {
    await createOrganization(test, 'includes-all')
    await createModule(test, 'includes-all', 'net', 'aws')
    const cases: Array<[string, number, string?]> = [
      ['/organizations/includes-all/registry-modules?include=workspaces', 400, 'registry modules can include: no-code-modules'],
      // go-tfe's list asks for no-code modules: Homeport has none to include.
      ['/organizations/includes-all/registry-modules?include=no-code-modules', 200],
      ['/organizations/includes-all/registry-modules/private/includes-all/net/aws?include=versions', 400, 'this endpoint includes no related resources'],
      ['/organizations/includes-all/registry-providers?include=workspaces', 400, 'registry providers can include: registry-provider-versions'],
      ['/organizations/includes-all/teams?include=users', 400, 'this endpoint includes no related resources'],
      ['/organizations/includes-all/registry-modules', 200]
    ]
    for (const [path, status, detail] of cases) {
      const response = await test.api('GET', path)
      expect(response.status, path).toBe(status)
      if (detail) expect(response.body.errors[0].detail, path).toContain(detail)
    }
  })

  it('changes only what the update names, and renames', async () => {
    await createOrganization(test, 'before-rename')
    const response = await test.api('PATCH', '/organizations/before-rename', {
      body: doc('organizations', {
        name: 'after-rename',
        email: 'new@example.com',
        'session-timeout': 3600,
        'session-remember': 3600,
        'default-execution-mode': 'local'
      })
    })
    expect(response.status).toBe(200)
    expect(response.body.data.id).toBe('after-rename')
    expect(response.body.data.attributes).toMatchObject({
      email: 'new@example.com',
      'session-timeout': 3600,
      'collaborator-auth-policy': 'password'
    })
    const read = await test.api('GET', '/organizations/after-rename')
    expect(read.body.data.attributes['default-execution-mode']).toBe('local')
    expect((await test.api('GET', '/organizations/before-rename')).status).toBe(404)
    const empty = await test.api('PATCH', '/organizations/after-rename', { body: doc('organizations') })
    expect(empty.status).toBe(200)
    expect(empty.body.data.attributes.email).toBe('new@example.com')
  })

  it('refuses renaming onto an existing name', async () => {
    await createOrganization(test, 'rename-a')
    await createOrganization(test, 'rename-b')
    const response = await test.api('PATCH', '/organizations/rename-a', { body: doc('organizations', { name: 'Rename-B' }) })
    expect(response.status).toBe(422)
    expect((await test.api('GET', '/organizations/rename-a')).status).toBe(200)
  })

  it('moves between execution modes, dropping the agent pool when leaving agent', async () => {
    await createOrganization(test, 'modes')
    const toAgent = await test.api('PATCH', '/organizations/modes', {
      body: doc('organizations', { 'default-execution-mode': 'agent' }, {
        relationships: { 'default-agent-pool': { data: { type: 'agent-pools', id: 'apool-2' } } }
      })
    })
    expect(toAgent.status).toBe(200)
    expect(toAgent.body.data.relationships['default-agent-pool'].data.id).toBe('apool-2')
    const toRemote = await test.api('PATCH', '/organizations/modes', { body: doc('organizations', { 'default-execution-mode': 'remote' }) })
    expect(toRemote.body.data.relationships['default-agent-pool'].data).toBeNull()
    const poolWithoutAgent = await test.api('PATCH', '/organizations/modes', {
      body: doc('organizations', { 'default-agent-pool-id': 'apool-3' })
    })
    expect(poolWithoutAgent.status).toBe(422)
  })

  it('checks the passing-statuses conflict against the stored value', async () => {
    await createOrganization(test, 'conflict-later')
    const response = await test.api('PATCH', '/organizations/conflict-later', {
      body: doc('organizations', { 'send-passing-statuses-for-untriggered-speculative-plans': true })
    })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].source.pointer).toBe('/data/attributes/send-passing-statuses-for-untriggered-speculative-plans')
    const both = await test.api('PATCH', '/organizations/conflict-later', {
      body: doc('organizations', {
        'send-passing-statuses-for-untriggered-speculative-plans': true,
        'aggregated-commit-status-enabled': false
      })
    })
    expect(both.status).toBe(200)
  })

  it('destroys an organization and answers 404 after', async () => {
    const created = await createOrganization(test, 'doomed')
    const file = created.attributes['external-id'] as string
    expect(await organizationFiles()).toContain(file)
    const response = await test.api('DELETE', '/organizations/doomed')
    expect(response.status).toBe(204)
    expect(response.body).toBe('')
    expect((await test.api('GET', '/organizations/doomed')).status).toBe(404)
    expect((await test.api('DELETE', '/organizations/doomed')).status).toBe(404)
    expect(await organizationFiles()).not.toContain(file)
  })
})

describe('entitlement set', () => {
  it('shows the whole set at both of its addresses', async () => {
    const created = await createOrganization(test, 'entitled')
    const response = await test.api('GET', '/organizations/entitled/entitlement-set')
    expect(response.status).toBe(200)
    const set = response.body.data
    expect(set.id).toBe(created.attributes['external-id'])
    expect(set.type).toBe('entitlement-sets')
    expect(set.links.self).toBe(`/api/v2/entitlement-sets/${set.id as string}`)
    for (const flag of ['agents', 'audit-logging', 'private-module-registry', 'private-policy-agents', 'private-vcs', 'teams', 'vcs-integrations']) {
      expect(set.attributes[flag]).toBeTypeOf('boolean')
    }
    // What Homeport does is entitled: its audit trail, its private registry and teams.
    expect(set.attributes).toMatchObject({ 'audit-logging': true, 'private-module-registry': true, teams: true })
    for (const limit of ['policy-limit', 'user-limit', 'run-task-limit', 'versioned-policy-set-limit']) {
      expect(set.attributes).toHaveProperty(limit, null)
    }
    const byId = await test.api('GET', `/entitlement-sets/${set.id as string}`)
    expect(byId.body.data).toEqual(set)
    expect((await test.api('GET', '/organizations/nobody/entitlement-set')).status).toBe(404)
  })
})

describe('hosted edition', () => {
  it('has no module producers or data retention policies', async () => {
    await createOrganization(test, 'hosted-only')
    for (const path of ['relationships/module-producers', 'relationships/data-retention-policy']) {
      expect((await test.api('GET', `/organizations/hosted-only/${path}`)).status).toBe(404)
    }
  })
})
