import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { moduleBlock } from '../../src-main/shared/module-usage.js'
import { vpcModule } from '../../e2e/support/vpc-module.js'
import { makeSigningKey, providerRelease, publishProvider } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'

/**
 * The MCP face through the SDK's own client over Streamable HTTP, against a Homeport holding modules
 * shaped like the ones people publish: a vpc with 237 inputs (two versions), an s3-bucket, and a
 * module of another organization the team must not see.
 */
const HOST = 'homeport.localhost'
const S3_BUCKET = {
  'README.md': '# AWS S3 bucket\n\nCreates an S3 bucket with versioning, encryption and a lifecycle, the way most teams need it.\n',
  'variables.tf':
    'variable "bucket" {\n  description = "The name of the bucket."\n  type        = string\n}\n\nvariable "versioning" {\n  description = "Keep every version of every object."\n  type        = bool\n  default     = true\n}\n\nvariable "lifecycle_rules" {\n  description = "Rules that expire or move objects."\n  type = list(object({\n    id      = string\n    days    = number\n    storage = optional(string, "GLACIER")\n  }))\n  default = []\n}\n',
  'main.tf': 'resource "aws_s3_bucket" "this" {\n  bucket = var.bucket\n}\n\nresource "aws_s3_bucket_versioning" "this" {\n  bucket = aws_s3_bucket.this.id\n}\n',
  'outputs.tf': 'output "bucket_arn" {\n  description = "The ARN of the bucket."\n  value       = aws_s3_bucket.this.arn\n}\n'
}

let test: TestServer
let reader: string
const clients: Client[] = []

beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  await createOrganization(test, 'other')
  await publish(test, 'acme', 'vpc', 'aws', '5.8.1', vpcModule('5.8.1'))
  // 5.9.0 drops an input: what an upgrade breaks.
  const next = vpcModule('5.9.0')
  next['variables.tf'] = next['variables.tf']!.replace(/variable "outpost_subnets" \{[\s\S]*?\n\}\n/, '')
  await publish(test, 'acme', 'vpc', 'aws', '5.9.0', next)
  await publish(test, 'acme', 's3-bucket', 'aws', '4.1.0', S3_BUCKET)
  await publish(test, 'acme', 's3-bucket', 'aws', '4.2.0', S3_BUCKET)
  // A prerelease is listed, but is not the latest.
  await publish(test, 'acme', 's3-bucket', 'aws', '5.0.0-rc.1', S3_BUCKET)
  await publish(test, 'other', 'secret-vpc', 'aws', '1.0.0', vpcModule('1.0.0'))
  const deprecated = await test.api('PATCH', '/organizations/acme/registry-modules/private/acme/s3-bucket/aws/4.1.0', {
    body: doc('module-versions', { deprecation: { 'deprecated-status': 'Deprecated', reason: 'Encryption is off by default in 4.1; use 4.2.', link: null } })
  })
  expect(deprecated.status).toBe(200)
  const key = await makeSigningKey()
  await publishProvider(test, 'acme', await providerRelease('widget', '0.3.0', ['linux_amd64', 'darwin_arm64'], key), key)
  reader = (await createTeamWithToken(test, 'acme', 'assistants')).token
}, 120_000)
afterAll(async () => {
  for (const client of clients) await client.close()
  await test.close()
})

async function connect(token = reader): Promise<Client> {
  const client = new Client({ name: 'homeport-tests', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
  clients.push(client)
  return client
}

/** A tool's answer: its structured content, and its text. */
async function call<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>): Promise<{ data: T; text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args })
  return { data: result.structuredContent as T, text: (result.content as Array<{ type: string; text: string }>)[0]!.text, isError: result.isError === true }
}

