import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { create, extract } from 'tar'
import { makeSigningKey, providerRelease, publishProvider, type ProviderRelease, type SigningKey } from '../helpers/providers.js'
import { createOrganization, publish, startTestServer, testDatabase, type TestServer } from '../helpers/server.js'
import { TerraformClient } from '../helpers/terraform-client.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM, initPublicProvider } from '../helpers/terraform-binary.js'
import type { AuditTrailEvent } from '../../src-main/shared/wire/audit-trail.js'
import { HOMEPORT_CLI } from '../helpers/cli.js'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PUBLIC = 'registry.terraform.io'
/** An address nobody listens on: the upstream of a Homeport that cannot reach any registry. */
const UNREACHABLE = 'http://127.0.0.1:9'

/** `homeport <args>`, as a user runs it: the CLI, from source. */
async function homeport(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  // The settings the offline Homeport runs with, for an import into it stopped: its upstream, and its database in the PostgreSQL run.
  const dataDir = args[args.indexOf('--data-dir') + 1]!
  const database = await testDatabase(dataDir)
  const env = { ...process.env, HOMEPORT_UPSTREAM: UNREACHABLE, ...(database ? { HOMEPORT_DATABASE_URL: database } : {}) }
  return run(process.execPath, [...HOMEPORT_CLI, ...args], { cwd: ROOT, env }).then(
    ({ stdout, stderr }) => ({ stdout, stderr, code: 0 }),
    (error: { stdout: string; stderr: string; code: number }) => ({ stdout: error.stdout, stderr: error.stderr, code: error.code })
  )
}

/** An unmodified configuration, as a user writes it: a public module (which calls another) and a public provider. */
const CONFIGURATION = {
  'main.tf': `terraform {
  required_providers {
    null = {
      source  = "hashicorp/null"
      version = "~> 3.2"
    }
  }
}

module "vpc" {
  source  = "pubnet/vpc/aws"
  version = "~> 2.0"

  name = "demo"
}

module "tags" {
  source = "./modules/tags"
}
`,
  'modules/tags/main.tf': 'output "tags" {\n  value = { Project = "demo" }\n}\n'
}

/** pubnet/vpc/aws 2.1.0: calls pubnet/subnets/aws and its own submodule, which needs hashicorp/random. */
const VPC = {
  'main.tf': `variable "name" {
  type        = string
  description = "Name of the VPC."
}

module "subnets" {
  source  = "pubnet/subnets/aws"
  version = "~> 1.0"
}

module "flow_logs" {
  source = "./modules/flow-logs"
}

resource "null_resource" "vpc" {}
`,
  'modules/flow-logs/main.tf': `terraform {
  required_providers {
    random = {
      source  = "hashicorp/random"
      version = ">= 3.5"
    }
  }
}

resource "random_id" "suffix" {
  byte_length = 4
}
`,
  'README.md': '# VPC\n\nA VPC with subnets.\n'
}

let upstream: TestServer
let online: TestServer
let work: string
let key: SigningKey
const releases: ProviderRelease[] = []

/**
 * Three Homeports: `upstream` stands in for the public registry (its organizations pubnet and
 * hashicorp publish the modules and providers); `online` follows it and makes the bundle; the
 * third, `offline`, has no upstream at all and gets everything from the bundle.
 */
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-bundle-'))
  upstream = await startTestServer()
  await createOrganization(upstream, 'pubnet')
  for (const version of ['1.0.0', '1.1.0', '2.0.0']) await publish(upstream, 'pubnet', 'subnets', 'aws', version, { 'main.tf': `output "version" {\n  value = "${version}"\n}\n` })
  await publish(upstream, 'pubnet', 'vpc', 'aws', '2.0.0', VPC)
  await publish(upstream, 'pubnet', 'vpc', 'aws', '2.1.0', VPC)
  await createOrganization(upstream, 'hashicorp')
  key = await makeSigningKey('Upstream Registry')
  for (const [type, version] of [['null', '3.2.3'], ['random', '3.6.0'], ['random', '3.5.1']] as const) {
    const release = await providerRelease(type, version, ['linux_amd64', 'darwin_arm64', 'windows_amd64'], key)
    releases.push(release)
    await publishProvider(upstream, 'hashicorp', release, key)
  }
  // The upstream's site-admin token: it reads both organizations, as anyone reads the public registry.
  online = await startTestServer({ upstream: upstream.url, upstreamToken: upstream.adminToken, upstreamMaxAgeMs: 0 })
  await createOrganization(online, 'demo')
  await mkdir(join(work, 'configuration', 'modules', 'tags'), { recursive: true })
  for (const [path, text] of Object.entries(CONFIGURATION)) await writeFile(join(work, 'configuration', path), text)
}, 120_000)
afterAll(async () => {
  await online.close()
  await upstream.close().catch(() => undefined)
  await rm(work, { recursive: true, force: true })
})

