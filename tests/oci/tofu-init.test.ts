import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openTofuCliConfig, OPENTOFU_INSTALLS } from '../../src-main/shared/terraform-config.js'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { makeSigningKey, providerRelease, publishProvider } from '../helpers/providers.js'
import { createOrganization, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { HAS_TOFU, NEEDS_TOFU, tofuInit } from '../helpers/tofu-binary.js'

/**
 * An unmodified OpenTofu configuration initialising from Homeport each way the guide shows
 * (docs/guide/opentofu-and-oci.md), with the `.tofurc` `homeport terraform-config --opentofu` writes.
 * Only where a real `tofu` is on PATH.
 */
let test: TestServer
let work: string

beforeAll(async () => {
  if (!HAS_TOFU) return
  work = await mkdtemp(join(tmpdir(), 'homeport-tofu-'))
  test = await startTestServer({ tls: true })
  await createOrganization(test, 'acme')
  const key = await makeSigningKey()
  await publishProvider(test, 'acme', await providerRelease('widget', '0.3.0', ['linux_amd64', 'linux_arm64', 'darwin_arm64'], key), key)
  await publish(test, 'acme', 'network', 'aws', '1.2.0', NETWORK_MODULE)
}, 60_000)
afterAll(async () => {
  if (!HAS_TOFU) return
  await test.close()
  await rm(work, { recursive: true, force: true })
})

describe(`tofu init from Homeport${NEEDS_TOFU}`, () => {
  for (const { install } of OPENTOFU_INSTALLS) {
    it.skipIf(!HAS_TOFU)(`installs a private provider and module through the ${install} configuration`, async () => {
      const dir = join(work, install)
      const home = join(work, `${install}-home`)
      await mkdir(dir, { recursive: true })
      await mkdir(home, { recursive: true })
      const config = join(work, `${install}.tofurc`)
      await writeFile(config, openTofuCliConfig({ hostname: 'homeport.localhost', serverUrl: test.url, token: test.adminToken, install, airGapped: false }))
      const source = install === 'oci' ? `oci://${new URL(test.url).host}/modules/acme/network/aws?tag=1.2.0` : 'homeport.localhost/acme/network/aws'
      await writeFile(
        join(dir, 'main.tf'),
        `terraform {\n  required_providers {\n    widget = {\n      source = "homeport.localhost/acme/widget"\n    }\n  }\n}\n\nmodule "network" {\n  source = "${source}"${install === 'oci' ? '' : '\n  version = "~> 1.2"'}\n  cidr_block = "10.0.0.0/16"\n}\n`
      )
      const { output, failed } = await tofuInit(dir, { config, home, extra: { SSL_CERT_FILE: test.server.tls!.trustPath } })
      expect(failed, output).toBe(false)
      expect(output).toContain('Installed homeport.localhost/acme/widget v0.3.0')
      expect(await readFile(join(dir, '.terraform.lock.hcl'), 'utf8')).toContain('provider "homeport.localhost/acme/widget"')
    }, 120_000)
  }
})
