import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { terraformCliConfig } from '../../src-main/shared/terraform-config.js'
import { makeSigningKey, providerRelease, publishProvider, type ProviderRelease, type SigningKey } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { TerraformClient, TerraformError } from '../helpers/terraform-client.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM, terraformInit, terraformLock } from '../helpers/terraform-binary.js'

/** A module that needs nothing but Homeport (a module calling the public registry is the air-gap issue's). */
const NETWORK = {
  'main.tf': 'variable "cidr" {\n  type    = string\n  default = "10.0.0.0/16"\n}\n\noutput "cidr" {\n  value = var.cidr\n}\n',
  'README.md': '# Network\n'
}
const HOST = 'homeport.localhost'
let test: TestServer
let work: string
let key: SigningKey
let release: ProviderRelease
let reader: { token: string }
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-providers-'))
  test = await startTestServer()
  await createOrganization(test, 'acme')
  key = await makeSigningKey()
  release = await providerRelease('widget', '0.1.0', ['linux_amd64', 'darwin_arm64'], key)
  await publishProvider(test, 'acme', release, key)
  await publish(test, 'acme', 'network', 'aws', '1.2.0', NETWORK)
  // A team that may only read: what Terraform's credentials should be.
  reader = await createTeamWithToken(test, 'acme', 'terraform-readers')
})
afterAll(async () => {
  await test.close()
  await rm(work, { recursive: true, force: true })
})

const client = () => new TerraformClient({ hosts: { [HOST]: { 'providers.v1': `${test.url}/api/registry/v1/providers/` } }, credentials: { [HOST]: reader.token } })

/** A configuration folder `name` holding `mainTf`, and the generated CLI configuration with the reader's token, for the real binary. */
async function configuration(name: string, mainTf: string): Promise<{ dir: string; env: { config: string; home: string } }> {
  const dir = join(work, name)
  const home = join(work, `${name}-home`)
  await mkdir(dir, { recursive: true })
  await mkdir(home, { recursive: true })
  const config = join(work, `${name}.tfrc`)
  await writeFile(config, terraformCliConfig({ hostname: HOST, serverUrl: test.url, token: reader.token }))
  await writeFile(join(dir, 'main.tf'), mainTf)
  return { dir, env: { config, home } }
}

/** `required_providers` naming one provider. */
const requires = (name: string, source: string, version: string) =>
  `terraform {\n  required_providers {\n    ${name} = {\n      source  = "${source}"\n      version = "${version}"\n    }\n  }\n}\n`

