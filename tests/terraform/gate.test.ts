import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { providerRelease, publishProvider, startPublicUpstream } from '../helpers/providers.js'
import { doc, startTestServer, type TestServer } from '../helpers/server.js'
import { publicMirrorClient } from '../helpers/terraform-client.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM, lockPublicProvider } from '../helpers/terraform-binary.js'
import { PUBLIC_REGISTRY_HOSTS, terraformCliConfig } from '../../src-main/shared/terraform-config.js'

const run = promisify(execFile)
const VERSIONS = ['3.2.0', '3.2.1', '3.2.2']
let upstream: TestServer
let homeport: TestServer
let work: string

/**
 * The gate as Terraform meets it: hashicorp/null 3.2.2 is blocked, so `~> 3.2` installs 3.2.1 and the
 * registry's warnings say why; an exact pin of 3.2.2 fails naming the rule; a lock file that already
 * holds 3.2.2 fails in Terraform's own words (what docs/guide/the-gate.md tells an operator to do then).
 */
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-gate-'))
  const started = await startPublicUpstream()
  upstream = started.upstream
  for (const version of VERSIONS) await publishProvider(upstream, 'hashicorp', await providerRelease('null', version, ['linux_amd64', 'darwin_arm64'], started.key), started.key)
  homeport = await startTestServer({ upstream: upstream.url, upstreamToken: upstream.adminToken, upstreamMaxAgeMs: 0 })
  await block()
}, 120_000)
afterAll(async () => {
  await homeport.close()
  await upstream.close()
  await rm(work, { recursive: true, force: true })
})

const block = async () => {
  const added = await homeport.api('POST', '/admin/gate/policy/rules', { body: doc('gate-rules', { effect: 'block', pattern: 'hashicorp/null', versions: '= 3.2.2', reason: 'CVE-2026-4242: do not use' }) })
  expect(added.status).toBe(201)
}

/** `terraform init` in a folder needing `constraint`: what it printed, and whether it failed. */
async function init(name: string, constraint: string): Promise<{ output: string; failed: boolean }> {
  const dir = join(work, name)
  const home = join(work, `${name}-home`)
  await mkdir(dir, { recursive: true })
  await mkdir(home, { recursive: true })
  const config = join(work, `${name}.tfrc`)
  await writeFile(config, terraformCliConfig({ hostname: 'homeport.localhost', serverUrl: homeport.url, token: homeport.adminToken, publicHosts: PUBLIC_REGISTRY_HOSTS }))
  await writeFile(join(dir, 'main.tf'), `terraform {\n  required_providers {\n    null = {\n      source  = "hashicorp/null"\n      version = "${constraint}"\n    }\n  }\n}\n`)
  try {
    const { stdout, stderr } = await run('terraform', ['init', '-input=false', '-no-color'], {
      cwd: dir,
      env: { ...process.env, HOME: home, TF_CLI_CONFIG_FILE: config, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' }
    })
    return { output: stdout + stderr, failed: false }
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    return { output: stdout + stderr, failed: true }
  }
}

describe('the gate, to Terraform', () => {
  it('the client in tests/helpers installs the newest version the gate offers, and cannot get a blocked one', async () => {
    const client = publicMirrorClient(homeport)
    expect((await client.installProvider('registry.terraform.io/hashicorp/null', '~> 3.2', 'linux_amd64', join(work, 'client'))).version).toBe('3.2.1')
    await expect(client.installProvider('registry.terraform.io/hashicorp/null', '3.2.2', 'linux_amd64', join(work, 'client-pinned'))).rejects.toThrow(/no available releases match/)
  })

  it(`terraform init picks 3.2.1 for ~> 3.2 and prints the registry's warning${NEEDS_TERRAFORM}`, { skip: !HAS_TERRAFORM, timeout: 120_000 }, async () => {
    const { output, failed } = await init('range', '~> 3.2')
    expect(failed, output).toBe(false)
    expect(output).toMatch(/Installed hashicorp\/null v3\.2\.1/)
    expect(output).toMatch(/Additional provider information from registry/)
    // Terraform wraps the warning to its width.
    expect(output.replace(/\s+/g, ' ')).toContain(`Homeport holds back registry.terraform.io/hashicorp/null 3.2.2: blocked by this Homeport's rule "hashicorp/null = 3.2.2": CVE-2026-4242: do not use.`)
  })

  it(`terraform init fails on an exact pin of the blocked version, naming the rule${NEEDS_TERRAFORM}`, { skip: !HAS_TERRAFORM, timeout: 120_000 }, async () => {
    const { output, failed } = await init('pinned', '3.2.2')
    expect(failed).toBe(true)
    expect(output).toMatch(/no available releases match the given constraints 3\.2\.2/)
    expect(output).toMatch(/CVE-2026-4242/)
  })

  it(`terraform providers lock locks the allowed version for several platforms${NEEDS_TERRAFORM}`, { skip: !HAS_TERRAFORM, timeout: 120_000 }, async () => {
    const { output, failed, lock } = await lockPublicProvider(homeport, join(work, 'lock'), join(work, 'lock-env'), ['linux_amd64', 'darwin_arm64'])
    expect(failed, output).toBe(false)
    expect(lock).toMatch(/version\s+= "3\.2\.1"/)
    expect(lock.match(/"zh:/g)).toHaveLength(2)
  })

  it(`a lock file holding a version the gate now hides fails in Terraform's words${NEEDS_TERRAFORM}`, { skip: !HAS_TERRAFORM, timeout: 120_000 }, async () => {
    const rules = (await homeport.api('GET', '/admin/gate/policy')).body.data.attributes.rules as Array<{ id: string }>
    for (const rule of rules) await homeport.api('DELETE', `/admin/gate/policy/rules/${rule.id}`)
    expect((await init('locked', '~> 3.2')).output).toMatch(/Installed hashicorp\/null v3\.2\.2/)
    await block()
    const { output, failed } = await init('locked', '~> 3.2')
    expect(failed).toBe(true)
    expect(output).toMatch(/the previously-selected version 3\.2\.2 is no longer available/)
  })
})