async function manifestOf(file: string) {
  const folder = await mkdtemp(join(work, 'unpacked-'))
  await extract({ file, cwd: folder })
  return { folder, manifest: JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) }
}

describe('homeport bundle and homeport import', () => {
  const bundle = () => join(work, 'demo.hpbundle')

  it('bundles a configuration from a Homeport that pulls through its upstream: every module call, nested, and every provider for each platform', async () => {
    const { stdout, stderr, code } = await homeport('bundle', join(work, 'configuration'), '--platform', 'linux_amd64', '--platform', 'darwin_arm64', '--output', bundle(), '--data-dir', online.dataDir)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain(`Fetching ${PUBLIC}/pubnet/vpc/aws 2.1.0`)
    expect(stdout).toContain(`Fetching ${PUBLIC}/pubnet/subnets/aws 1.1.0`)
    expect(stdout).toContain(`Fetching ${PUBLIC}/hashicorp/random 3.6.0 for linux_amd64, darwin_arm64`)
    // The nested module was not curated: bundling curated it, to pull it through.
    expect(stdout).toContain('Curated pubnet/subnets/aws in demo')
    expect(stdout).toMatch(/Wrote .*demo\.hpbundle \(.+\): 2 module version\(s\), 2 provider version\(s\) for linux_amd64, darwin_arm64\./)

    const { folder, manifest } = await manifestOf(bundle())
    expect(manifest).toMatchObject({ format: 'homeport-bundle', formatVersion: 1, writtenBy: expect.stringMatching(/^Homeport \d/), organization: { name: 'demo' } })
    expect(manifest.modules.map((module: { namespace: string; name: string; version: string; calledBy: string[] }) => [`${module.namespace}/${module.name}`, module.version, module.calledBy])).toEqual([
      ['pubnet/vpc', '2.1.0', ['root']],
      ['pubnet/subnets', '1.1.0', [`${PUBLIC}/pubnet/vpc/aws 2.1.0`]]
    ])
    const providers = manifest.providers.map((provider: { type: string; version: string; packages: Array<{ os: string; arch: string }> }) => [provider.type, provider.version, provider.packages.map(({ os, arch }) => `${os}_${arch}`)])
    expect(providers).toEqual([
      ['null', '3.2.3', ['linux_amd64', 'darwin_arm64']],
      ['random', '3.6.0', ['linux_amd64', 'darwin_arm64']]
    ])
    // Upstream's own SHA256SUMS and signature, and the key that signed them.
    const nullRelease = releases[0]!
    const shasums = await readFile(join(folder, manifest.providers[0].shasums.path))
    expect(shasums.equals(nullRelease.shasums)).toBe(true)
    expect(manifest.providers[0].keys[0].keyId).toBe(key.keyId)
  }, 120_000)

  it('lists what cannot be had, with the reason, and writes nothing', async () => {
    const broken = join(work, 'broken')
    await mkdir(broken, { recursive: true })
    await writeFile(
      join(broken, 'main.tf'),
      `module "git" {\n  source = "git::https://example.com/network.git"\n}\n\nmodule "old" {\n  source  = "pubnet/vpc/aws"\n  version = "~> 9.0"\n}\n\nmodule "local" {\n  source = "./missing"\n}\n`
    )
    const output = join(work, 'broken.hpbundle')
    const { stderr, code } = await homeport('bundle', broken, '--platform', 'linux_amd64', '--output', output, '--data-dir', online.dataDir)
    expect(code).toBe(1)
    expect(stderr).toContain('module "git" in root: its source "git::https://example.com/network.git" is fetched from outside any registry')
    expect(stderr).toContain(`module "old" in root: no version of ${PUBLIC}/pubnet/vpc/aws meets "~> 9.0"; available: 2.1.0, 2.0.0`)
    expect(stderr).toContain('module "local" in root: its source "./missing" names no folder of Terraform files inside the configuration')
    expect(stderr).toContain('No bundle was written: 3 things could not be resolved.')
    await expect(stat(output)).rejects.toThrow()
  }, 60_000)

  it('honours the configuration’s .terraform.lock.hcl, and refuses a lock the configuration no longer meets', async () => {
    const locked = join(work, 'locked')
    await mkdir(locked, { recursive: true })
    await writeFile(join(locked, 'main.tf'), 'terraform {\n  required_providers {\n    random = {\n      source = "hashicorp/random"\n    }\n  }\n}\n')
    const zip = releases[2]!.zips.get('terraform-provider-random_3.5.1_linux_amd64.zip')!
    await writeFile(join(locked, '.terraform.lock.hcl'), `provider "${PUBLIC}/hashicorp/random" {\n  version = "3.5.1"\n  hashes = [\n    "zh:${zip.shasum}",\n  ]\n}\n`)
    const output = join(work, 'locked.hpbundle')
    const { code, stdout } = await homeport('bundle', locked, '--platform', 'linux_amd64', '--output', output, '--data-dir', online.dataDir)
    expect(code).toBe(0)
    expect(stdout).toContain(`Fetching ${PUBLIC}/hashicorp/random 3.5.1 for linux_amd64`)
    expect((await manifestOf(output)).manifest.providers.map((provider: { version: string }) => provider.version)).toEqual(['3.5.1'])

    await writeFile(join(locked, 'main.tf'), 'terraform {\n  required_providers {\n    random = {\n      source  = "hashicorp/random"\n      version = ">= 3.6"\n    }\n  }\n}\n')
    const refused = await homeport('bundle', locked, '--platform', 'linux_amd64', '--output', join(work, 'stale.hpbundle'), '--data-dir', online.dataDir)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`provider ${PUBLIC}/hashicorp/random: .terraform.lock.hcl selects 3.5.1, which does not meet ">= 3.6": run terraform init -upgrade first`)
  }, 60_000)

  it('refuses a bundle whose files changed, before it writes anything', async () => {
    const { folder, manifest } = await manifestOf(bundle())
    const zip = join(folder, manifest.providers[0].packages[0].file.path)
    const bytes = await readFile(zip)
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1)
    await writeFile(zip, bytes)
    const tampered = join(work, 'tampered.hpbundle')
    await create({ cwd: folder, file: tampered, portable: true }, ['manifest.json', 'modules', 'providers'])
    const empty = join(work, 'tampered-target')
    const { stderr, code } = await homeport('import', tampered, '--data-dir', empty)
    expect(code).toBe(1)
    expect(stderr).toMatch(/not a Homeport bundle it can read: providers\/.*linux_amd64\.zip's SHA-256 is [0-9a-f]{64}, not the [0-9a-f]{64} its manifest records/)
    const target = await startTestServer({ dataDir: empty, upstream: UNREACHABLE })
    try {
      expect((await target.api('GET', '/organizations')).body.data).toEqual([])
      expect(await target.server.services.store.providerMirror.all()).toEqual([])
    } finally {
      await target.close()
    }
  }, 60_000)

  it('refuses public modules where none are kept (the self-hosted edition), before it writes anything', async () => {
    const selfHosted = await startTestServer({ edition: 'self-hosted', upstream: UNREACHABLE })
    try {
      const answer = await selfHosted.fetch(`${selfHosted.url}/api/v2/admin/bundle-imports`, { method: 'POST', headers: { Authorization: `Bearer ${selfHosted.adminToken}` }, body: await readFile(bundle()) })
      expect(answer.status).toBe(409)
      expect(((await answer.json()) as { errors: Array<{ detail: string }> }).errors[0]!.detail).toBe(
        'Nothing was imported: The bundle holds public modules, and this Homeport keeps none (the self-hosted edition, or --public-curation off).'
      )
      expect((await selfHosted.api('GET', '/organizations')).body.data).toEqual([])
      expect(await selfHosted.server.services.store.providerMirror.all()).toEqual([])
    } finally {
      await selfHosted.close()
    }
  })

  describe('into a Homeport with no upstream at all', () => {
    let offline: TestServer
    const offlineDir = () => join(work, 'offline-data')

    it('imports into a stopped Homeport’s data directory, checking every hash and signature first', async () => {
      await upstream.stop()
      const { stdout, stderr, code } = await homeport('import', bundle(), '--data-dir', offlineDir())
      expect(stderr).toBe('')
      expect(code).toBe(0)
      expect(stdout).toContain('Created organization demo.')
      expect(stdout).toContain(`Added: module ${PUBLIC}/pubnet/vpc/aws 2.1.0`)
      expect(stdout).toContain(`Added: module ${PUBLIC}/pubnet/subnets/aws 1.1.0`)
      expect(stdout).toContain(`Added: provider ${PUBLIC}/hashicorp/null 3.2.3 (linux_amd64, darwin_arm64)`)
      offline = await startTestServer({ dataDir: offlineDir(), upstream: UNREACHABLE, upstreamMaxAgeMs: 0 })
    }, 120_000)

    it('records that import in the installation’s audit trail, though no server ran: the command line’s, with no request', async () => {
      const events = (await offline.api('GET', '/admin/audit-trail?filter[type]=bundle')).body.data as AuditTrailEvent[]
      expect(events).toHaveLength(1)
      expect(events[0]).toMatchObject({ auth: { credential: 'site-admin' }, request: null, resource: { type: 'bundle', meta: { permission: 'import bundle', outcome: 'done' } } })
      expect(events[0]!.resource.meta.name).toMatch(/^a bundle: \d+ added, curated by demo$/)
      // And each provider it mirrored, as the same import.
      const providers = (await offline.api('GET', '/admin/audit-trail?filter[type]=mirrored-provider')).body.data as AuditTrailEvent[]
      expect(providers.map((event) => event.resource.meta.name)).toContain(`${PUBLIC}/hashicorp/null 3.2.3 SHA256SUMS`)
    })

    it('imports again into the running Homeport, changing nothing', async () => {
      const { stdout, code } = await homeport('import', bundle(), '--data-dir', offlineDir())
      expect(code).toBe(0)
      expect(stdout).toContain(`Already here: module ${PUBLIC}/pubnet/vpc/aws 2.1.0`)
      expect(stdout).toContain(`Already here: provider ${PUBLIC}/hashicorp/random 3.6.0 (linux_amd64, darwin_arm64)`)
      expect(stdout).not.toContain('Created organization')
    }, 60_000)

    it('installs the configuration’s modules, nested ones too, and providers, as Terraform’s client does', async () => {
      const client = new TerraformClient({
        hosts: { [PUBLIC]: { 'modules.v1': `${offline.url}/api/registry/public/v1/modules/`, 'providers.v1': `${offline.url}/api/registry/public/v1/providers/` } },
        credentials: { [PUBLIC]: offline.adminToken }
      })
      const vpc = await client.install(`${PUBLIC}/pubnet/vpc/aws`, '~> 2.0', join(work, 'client', 'vpc'))
      expect(vpc.version).toBe('2.1.0')
      expect(await readFile(join(vpc.dir, 'modules', 'flow-logs', 'main.tf'), 'utf8')).toContain('random_id')
      const subnets = await client.install(`${PUBLIC}/pubnet/subnets/aws`, '~> 1.0', join(work, 'client', 'subnets'))
      expect(subnets.version).toBe('1.1.0')
      const installed = await client.installProvider(`${PUBLIC}/hashicorp/null`, '~> 3.2', 'darwin_arm64', join(work, 'client', 'providers'))
      expect(installed).toMatchObject({ version: '3.2.3', signedBy: key.keyId })
      const random = await client.installProvider(`${PUBLIC}/hashicorp/random`, '>= 3.5', 'linux_amd64', join(work, 'client', 'providers'))
      expect(random.version).toBe('3.6.0')
      await expect(client.installProvider(`${PUBLIC}/hashicorp/random`, '>= 3.5', 'windows_amd64', join(work, 'client', 'providers'))).rejects.toThrow()
    }, 60_000)

    it(`initializes the unmodified configuration with the real terraform and the air-gapped CLI configuration${NEEDS_TERRAFORM}`, async () => {
      if (!HAS_TERRAFORM) return
      const dir = join(work, 'real')
      await mkdir(join(dir, 'modules', 'tags'), { recursive: true })
      await writeFile(join(dir, 'modules', 'tags', 'main.tf'), CONFIGURATION['modules/tags/main.tf'])
      const { stdout, lock } = await initPublicProvider(offline, dir, join(work, 'real-terraform'), CONFIGURATION['main.tf'])
      expect(stdout).toContain('Downloading registry.terraform.io/pubnet/vpc/aws 2.1.0 for vpc...')
      expect(stdout).toContain('Downloading registry.terraform.io/pubnet/subnets/aws 1.1.0 for vpc.subnets...')
      expect(stdout).toContain(`- Installed hashicorp/null v3.2.3 (self-signed, key ID ${key.keyId})`)
      expect(stdout).toContain(`- Installed hashicorp/random v3.6.0 (self-signed, key ID ${key.keyId})`)
      expect(stdout).toContain('Terraform has been successfully initialized!')
      expect(lock).toContain(`provider "${PUBLIC}/hashicorp/random" {`)
    }, 180_000)

    afterAll(async () => {
      await offline?.close()
    })
  })
})
