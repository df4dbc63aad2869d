import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { providerRelease, publishProvider, type SigningKey, startPublicUpstream } from '../helpers/providers.js'
import { doc, startTestServer, type TestServer } from '../helpers/server.js'
import { publicMirrorClient } from '../helpers/terraform-client.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM, initPublicProvider } from '../helpers/terraform-binary.js'

/**
 * A mirror whose upstream is gone offers exactly what it holds, at once, with the upstream's answers
 * still in its cache (the default five minutes, and on disk across a restart): Terraform never
 * picks a version or a platform it could not install.
 */
const PUBLIC = 'registry.terraform.io'
let upstream: TestServer
let homeport: TestServer
let work: string
let key: SigningKey

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-offline-mirror-'))
  const started = await startPublicUpstream()
  upstream = started.upstream
  key = started.key
  await publishProvider(upstream, 'hashicorp', await providerRelease('null', '3.2.3', ['linux_amd64', 'darwin_arm64'], key), key)
  await publishProvider(upstream, 'hashicorp', await providerRelease('null', '3.3.0', ['linux_amd64', 'darwin_arm64'], key), key)
  // The upstream's answers are cached for the default five minutes.
  homeport = await startTestServer({ upstream: upstream.url, upstreamToken: upstream.adminToken })
})
afterAll(async () => {
  await homeport.close()
  await upstream.close().catch(() => undefined)
  await rm(work, { recursive: true, force: true })
})

const client = () => publicMirrorClient(homeport)

async function offered(): Promise<Array<{ version: string; platforms: string[] }>> {
  const answer = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/versions')
  expect(answer.status).toBe(200)
  return (answer.body.versions as Array<{ version: string; platforms: Array<{ os: string; arch: string }> }>).map((entry) => ({
    version: entry.version,
    platforms: entry.platforms.map((platform) => `${platform.os}_${platform.arch}`).sort()
  }))
}

describe('a mirror whose upstream is gone', () => {
  it('offers the upstream’s versions while it answers, and only what is mirrored once it does not, at once and after a restart', async () => {
    expect((await offered()).map((entry) => entry.version).sort()).toEqual(['3.2.3', '3.3.0'])
    const mirrored = await homeport.api('POST', '/admin/provider-mirror', { body: doc('provider-mirrors', { source: 'hashicorp/null', versions: '3.2.3', platforms: ['linux_amd64'] }) })
    expect(mirrored.status).toBe(201)

    await upstream.close()
    const started = Date.now()
    expect(await offered()).toEqual([{ version: '3.2.3', platforms: ['linux_amd64'] }])
    // Known to be out of reach: the next answers do not wait for it again.
    expect(await offered()).toEqual([{ version: '3.2.3', platforms: ['linux_amd64'] }])
    expect(Date.now() - started).toBeLessThan(5000)

    const installed = await client().installProvider(`${PUBLIC}/hashicorp/null`, '~> 3.2', 'linux_amd64', join(work, 'offline'))
    expect(installed.version).toBe('3.2.3')
    await expect(client().installProvider(`${PUBLIC}/hashicorp/null`, '3.3.0', 'linux_amd64', join(work, 'pinned'))).rejects.toThrow(/no available releases match the given constraints 3\.3\.0/)
    // A platform never mirrored is not listed; asked for anyway, it is missing (Terraform: "not available for darwin_arm64"), and the answer says why.
    const other = await homeport.api('GET', '/api/registry/public/v1/providers/hashicorp/null/3.2.3/download/darwin/arm64')
    expect(other.status).toBe(404)
    expect(other.body.errors[0]).toMatch(/has no package for darwin_arm64 here, and the upstream registry cannot be reached: offline, only mirrored platforms are offered\.$/)

    // The upstream's answers are still in the cache on disk: they do not widen the list after a restart either.
    await homeport.restart()
    expect(await offered()).toEqual([{ version: '3.2.3', platforms: ['linux_amd64'] }])
  })

  it.skipIf(!HAS_TERRAFORM)(`installs the mirrored version with the real terraform and an unmodified configuration, offline${NEEDS_TERRAFORM}`, async () => {
    const { stdout, lock } = await initPublicProvider(homeport, join(work, 'config'), join(work, 'terraform'))
    expect(stdout).toMatch(/Installed hashicorp\/null v3\.2\.3/)
    expect(lock).toMatch(/version\s+= "3\.2\.3"/)
  }, 120_000)
})
