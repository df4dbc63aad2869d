import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { moduleArchive } from '../helpers/archives.js'
import { createOrganization, createTeamWithToken, publish, startTestServer, type TestServer } from '../helpers/server.js'

let test: TestServer
const MODULE = '/organizations/acme/registry-modules/private/acme/vpc/aws'

/** A vpc-like module: the 1.3.0 interface, with `extra` files on top. */
function vpc(outputs: string[], extra: Record<string, string> = {}): Record<string, string> {
  return {
    'versions.tf': 'terraform {\n  required_version = ">= 1.3"\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n      version = ">= 5.0"\n    }\n  }\n}\n',
    'variables.tf': [
      'variable "cidr" {\n  description = "The IPv4 CIDR block for the VPC."\n  type        = string\n}\n',
      'variable "azs" {\n  description = "Availability zones."\n  type        = list(string)\n  default     = []\n}\n'
    ].join('\n'),
    'outputs.tf': outputs.map((name) => `output "${name}" {\n  description = "The ${name} of the VPC"\n  value       = "x"\n}\n`).join('\n'),
    ...extra
  }
}

beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  await publish(test, 'acme', 'vpc', 'aws', '1.3.0', vpc(['vpc_id', 'vpc_arn']))
  await publish(test, 'acme', 'vpc', 'aws', '1.4.0', vpc(['vpc_id']))
})
afterAll(() => test.close())

const archives = async () => (await test.server.services.store.archives.list()).length

async function preview(version: string, files: Record<string, string> | Buffer, token = test.adminToken) {
  const body = Buffer.isBuffer(files) ? files : await moduleArchive(files)
  const response = await test.fetch(`${test.url}/api/v2${MODULE}/compare?version=${version}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/gzip' },
    body: new Uint8Array(body)
  })
  return { status: response.status, body: (await response.json()) as { data?: { attributes: Record<string, unknown> }; errors?: Array<{ detail: string }> } }
}

describe('comparing versions', () => {
  it('says that a minor release removing an output breaks its callers', async () => {
    const latest = await test.api('GET', `${MODULE}/compare`)
    expect(latest.status).toBe(200)
    expect(latest.body.data).toEqual({
      id: '1.3.0...1.4.0',
      type: 'interface-diffs',
      attributes: {
        from: '1.3.0',
        to: '1.4.0',
        impact: 'breaking',
        step: 'minor',
        verdict: '1.4.0 removes output `vpc_arn`: that is a breaking change in a minor release.',
        changes: [{ impact: 'breaking', kind: 'output-removed', part: '', detail: 'removes output `vpc_arn`' }]
      }
    })
    // Any two versions, either way round; the first version has nothing before it.
    expect((await test.api('GET', `${MODULE}/compare?from=1.4.0&to=1.3.0`)).body.data.attributes).toMatchObject({ step: 'downgrade', impact: 'additive', verdict: null })
    expect((await test.api('GET', `${MODULE}/compare?to=1.3.0`)).body.data.attributes).toMatchObject({ from: null, changes: [] })
    const missing = await test.api('GET', `${MODULE}/compare?from=0.9.0`)
    expect(missing.status).toBe(404)
    expect(missing.body.errors[0].detail).toMatch(/version 0\.9\.0 of acme\/vpc\/aws is not published/)
  })

  it('previews the change an archive would make before it is published, keeping nothing of it', async () => {
    const before = await archives()
    const patch = await preview('1.4.1', vpc(['vpc_id', 'igw_id']))
    expect(patch.status).toBe(200)
    expect(patch.body.data!.attributes).toMatchObject({
      from: '1.4.0',
      to: '1.4.1',
      impact: 'additive',
      verdict: '1.4.1 adds output `igw_id`: that is new interface in a patch release (a minor release says so).',
      warnings: []
    })
    const minor = await preview('1.5.0', vpc(['vpc_id', 'igw_id']))
    expect(minor.body.data!.attributes.verdict).toBeNull()
    // What ingest would say of files that do not parse is shown before publishing too.
    const broken = await preview('1.5.0', vpc(['vpc_id'], { 'broken.tf': 'resource "x" {' }))
    expect(broken.body.data!.attributes.warnings).toEqual([expect.stringMatching(/broken\.tf/)])
    expect(await archives()).toBe(before)
    expect((await test.api('GET', MODULE)).body.data.attributes['version-statuses'].map((entry: { version: string }) => entry.version)).toEqual(['1.4.0', '1.3.0'])
  })

  it('previews a new module’s first version, which compares with nothing, as its interface; creating nothing', async () => {
    const first = await test.fetch(`${test.url}/api/v2/organizations/acme/registry-modules/private/acme/subnets/aws/compare?version=1.0.0`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${test.adminToken}`, 'Content-Type': 'application/gzip' },
      body: new Uint8Array(await moduleArchive(vpc(['subnet_ids'])))
    })
    expect(first.status).toBe(200)
    expect(((await first.json()) as { data: { attributes: unknown } }).data.attributes).toEqual({
      from: null,
      to: '1.0.0',
      impact: 'none',
      step: 'none',
      changes: [],
      verdict: null,
      warnings: [],
      interface: {
        inputs: [
          { name: 'azs', type: 'list(string)', required: false },
          { name: 'cidr', type: 'string', required: true }
        ],
        outputs: ['subnet_ids']
      }
    })
    expect((await test.api('GET', '/organizations/acme/registry-modules/private/acme/subnets/aws')).status).toBe(404)
    // Not in another organization's namespace, nor for one the caller may not read.
    const elsewhere = await test.fetch(`${test.url}/api/v2/organizations/acme/registry-modules/private/other/subnets/aws/compare?version=1.0.0`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${test.adminToken}`, 'Content-Type': 'application/gzip' },
      body: new Uint8Array(await moduleArchive(vpc(['subnet_ids'])))
    })
    expect(elsewhere.status).toBe(404)
  })

  it('refuses a preview to readers, without a version, and of what is not an archive', async () => {
    const { token } = await createTeamWithToken(test, 'acme', 'readers')
    expect((await preview('1.5.0', vpc(['vpc_id']), token)).status).toBe(404)
    const response = await test.fetch(`${test.url}/api/v2${MODULE}/compare`, { method: 'POST', headers: { Authorization: `Bearer ${test.adminToken}` }, body: 'x' })
    expect(response.status).toBe(400)
    const garbage = await preview('1.5.0', Buffer.from('not an archive'))
    expect(garbage.status).toBe(422)
    expect(garbage.body.errors![0]!.detail).toMatch(/gzip/)
  })
})
