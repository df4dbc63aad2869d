/**
 * Renovate's own lock-file code against a real Homeport: a private provider for three platforms is
 * published, then Renovate's TerraformProviderHash (what refreshes `.terraform.lock.hcl` in its pull
 * requests) computes the hashes through Homeport's registry protocol, with a token and without.
 * Renovate is not a dependency of Homeport (it is hundreds of packages), so this is run by hand:
 *
 *   npm install --prefix /tmp/renovate renovate@39
 *   RENOVATE_DIR=/tmp/renovate/node_modules npx tsx scripts/check-renovate.ts
 *
 * It exits non-zero when Renovate's hashes differ from Terraform's, or when it gets them without a token.
 */
import { createRequire } from 'node:module'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { unzipSync } from 'fflate'
import { makeSigningKey, providerRelease, publishProvider } from '../tests/helpers/providers.js'
import { createOrganization, startTestServer } from '../tests/helpers/server.js'
import { dirHash } from '../tests/helpers/terraform-client.js'

const renovateDir = process.env.RENOVATE_DIR
if (!renovateDir) {
  console.error('Set RENOVATE_DIR to the node_modules folder Renovate is installed in (see the comment at the top of this file).')
  process.exit(2)
}
const require = createRequire(join(renovateDir, '/'))
const hostRules = require('renovate/dist/util/host-rules') as { add(rule: { matchHost: string; token: string }): void; clear(): void }
const { GlobalConfig } = require('renovate/dist/config/global') as { GlobalConfig: { set(config: { cacheDir: string }): void } }
const { TerraformProviderHash } = require('renovate/dist/modules/manager/terraform/lockfile/hash') as {
  TerraformProviderHash: { createHashes(registryUrl: string, repository: string, version: string): Promise<string[] | null> }
}

const cacheDir = await mkdtemp(join(tmpdir(), 'homeport-renovate-'))
const test = await startTestServer()
try {
  await createOrganization(test, 'acme')
  const key = await makeSigningKey()
  const release = await providerRelease('widget', '0.1.0', ['linux_amd64', 'darwin_arm64', 'windows_amd64'], key)
  await publishProvider(test, 'acme', release, key)
  GlobalConfig.set({ cacheDir })
  hostRules.add({ matchHost: test.url, token: test.adminToken })
  const hashes = await TerraformProviderHash.createHashes(test.url, 'acme/widget', '0.1.0')
  const zips = [...release.zips.values()]
  const expected = [...zips.map((zip) => dirHash(unzipSync(new Uint8Array(zip.bytes)))), ...zips.map((zip) => `zh:${zip.shasum}`)].sort()
  const same = JSON.stringify(hashes) === JSON.stringify(expected)
  console.log(same ? `Renovate's lock-file hashes are Terraform's: ${hashes!.join(', ')}` : `Renovate's hashes differ:\n  got      ${JSON.stringify(hashes)}\n  expected ${JSON.stringify(expected)}`)
  hostRules.clear()
  const anonymous = await TerraformProviderHash.createHashes(test.url, 'acme/widget', '0.1.0').then(
    () => 'answered',
    (error: Error) => error.message
  )
  console.log(`Without a token: ${anonymous}`)
  process.exitCode = !same || anonymous === 'answered' ? 1 : 0
} finally {
  await test.close()
  await rm(test.dataDir, { recursive: true, force: true })
  await rm(cacheDir, { recursive: true, force: true })
}
