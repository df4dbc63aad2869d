import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { terraformCliConfig } from '../../src-main/shared/terraform-config.js'
import { createOrganization, createTeamWithToken, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM } from '../helpers/terraform-binary.js'
import { TerraformClient } from '../helpers/terraform-client.js'

const run = promisify(execFile)
const HOST = 'homeport.localhost'
let test: TestServer
let work: string
let early: string
let late: string

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-lifecycle-'))
  test = await startTestServer()
  await createOrganization(test, 'acme')
  const module = { 'main.tf': 'variable "cidr" {\n  type    = string\n  default = "10.0.0.0/16"\n}\n\noutput "cidr" {\n  value = var.cidr\n}\n' }
  for (const version of ['1.0.0', '1.1.0']) await publish(test, 'acme', 'network', 'aws', version, module)
  early = (await createTeamWithToken(test, 'acme', 'platform')).token
  late = (await createTeamWithToken(test, 'acme', 'newcomers')).token
})
afterAll(async () => {
  await test.close()
  await rm(work, { recursive: true, force: true })
})

const client = (token: string) => new TerraformClient({ hosts: { [HOST]: { 'modules.v1': `${test.url}/api/registry/v1/modules/` } }, credentials: { [HOST]: token } })
const lifecycle = (attributes: Record<string, unknown>) =>
  test.api('PATCH', '/organizations/acme/registry-modules/private/acme/network/aws/1.1.0', { body: doc('module-versions', attributes) })

/** `terraform init` of a configuration pinned to network 1.1.0, as the team with `token`; its output, or the failure's. */
async function realInit(name: string, token: string): Promise<{ ok: boolean; output: string }> {
  const dir = join(work, name)
  const home = join(work, `${name}-home`)
  await mkdir(dir, { recursive: true })
  await mkdir(home, { recursive: true })
  const config = join(work, `${name}.tfrc`)
  await writeFile(config, terraformCliConfig({ hostname: HOST, serverUrl: test.url, token }))
  await writeFile(join(dir, 'main.tf'), `module "network" {\n  source  = "${HOST}/acme/network/aws"\n  version = "1.1.0"\n}\n`)
  const env = { ...process.env, HOME: home, TF_CLI_CONFIG_FILE: config, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' }
  return run('terraform', ['init', '-input=false', '-no-color', '-backend=false'], { cwd: dir, env }).then(
    ({ stdout, stderr }) => ({ ok: true, output: stdout + stderr }),
    (error: { stdout: string; stderr: string }) => ({ ok: false, output: error.stdout + error.stderr })
  )
}

describe('a revoked version, as Terraform meets it', () => {
  it('keeps installing for a team that used it before, and is not found for a team that never did', async () => {
    // The platform team's pinned configuration installs 1.1.0 before anything happens to it.
    expect((await client(early).install(`${HOST}/acme/network/aws`, '1.1.0', join(work, 'early-1'))).version).toBe('1.1.0')
    expect((await lifecycle({ deprecation: { 'deprecated-status': 'Deprecated', reason: 'Opens port 22 to the world.', link: 'https://example.com/sec/1' } })).status).toBe(200)
    expect((await lifecycle({ revocation: { status: 'Revoked', message: 'Opens port 22 to the world; use 1.0.0 or 2.x.' } })).status).toBe(200)

    expect((await client(early).install(`${HOST}/acme/network/aws`, '1.1.0', join(work, 'early-2'))).version).toBe('1.1.0')
    await expect(client(late).install(`${HOST}/acme/network/aws`, '1.1.0', join(work, 'late'))).rejects.toThrow(/There is no available version of module "homeport\.localhost\/acme\/network\/aws" which matches the given version constraint\. The newest available version is 1\.0\.0\./)
    // A loose constraint resolves to what the newcomers may use.
    expect((await client(late).install(`${HOST}/acme/network/aws`, '~> 1.0', join(work, 'late-loose'))).version).toBe('1.0.0')
  })

  it(`does the same with the real terraform${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    const kept = await realInit('real-early', early)
    expect(kept.ok, kept.output).toBe(true)
    expect(kept.output).toContain('Downloading homeport.localhost/acme/network/aws 1.1.0 for network...')
    // Terraform 1.11 prints nothing of a deprecation: HCP shows it in its run outputs, Homeport in its API and GUI.
    expect(kept.output).not.toMatch(/deprecat|revok/i)
    const refused = await realInit('real-late', late)
    expect(refused.ok).toBe(false)
    expect(refused.output.replace(/\s+/g, ' ')).toContain(
      'There is no available version of module "homeport.localhost/acme/network/aws" (main.tf:1) which matches the given version constraint. The newest available version is 1.0.0.'
    )
  }, 120_000)
})
