import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createModule, createOrganization, createTeamWithToken, startTestServer, type TestServer } from '../helpers/server.js'

/**
 * Property: whatever a client sends, the answer is a 2xx or a 4xx with a proper error, never a
 * 5xx; and a 4xx changes nothing in the store.
 */
let test: TestServer
let teamId: string
beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  await createModule(test, 'acme', 'vpc', 'aws')
  teamId = (await createTeamWithToken(test, 'acme', 'fuzzers', true)).id
})
afterAll(async () => {
  await test.close()
})

async function snapshot(): Promise<string> {
  const { store } = test.server.services
  const [organizations, modules] = await Promise.all([store.organizations.all(), store.modules.all()])
  const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)
  return JSON.stringify([organizations.sort(byId), modules.sort(byId)])
}

const ATTRIBUTES = [
  'name',
  'email',
  'provider',
  'namespace',
  'registry-name',
  'no-code',
  'version',
  'commit-sha',
  'session-timeout',
  'session-remember',
  'collaborator-auth-policy',
  'default-execution-mode',
  'default-agent-pool-id',
  'send-passing-statuses-for-untriggered-speculative-plans',
  'aggregated-commit-status-enabled',
  'cost-estimation-enabled',
  'organization-access',
  'vcs-repo',
  'test-config',
  'service-provider',
  'http-url',
  'delete-older-than-n-days'
]
const TYPES = ['organizations', 'registry-modules', 'registry-module-versions', 'teams', 'oauth-clients', 'authentication-tokens', 'x']

const json = fc.jsonValue({ maxDepth: 3 })
const document = fc.oneof(
  json,
  fc.record({
    data: fc.oneof(
      json,
      fc.record(
        {
          type: fc.oneof(fc.constantFrom(...TYPES), json),
          attributes: fc.oneof(fc.dictionary(fc.oneof(fc.constantFrom(...ATTRIBUTES), fc.string()), json, { maxKeys: 6 }), json),
          relationships: fc.oneof(fc.constant(undefined), json)
        },
        { requiredKeys: ['type'] }
      )
    )
  })
)

const WRITES: Array<[string, string]> = [
  ['POST', '/organizations'],
  ['PATCH', '/organizations/acme'],
  ['POST', '/organizations/acme/teams'],
  ['POST', '/organizations/acme/registry-modules'],
  ['POST', '/organizations/acme/registry-modules/vcs'],
  ['POST', '/registry-modules'],
  ['POST', '/organizations/acme/registry-modules/private/acme/vpc/aws/versions'],
  ['PATCH', '/organizations/acme/registry-modules/private/acme/vpc/aws'],
  ['POST', '/organizations/acme/oauth-clients'],
  ['PATCH', '/admin/organizations/acme/relationships/module-consumers'],
  ['PATCH', '/admin/cost-estimation-settings']
]

describe('any JSON:API body', () => {
  it('gets a 2xx or a 4xx with an error document, and a 4xx writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WRITES), document, async ([method, path], body) => {
        const before = await snapshot()
        const response = await test.api(method, path, { body })
        expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBeLessThan(500)
        if (response.status >= 400) {
          expect(response.body.errors?.[0]?.status).toBe(String(response.status))
          expect(await snapshot()).toBe(before)
        }
      }),
      { numRuns: 400 }
    )
  })

  it('answers bytes that are not JSON with 400 or 415', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WRITES), fc.string(), fc.constantFrom('application/vnd.api+json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded'), async ([method, path], raw, contentType) => {
        const response = await test.api(method, path, { raw, contentType })
        expect(response.status).toBeLessThan(500)
      }),
      { numRuns: 150 }
    )
  })
})

describe('any query parameter', () => {
  const reads = [
    '/organizations',
    '/organizations/acme/registry-modules',
    '/organizations/acme/teams',
    `/teams/${'TEAM'}`,
    '/api/registry/v1/modules',
    '/api/registry/v1/modules/search',
    '/api/registry/v1/modules/acme',
    '/api/registry/v1/modules/acme/vpc/aws/versions',
    '/api/registry/v2/modules/acme/vpc/aws/downloads/summary'
  ]
  const names = ['q', 'q[name]', 'q[email]', 'page[number]', 'page[size]', 'filter[provider]', 'filter[registry_name]', 'filter[organization_name]', 'include', 'offset', 'limit', 'provider', 'verified', 'namespace', 'module_version']

  it('gets a 2xx or a 4xx, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...reads),
        fc.array(fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string()), fc.string()), { maxLength: 4 }),
        async (path, params) => {
          const query = params.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&')
          const response = await test.api('GET', `${path.replace('TEAM', teamId)}?${query}`)
          expect(response.status, `${path}?${query}`).toBeLessThan(500)
        }
      ),
      { numRuns: 300 }
    )
  })

  it('gets a 2xx or a 4xx for any path segment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 6 }), fc.constantFrom('/api/v2/organizations', '/api/registry/v1/modules', '/api/registry/public/v1/modules', '/archivist/v1/object', '/api/registry/downloads', '/webhooks/vcs'), async (segments, prefix) => {
        const path = `${prefix}/${segments.map(encodeURIComponent).join('/')}`
        for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
          const response = await test.api(method, path)
          expect(response.status, `${method} ${path}`).toBeLessThan(500)
        }
      }),
      { numRuns: 150 }
    )
  })
})
