import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { parse } from '@cdktn/hcl2json'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { createOrganization, createTeamWithToken, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { TerraformClient, TerraformError, type CliConfig, type Fetch } from '../helpers/terraform-client.js'
import { HOMEPORT_CLI } from '../helpers/cli.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

let work: string
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-terraform-'))
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

async function publishNetwork(test: TestServer): Promise<void> {
  await createOrganization(test, 'acme')
  for (const version of ['1.0.0', '1.1.0', '1.2.0-beta1', '2.0.0']) await publish(test, 'acme', 'network', 'aws', version, NETWORK_MODULE)
}

/** Reads a CLI configuration file the way Terraform does (HCL), into the blocks the client needs. */
async function readCliConfig(path: string): Promise<CliConfig> {
  const parsed = (await parse('terraform.rc', await readFile(path, 'utf8'))) as {
    host?: Record<string, Array<{ services: Record<string, string> }>>
    credentials?: Record<string, Array<{ token: string }>>
  }
  return {
    hosts: Object.fromEntries(Object.entries(parsed.host ?? {}).map(([name, [block]]) => [name, block!.services])),
    credentials: Object.fromEntries(Object.entries(parsed.credentials ?? {}).map(([name, [block]]) => [name, block!.token]))
  }
}

async function files(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort()
}

describe('terraform init over HTTP, with the CLI configuration `homeport terraform-config` writes', () => {
  let test: TestServer
  let client: TerraformClient
  let token: string
  beforeAll(async () => {
    test = await startTestServer()
    await publishNetwork(test)
    token = (await createTeamWithToken(test, 'acme', 'ci')).token
    const configPath = join(work, 'homeport.tfrc')
    const { stdout } = await run(
      process.execPath,
      [...HOMEPORT_CLI, 'terraform-config', '--url', test.url, '--token', token, '--output', configPath],
      { cwd: ROOT }
    )
    expect(stdout).toContain(`TF_CLI_CONFIG_FILE=${configPath}`)
    const config = await readCliConfig(configPath)
    expect(config.hosts['homeport.localhost']).toEqual({
      'modules.v1': `${test.url}/api/registry/v1/modules/`,
      'providers.v1': `${test.url}/api/registry/v1/providers/`,
      // terraform login, over plain HTTP on loopback (tests/terraform/terraform-login.test.ts).
      'login.v1': { client: 'terraform-cli', grant_types: ['authz_code'], authz: `${test.url}/oauth/authorize`, token: `${test.url}/oauth/token`, ports: [10000, 10010] }
    })
    client = new TerraformClient(config)
  })
  afterAll(async () => {
    await test.close()
  })

  it('installs the newest version that meets the constraint', async () => {
    const installed = await client.install('homeport.localhost/acme/network/aws', '~> 1.0', join(work, 'pessimistic'))
    expect(installed.version).toBe('1.1.0')
    expect(installed.location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/registry\/downloads\/.+\.tar\.gz$/)
    expect(await files(installed.dir)).toEqual(
      expect.arrayContaining(['README.md', 'main.tf', 'variables.tf', 'outputs.tf.json', 'modules/subnet/main.tf', 'examples/basic/main.tf'])
    )
    expect(await readFile(join(installed.dir, 'variables.tf'), 'utf8')).toBe(NETWORK_MODULE['variables.tf'])
  })

  it('takes the newest stable version without a constraint, and a prerelease only when asked for exactly', async () => {
    expect((await client.install('homeport.localhost/acme/network/aws', undefined, join(work, 'newest'))).version).toBe('2.0.0')
    expect((await client.install('homeport.localhost/acme/network/aws', '1.2.0-beta1', join(work, 'beta'))).version).toBe('1.2.0-beta1')
    expect((await client.install('homeport.localhost/acme/network/aws', '=1.2.0-beta1', join(work, 'beta-eq'))).version).toBe('1.2.0-beta1')
    for (const constraint of ['= 1.2.0-beta1', '>= 1.2.0-beta1, < 2']) {
      await expect(client.install('homeport.localhost/acme/network/aws', constraint, join(work, 'never'))).rejects.toThrow(
        /Unresolvable module version constraint[\s\S]*newest available version is 2\.0\.0/
      )
    }
  })

  it('installs a submodule with a //subdir source', async () => {
    const installed = await client.install('homeport.localhost/acme/network/aws//modules/subnet', '2.0.0', join(work, 'subdir'))
    expect(installed.dir).toBe(join(work, 'subdir', 'modules/subnet'))
    expect(await files(installed.dir)).toEqual(['README.md', 'main.tf'])
  })

  it('fails like Terraform for a missing module, a wrong token, and a hostname without a dot', async () => {
    await expect(client.install('homeport.localhost/acme/nothing/aws', '1.0.0', join(work, 'missing'))).rejects.toThrow(/Module not found/)
    const wrongToken = new TerraformClient({
      hosts: { 'homeport.localhost': { 'modules.v1': `${test.url}/api/registry/v1/modules/` } },
      credentials: { 'homeport.localhost': 'hp1.not-the-token' }
    })
    const error = await wrongToken.install('homeport.localhost/acme/network/aws', '1.0.0', join(work, 'denied')).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(TerraformError)
    expect((error as Error).message).toMatch(/Error accessing remote module registry[\s\S]*401 Unauthorized/)
    await expect(client.install(`localhost:${new URL(test.url).port}/acme/network/aws`, '1.0.0', join(work, 'nodot'))).rejects.toThrow(
      /must contain at least one dot/
    )
  })

  it('counts every download', async () => {
    const summary = await test.api('GET', '/api/registry/v2/modules/acme/network/aws/downloads/summary', { token })
    expect(summary.body.data.attributes.total).toBeGreaterThanOrEqual(5)
  })
})

describe('terraform init over HTTPS, with plain service discovery', () => {
  let test: TestServer
  let trusting: Fetch
  beforeAll(async () => {
    test = await startTestServer({ tls: true })
    await publishNetwork(test)
    trusting = test.fetch
  })
  afterAll(async () => {
    await test.close()
  })

  it('serves HTTPS with a certificate for 127.0.0.1 signed by its own CA', () => {
    expect(test.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    expect(test.server.tls!.trustPath).toBe(join(test.dataDir, 'tls', 'ca.crt'))
  })

  it('installs 127.0.0.1:PORT/org/name/provider through discovery, with credentials for that host', async () => {
    const host = new URL(test.url).host
    const client = new TerraformClient({ hosts: {}, credentials: { [host]: test.adminToken } }, trusting)
    const installed = await client.install(`${host}/acme/network/aws`, '~> 2.0', join(work, 'tls'))
    expect(installed.version).toBe('2.0.0')
    expect(installed.location.startsWith(`https://${host}/api/registry/downloads/`)).toBe(true)
    expect(await files(installed.dir)).toContain('main.tf')
  })

  it('is refused by a client that does not trust Homeport’s CA', async () => {
    const host = new URL(test.url).host
    const client = new TerraformClient({ hosts: {}, credentials: { [host]: test.adminToken } })
    await expect(client.install(`${host}/acme/network/aws`, '~> 2.0', join(work, 'untrusted'))).rejects.toThrow()
  })
})