describe('the MCP server over Streamable HTTP', () => {
  it('offers its tools with schemas, a README resource per module, and a prompt', async () => {
    const client = await connect()
    expect(client.getServerVersion()).toMatchObject({ name: 'homeport' })
    expect(client.getInstructions()).toMatch(/private Terraform and OpenTofu registry/)
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ['check_configuration', 'compare_versions', 'get_module', 'get_provider', 'get_provider_doc', 'list_versions', 'search_modules', 'search_provider_docs', 'search_providers', 'usage_snippet'].sort()
    )
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(60)
      expect(tool.outputSchema, tool.name).toBeDefined()
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true)
    }
    const { resources } = await client.listResources()
    expect(resources.map((resource) => resource.uri).sort()).toEqual([
      'homeport://modules/private/acme/s3-bucket/aws/4.2.0/readme',
      'homeport://modules/private/acme/vpc/aws/5.9.0/readme'
    ])
    const { prompts } = await client.listPrompts()
    expect(prompts.map((prompt) => prompt.name)).toEqual(['use-private-module'])
    const prompt = await client.getPrompt({ name: 'use-private-module', arguments: { need: 'a VPC with private subnets' } })
    expect((prompt.messages[0]!.content as { text: string }).text).toMatch(/search_modules[\s\S]*get_module[\s\S]*usage_snippet[\s\S]*check_configuration/)
  })

  it('refuses a request without a token, or with one it does not know', async () => {
    const anonymous = await fetch(`${test.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })
    })
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer')
    await expect(connect('not-a-token')).rejects.toThrow(/The API token is not valid/)
  })

  it('searches modules by words of names, descriptions, inputs and READMEs, best first, scoped to the token', async () => {
    const client = await connect()
    const vpc = await call<{ total: number; modules: Array<{ address: string; matched: string[] }> }>(client, 'search_modules', { query: 'vpc private subnets' })
    expect(vpc.data.modules[0]).toMatchObject({ address: `${HOST}/acme/vpc/aws` })
    expect(vpc.data.modules[0]!.matched).toContain('name')
    // The other organization's module matches too, but this team does not see it.
    expect(vpc.data.modules.map((entry) => entry.address)).not.toContain(`${HOST}/other/secret-vpc/aws`)
    const admin = await call<{ modules: Array<{ address: string }> }>(await connect(test.adminToken), 'search_modules', { query: 'vpc' })
    expect(admin.data.modules.map((entry) => entry.address)).toContain(`${HOST}/other/secret-vpc/aws`)

    const bucket = await call<{ modules: Array<{ address: string; description: string; latest_version: string }> }>(client, 'search_modules', { query: 'encryption lifecycle' })
    expect(bucket.data.modules.map((entry) => [entry.address, entry.latest_version])).toEqual([[`${HOST}/acme/s3-bucket/aws`, '4.2.0']])
    expect(bucket.text).toContain('Creates an S3 bucket with versioning')
    const paged = await call<{ total: number; total_pages: number; modules: unknown[] }>(client, 'search_modules', { page_size: 1, page: 2 })
    expect(paged.data).toMatchObject({ total: 2, total_pages: 2 })
    expect(paged.data.modules).toHaveLength(1)
    expect((await call<{ total: number }>(client, 'search_modules', { query: 'kubernetes' })).data.total).toBe(0)
  })

  it('reads a module as big as the registry’s largest, in pages small enough for an assistant', async () => {
    const client = await connect()
    const first = await call<{
      version: string
      inputs_total: number
      required_inputs: string[]
      inputs: Array<{ name: string; required: boolean; type: string }>
      next_inputs_offset: number | null
      submodules: string[]
      examples: string[]
      readme_uri: string
      providers: Array<{ source: string }>
    }>(client, 'get_module', { module: `${HOST}/acme/vpc/aws` })
    expect(first.data.version).toBe('5.9.0')
    expect(first.data.required_inputs).toEqual(['azs', 'name'])
    expect(first.data.inputs.slice(0, 2).map((input) => input.name)).toEqual(['azs', 'name'])
    expect(first.data.inputs).toHaveLength(40)
    expect(first.data.next_inputs_offset).toBe(40)
    expect(first.data.submodules).toEqual(['modules/vpc-endpoints'])
    expect(first.data.examples.sort()).toEqual(['examples/complete', 'examples/simple'])
    expect(first.data.providers).toEqual([expect.objectContaining({ source: 'hashicorp/aws' })])
    // An answer stays within a few thousand tokens; the rest is a page or a resource away.
    expect(JSON.stringify(first.data).length).toBeLessThan(20_000)
    expect(first.text.length).toBeLessThan(12_000)
    const seen = new Set(first.data.inputs.map((input) => input.name))
    for (let offset = first.data.next_inputs_offset; offset !== null; ) {
      const page = await call<{ inputs: Array<{ name: string }>; next_inputs_offset: number | null }>(client, 'get_module', { module: 'acme/vpc/aws', inputs_offset: offset })
      for (const input of page.data.inputs) seen.add(input.name)
      offset = page.data.next_inputs_offset
    }
    expect(seen.size).toBe(first.data.inputs_total)
    const readme = await client.readResource({ uri: first.data.readme_uri })
    expect((readme.contents[0] as { text: string }).text.length).toBeGreaterThan(first.text.length)

    const part = await call<{ part: string; required_inputs: string[] }>(client, 'get_module', { module: 'acme/vpc/aws//modules/vpc-endpoints', version: '5.8.1' })
    expect(part.data).toMatchObject({ part: 'modules/vpc-endpoints', required_inputs: ['vpc_id'] })
    const missing = await call(client, 'get_module', { module: 'acme/vpc/aws', version: '9.9.9' })
    expect(missing.isError).toBe(true)
    expect(missing.text).toMatch(/has no version 9\.9\.9 you may install; versions: 5\.9\.0, 5\.8\.1/)
    expect((await call(client, 'get_module', { module: 'other/secret-vpc/aws' })).text).toMatch(/No module other\/secret-vpc\/aws/)
  })

  it('lists versions with their deprecation, and writes the GUI’s module block', async () => {
    const client = await connect()
    const versions = await call<{ versions: Array<{ version: string; deprecation: { reason: string } | null }> }>(client, 'list_versions', { module: 'acme/s3-bucket/aws' })
    expect(versions.data.versions.map((version) => [version.version, version.deprecation?.reason ?? null])).toEqual([
      ['5.0.0-rc.1', null],
      ['4.2.0', null],
      ['4.1.0', 'Encryption is off by default in 4.1; use 4.2.']
    ])
    const snippet = await call<{ snippet: string; resolved_version: string }>(client, 'usage_snippet', { module: 'acme/s3-bucket/aws', version: '~> 4.1' })
    expect(snippet.data.resolved_version).toBe('4.2.0')
    expect(snippet.data.snippet).toBe(moduleBlock({ hostname: HOST, namespace: 'acme', name: 's3-bucket', provider: 'aws', version: '~> 4.1' }, [{ name: 'bucket', type: 'string' }]))
  })

  it('tells what an upgrade breaks', async () => {
    const comparison = await call<{ from: string; to: string; impact: string; changes: Array<{ detail: string }>; verdict: string | null }>(await connect(), 'compare_versions', { module: 'acme/vpc/aws' })
    expect(comparison.data).toMatchObject({ from: '5.8.1', to: '5.9.0', impact: 'breaking' })
    expect(comparison.data.changes.map((change) => change.detail)).toContainEqual(expect.stringMatching(/outpost_subnets/))
    expect(comparison.data.verdict).toMatch(/removes input `outpost_subnets`/)
  })

  it('checks module blocks as terraform would, and more', async () => {
    const configuration = [
      `module "vpc" {\n  source  = "${HOST}/acme/vpc/aws"\n  version = "~> 5.8"\n  name    = "main"\n  azs     = ["eu-west-1a"]\n  cidr    = "10.1.0.0/16"\n}\n`,
      `module "bucket" {\n  source  = "${HOST}/acme/s3-bucket/aws"\n  version = "4.1.0"\n  buckett = "logs"\n}\n`,
      `module "ghost" {\n  source  = "${HOST}/acme/ghost/aws"\n  version = "1.0.0"\n}\n`,
      `module "old" {\n  source  = "${HOST}/acme/vpc/aws"\n  version = "~> 4.0"\n}\n`,
      'module "local" {\n  source = "./modules/thing"\n}\n',
      'module "consul" {\n  source  = "hashicorp/consul/aws"\n  version = "0.12.0"\n}\n'
    ].join('\n')
    const report = await call<{ ok: boolean; modules: Array<{ block: string; selected: string | null; findings: Array<{ code: string; severity: string; message: string }> }> }>(
      await connect(),
      'check_configuration',
      { files: [{ name: 'main.tf', text: configuration }] }
    )
    expect(report.data.ok).toBe(false)
    const by = Object.fromEntries(report.data.modules.map((block) => [block.block, block]))
    expect(by.vpc).toMatchObject({ selected: '5.9.0', findings: [] })
    expect(by.bucket!.findings.map((finding) => finding.code).sort()).toEqual(['deprecated', 'missing-input', 'unknown-input'])
    expect(by.bucket!.findings.find((finding) => finding.code === 'deprecated')!.message).toContain('Encryption is off by default in 4.1; use 4.2.')
    expect(by.ghost!.findings).toEqual([expect.objectContaining({ code: 'unknown-module', severity: 'error' })])
    expect(by.old!.findings).toEqual([expect.objectContaining({ code: 'no-matching-version', message: expect.stringMatching(/No version meets "~> 4\.0"\. Available: 5\.9\.0, 5\.8\.1/) })])
    expect(by.local!.findings).toEqual([expect.objectContaining({ code: 'not-registry-source', severity: 'info' })])
    expect(by.consul!.findings).toEqual([expect.objectContaining({ code: 'not-mirrored', severity: 'warning' })])
    const broken = await call(await connect(), 'check_configuration', { text: 'module "x" {\n  source = \n' })
    expect(broken.isError).toBe(true)
    expect(broken.text).toMatch(/main\.tf is not valid Terraform configuration/)
  })

  it('reads private providers with a required_providers block', async () => {
    const client = await connect()
    const found = await call<{ providers: Array<{ source: string; latest_version: string }> }>(client, 'search_providers', { query: 'widget' })
    expect(found.data.providers).toEqual([expect.objectContaining({ source: `${HOST}/acme/widget`, latest_version: '0.3.0' })])
    const provider = await call<{ versions: Array<{ version: string; platforms: string[] }>; required_providers: string }>(client, 'get_provider', { provider: 'acme/widget' })
    expect(provider.data.versions).toEqual([{ version: '0.3.0', platforms: ['linux_amd64', 'darwin_arm64'], deprecation: null }])
    expect(provider.data.required_providers).toContain(`source  = "${HOST}/acme/widget"`)
    expect(provider.data.required_providers).toContain('version = "~> 0.3"')
    // Another organization's token sees none of acme's providers.
    const stranger = (await createTeamWithToken(test, 'other', 'strangers')).token
    expect((await call<{ total: number }>(await connect(stranger), 'search_providers', {})).data.total).toBe(0)
  })

  it('keeps a session to the token that opened it, and records none of its calls as writes', async () => {
    const client = await connect()
    const transport = (client as unknown as { _transport: StreamableHTTPClientTransport })._transport
    const session = transport.sessionId!
    const stolen = await fetch(`${test.url}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${test.adminToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' })
    })
    expect(stolen.status).toBe(404)
    const trail = await test.api('GET', '/admin/audit-trail?page[size]=100')
    expect(JSON.stringify(trail.body)).not.toContain('/mcp')
  })
})
