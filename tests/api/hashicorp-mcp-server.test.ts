import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { makeSigningKey, providerRelease, publishProvider } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, publish, startTestServer, type TestServer } from '../helpers/server.js'

/**
 * HashiCorp's terraform-mcp-server (v1.2) reaches private modules and providers through go-tfe
 * against TFE_ADDRESS: its registry-private tools make exactly these calls (go-tfe's paths and
 * query parameters, read in shared/research/mcp.md and go-tfe's source), each answered completely
 * here, with a team's token as TFE_TOKEN.
 */
let test: TestServer
let token: string
beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  await publish(test, 'acme', 'network', 'aws', '1.0.0', NETWORK_MODULE)
  await publish(test, 'acme', 'network', 'aws', '1.1.0', NETWORK_MODULE)
  const key = await makeSigningKey()
  await publishProvider(test, 'acme', await providerRelease('widget', '0.3.0', ['linux_amd64'], key), key)
  token = (await createTeamWithToken(test, 'acme', 'mcp')).token
}, 60_000)
afterAll(async () => {
  await test.close()
})

const get = (path: string) => test.api('GET', path, { token })

describe('the calls of HashiCorp’s terraform-mcp-server registry-private tools', () => {
  it('go-tfe’s NewClient: ping, with the API version it checks', async () => {
    const ping = await test.api('GET', '/ping', { token: null })
    expect(ping.status).toBe(204)
    expect(ping.headers.get('tfp-api-version')).toBe('2.6')
  })

  it('search_private_modules: RegistryModules.List with q, include=no-code-modules and a page', async () => {
    const listed = await get('/organizations/acme/registry-modules?q=network&include=no-code-modules&page%5Bnumber%5D=1&page%5Bsize%5D=10')
    expect(listed.status).toBe(200)
    expect(listed.body.data).toHaveLength(1)
    expect(listed.body.data[0]).toMatchObject({
      type: 'registry-modules',
      attributes: { name: 'network', namespace: 'acme', provider: 'aws', 'registry-name': 'private', status: 'setup_complete' }
    })
    expect(listed.body.data[0].attributes['version-statuses'].map((entry: { version: string }) => entry.version)).toEqual(['1.1.0', '1.0.0'])
    expect(listed.body.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 1, 'total-pages': 1 })
  })

  it('get_private_module_details: RegistryModules.Read, then ReadTerraformRegistryModule at a version or the latest', async () => {
    const module = await get('/organizations/acme/registry-modules/private/acme/network/aws')
    expect(module.body.data.attributes).toMatchObject({ name: 'network', namespace: 'acme', provider: 'aws' })
    expect(module.body.data.attributes['version-statuses'][0]).toMatchObject({ version: '1.1.0', status: 'ok' })
    for (const path of ['/api/registry/v1/modules/acme/network/aws/1.1.0', '/api/registry/v1/modules/acme/network/aws/']) {
      const detail = await get(path)
      expect(detail.status, path).toBe(200)
      expect(detail.body).toMatchObject({ namespace: 'acme', name: 'network', provider: 'aws', version: '1.1.0' })
      expect(detail.body.root.readme).toContain('Creates a VPC with public and private subnets.')
      expect(detail.body.root.inputs.map((input: { name: string }) => input.name)).toEqual(['cidr_block', 'db_password', 'region', 'subnets'])
      expect(detail.body.root.inputs[2]).toMatchObject({ name: 'region', type: 'string', default: '"us-east-1"', required: false })
      expect(detail.body.root.outputs.map((output: { name: string }) => output.name).sort()).toEqual(['secret', 'vpc_id'])
      expect(detail.body.submodules.map((part: { path: string }) => part.path)).toEqual(['modules/subnet'])
    }
  })

  it('search_private_providers: RegistryProviders.List with q, filter[registry_name] and include=registry-provider-versions', async () => {
    const listed = await get('/organizations/acme/registry-providers?q=widget&filter%5Bregistry_name%5D=private&include=registry-provider-versions&page%5Bnumber%5D=1&page%5Bsize%5D=10')
    expect(listed.status).toBe(200)
    expect(listed.body.data).toEqual([expect.objectContaining({ type: 'registry-providers', attributes: expect.objectContaining({ name: 'widget', namespace: 'acme', 'registry-name': 'private' }) })])
    expect(listed.body.included).toEqual([expect.objectContaining({ type: 'registry-provider-versions', attributes: expect.objectContaining({ version: '0.3.0', 'key-id': expect.any(String) }) })])
  })

  it('get_private_provider_details: RegistryProviders.Read with its versions included', async () => {
    const provider = await get('/organizations/acme/registry-providers/private/acme/widget?include=registry-provider-versions')
    expect(provider.status).toBe(200)
    expect(provider.body.data.relationships['registry-provider-versions'].data).toHaveLength(1)
    expect(provider.body.included[0].attributes).toMatchObject({ version: '0.3.0', protocols: ['5.0'], 'shasums-uploaded': true, 'shasums-sig-uploaded': true })
  })
})