describe('installing a private provider as terraform init does', () => {
  it('verifies the checksums and the signature, and records every platform in the lock', async () => {
    const installed = await client().installProvider(`${HOST}/acme/widget`, '~> 0.1', 'linux_amd64', join(work, 'client'))
    expect(installed).toMatchObject({ version: '0.1.0', signedBy: key.keyId })
    expect(installed.hashes.filter((hash) => hash.startsWith('zh:')).sort()).toEqual([...release.zips.values()].map((zip) => `zh:${zip.shasum}`).sort())
    expect(installed.hashes.filter((hash) => hash.startsWith('h1:'))).toHaveLength(1)
    await expect(readFile(join(installed.dir, 'terraform-provider-widget_v0.1.0'), 'utf8')).resolves.toMatch(/^#!\/bin\/sh/)
  })

  it('fails as Terraform fails: no such provider, no such platform, no version in range', async () => {
    await expect(client().installProvider(`${HOST}/acme/nothing`, undefined, 'linux_amd64', join(work, 'x'))).rejects.toThrow(/does not have a provider named/)
    await expect(client().installProvider(`${HOST}/acme/widget`, undefined, 'windows_amd64', join(work, 'x'))).rejects.toThrow(/does not have a package available for your current platform, windows_amd64/)
    await expect(client().installProvider(`${HOST}/acme/widget`, '>= 1.0', 'linux_amd64', join(work, 'x'))).rejects.toBeInstanceOf(TerraformError)
  })
})

describe('installing a private provider over HTTPS', () => {
  it('discovers providers.v1 at the host itself and installs through Homeport’s own CA, without a host block', async () => {
    const secure = await startTestServer({ tls: true })
    try {
      await createOrganization(secure, 'acme')
      await publishProvider(secure, 'acme', release, key)
      // A source address naming Homeport's own host and port, as a configuration without a host block does.
      const host = new URL(secure.url).host
      const installed = await new TerraformClient({ hosts: {}, credentials: { [host]: secure.adminToken } }, secure.fetch).installProvider(`${host}/acme/widget`, '0.1.0', 'darwin_arm64', join(work, 'https'))
      expect(installed).toMatchObject({ version: '0.1.0', signedBy: key.keyId })
      expect(installed.hashes).toContain(`zh:${release.zips.get('terraform-provider-widget_0.1.0_darwin_arm64.zip')!.shasum}`)
      // Plain fetch, which trusts only the system's CAs, is refused as Terraform without SSL_CERT_FILE would be.
      await expect(new TerraformClient({ hosts: {}, credentials: { [host]: secure.adminToken } }).installProvider(`${host}/acme/widget`, '0.1.0', 'darwin_arm64', join(work, 'untrusted'))).rejects.toThrow(/fetch failed/)
    } finally {
      await secure.close()
    }
  })
})

describe('terraform init with the real binary', () => {
  it.skipIf(!HAS_TERRAFORM)(`installs a module and a private provider with the generated CLI configuration, the provider self-signed, every platform locked${NEEDS_TERRAFORM}`, async () => {
    const { dir, env } = await configuration('real', `${requires('widget', `${HOST}/acme/widget`, '~> 0.1')}\nmodule "network" {\n  source  = "${HOST}/acme/network/aws"\n  version = "~> 1.2"\n}\n`)
    const stdout = await terraformInit(dir, env)
    expect(stdout).toContain(`Downloading ${HOST}/acme/network/aws 1.2.0 for network...`)
    expect(stdout).toContain(`- Installed ${HOST}/acme/widget v0.1.0 (self-signed, key ID ${key.keyId})`)
    await expect(readFile(join(dir, '.terraform', 'modules', 'network', 'main.tf'), 'utf8')).resolves.toBe(NETWORK['main.tf'])
    const lock = await readFile(join(dir, '.terraform.lock.hcl'), 'utf8')
    expect(lock).toContain(`provider "${HOST}/acme/widget" {`)
    for (const zip of release.zips.values()) expect(lock).toContain(`"zh:${zip.shasum}"`)
    // Terraform's own h1: of the unpacked package is the one the suite's client computes.
    const installed = await client().installProvider(`${HOST}/acme/widget`, '~> 0.1', 'linux_amd64', join(work, 'compare'))
    expect(lock).toContain(`"${installed.hashes.find((hash) => hash.startsWith('h1:'))!}"`)
  }, 120_000)
})

describe('a deprecated private provider version', () => {
  let sunset: ProviderRelease
  beforeAll(async () => {
    sunset = await providerRelease('sunset', '1.0.0', ['linux_amd64'], key)
    await publishProvider(test, 'acme', sunset, key)
    const deprecated = await test.api('PATCH', '/organizations/acme/registry-providers/private/acme/sunset/versions/1.0.0', {
      body: doc('registry-provider-versions', { deprecation: { 'deprecated-status': 'Deprecated', reason: 'Sunset 1.x reaches its end of life in March; use 2.x.', link: null } })
    })
    expect(deprecated.status).toBe(200)
  })

  it('still installs, and the registry’s warning says why', async () => {
    const installed = await client().installProvider(`${HOST}/acme/sunset`, '~> 1.0', 'linux_amd64', join(work, 'sunset'))
    expect(installed.version).toBe('1.0.0')
    expect(installed.warnings).toEqual(['acme/sunset 1.0.0 is deprecated: Sunset 1.x reaches its end of life in March; use 2.x.'])
  })

  it.skipIf(!HAS_TERRAFORM)(`is named in terraform init's output, with its reason${NEEDS_TERRAFORM}`, async () => {
    const { dir, env } = await configuration('real-sunset', requires('sunset', `${HOST}/acme/sunset`, '~> 1.0'))
    const output = await terraformInit(dir, env)
    expect(output).toContain(`- Installed ${HOST}/acme/sunset v1.0.0`)
    // Terraform wraps its warnings at 78 columns.
    const unwrapped = output.replace(/\s+/g, ' ')
    expect(unwrapped).toContain(`Warning: Additional provider information from registry The remote registry returned warnings for ${HOST}/acme/sunset:`)
    expect(unwrapped).toContain('- acme/sunset 1.0.0 is deprecated: Sunset 1.x reaches its end of life in March; use 2.x.')
  }, 120_000)
})

describe('terraform providers lock for several platforms', () => {
  const configure = (name: string) => configuration(name, requires('widget', `${HOST}/acme/widget`, '~> 0.1'))

  it.skipIf(!HAS_TERRAFORM)(`writes an h1: and the zh: hashes for each platform Homeport has${NEEDS_TERRAFORM}`, async () => {
    const { dir, env } = await configure('lock-all')
    const { output, failed } = await terraformLock(dir, ['linux_amd64', 'darwin_arm64'], env)
    expect(failed, output).toBe(false)
    expect(output).toContain(`- Obtained ${HOST}/acme/widget checksums for linux_amd64`)
    expect(output).toContain(`- Obtained ${HOST}/acme/widget checksums for darwin_arm64`)
    const lock = await readFile(join(dir, '.terraform.lock.hcl'), 'utf8')
    expect(lock.match(/"h1:/g)).toHaveLength(2)
    for (const zip of release.zips.values()) expect(lock).toContain(`"zh:${zip.shasum}"`)
  }, 120_000)

  it.skipIf(!HAS_TERRAFORM)(`fails with Terraform's own message for a platform the release lacks${NEEDS_TERRAFORM}`, async () => {
    const { dir, env } = await configure('lock-missing')
    const { output, failed } = await terraformLock(dir, ['linux_amd64', 'windows_amd64'], env)
    expect(failed).toBe(true)
    const unwrapped = output.replace(/\s+/g, ' ')
    expect(unwrapped).toContain('Error: Could not retrieve providers for locking')
    expect(unwrapped).toContain(`provider ${HOST}/acme/widget 0.1.0 is not available for windows_amd64.`)
    expect(unwrapped).not.toMatch(/Internal Server Error|Service Unavailable|Bad Gateway/)
  }, 120_000)
})
