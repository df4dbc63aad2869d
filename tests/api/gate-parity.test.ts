import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Caller } from '../../src-main/server/domain/core/access.js'
import { providerRelease, publishProvider, startPublicUpstream } from '../helpers/providers.js'
import { createModule, createOrganization, createTeamWithToken, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { ociRequest } from '../helpers/oci.js'
import { eventually } from '../helpers/eventually.js'

/**
 * The gate decides once, and every face agrees (the bug class of curation.md §3, a block list
 * bypassed through another face): one set of upstream versions × one policy at a time × every face
 * that lists or fetches a public provider or module → the same versions offered, and the same 404s.
 * The upstream is a second Homeport; Homeport's clock is the test's, so a cooldown ends without waiting.
 */
const VERSIONS = ['1.0.0', '1.1.0', '1.2.0']
const DAY = 86_400_000
let upstream: TestServer
let homeport: TestServer
let now = Date.now()
let team: { id: string; token: string }
let caller: Caller

const MODULE = 'hashicorp/consul/aws'
const MODULES = '/api/registry/public/v1/modules'
const PROVIDERS = '/api/registry/public/v1/providers'
const MIRROR = '/api/registry/provider-mirror/v1/registry.terraform.io'

beforeAll(async () => {
  const started = await startPublicUpstream()
  upstream = started.upstream
  for (const version of VERSIONS) {
    await publishProvider(upstream, 'hashicorp', await providerRelease('null', version, ['linux_amd64'], started.key), started.key)
    await publish(upstream, 'hashicorp', 'consul', 'aws', version, { 'main.tf': `output "version" {\n  value = "${version}"\n}\n` })
  }
  homeport = await startTestServer({ upstream: upstream.url, upstreamToken: upstream.adminToken, upstreamMaxAgeMs: 0, clock: () => now })
  await createOrganization(homeport, 'acme')
  await createModule(homeport, 'acme', 'consul', 'aws', { 'registry-name': 'public', namespace: 'hashicorp' })
  team = await createTeamWithToken(homeport, 'acme', 'platform')
  caller = (await homeport.server.services.authenticator.authenticate(team.token))!
  // Everything mirrored before any policy: the faces that serve only what is here have it all.
  for (const version of VERSIONS) {
    expect((await homeport.api('GET', `${PROVIDERS}/hashicorp/null/${version}/download/linux/amd64`)).status).toBe(200)
    expect((await homeport.api('POST', `/organizations/acme/registry-modules/public/${MODULE}/mirror`, { body: doc('registry-module-versions', { version }) })).status).toBe(201)
  }
  await eventually(async () => {
    const read = await homeport.api('GET', `/organizations/acme/registry-modules/public/${MODULE}`)
    expect(read.body.data.attributes['version-statuses'].map((entry: { status: string }) => entry.status)).toEqual(['ok', 'ok', 'ok'])
  })
}, 120_000)
afterAll(async () => {
  await homeport.close()
  await upstream.close()
})

const sorted = (versions: string[]) => [...versions].sort()
const get = (path: string) => homeport.api('GET', path, { token: team.token })

/** What each face offers the team of `acme`, provider and module alike. */
async function offeredOnEveryFace(): Promise<Record<string, string[]>> {
  const services = homeport.server.services
  const tags = async (repository: string) => ((await ociRequest(homeport, `/v2/${repository}/tags/list`, { token: team.token })).json() as { tags: string[] }).tags.filter((tag) => tag !== 'latest')
  return {
    'providers.v1 versions': (await get(`${PROVIDERS}/hashicorp/null/versions`)).body.versions.map((entry: { version: string }) => entry.version),
    'network mirror index.json': Object.keys((await get(`${MIRROR}/hashicorp/null/index.json`)).body.versions),
    'OCI provider tags': await tags('providers/registry.terraform.io/hashicorp/null'),
    'MCP providers': (await services.providerCatalog.find(caller, 'registry.terraform.io/hashicorp/null').then((entry) => entry.versions.map((version) => version.version)).catch(() => [])),
    'modules.v1 versions': (await get(`${MODULES}/${MODULE}/versions`)).body.modules[0].versions.map((entry: { version: string }) => entry.version),
    'modules.v1 latest': [(await get(`${MODULES}/${MODULE}`)).body.version].filter(Boolean),
    'OCI module tags': await tags(`modules/registry.terraform.io/${MODULE}`),
    'MCP modules': (await services.moduleCatalog.entries(caller)).find((entry) => entry.address === MODULE)?.versions.map((version) => version.version) ?? [],
    'bundles': await services.publicMirrors.terraform.modules.installableVersions(caller, 'hashicorp', 'consul', 'aws').catch(() => [])
  }
}

/** Each direct fetch of a version, by face: its HTTP status. */
async function fetchedOnEveryFace(version: string): Promise<Record<string, number>> {
  return {
    'providers.v1 download': (await get(`${PROVIDERS}/hashicorp/null/${version}/download/linux/amd64`)).status,
    'network mirror <version>.json': (await get(`${MIRROR}/hashicorp/null/${version}.json`)).status,
    'OCI provider manifest': (await ociRequest(homeport, `/v2/providers/registry.terraform.io/hashicorp/null/manifests/${version}`, { token: team.token })).status,
    'modules.v1 version': (await get(`${MODULES}/${MODULE}/${version}`)).status,
    'modules.v1 download': (await get(`${MODULES}/${MODULE}/${version}/download`)).status,
    'OCI module manifest': (await ociRequest(homeport, `/v2/modules/registry.terraform.io/${MODULE}/manifests/${version}`, { token: team.token })).status
  }
}

/** Sets a scope's policy (the installation's, or acme's) through the API, as the site admin. */
async function setPolicy(scope: 'admin' | 'acme', settings: Record<string, unknown>, rules: Array<Record<string, string>> = []) {
  const base = scope === 'admin' ? '/admin/gate' : '/organizations/acme/gate'
  const patched = await homeport.api('PATCH', `${base}/policy`, { body: doc('gate-policies', settings) })
  expect(patched.status, JSON.stringify(patched.body)).toBe(200)
  for (const rule of rules) expect((await homeport.api('POST', `${base}/policy/rules`, { body: doc('gate-rules', rule) })).status).toBe(201)
}

/** Back to no policy at all, and no decisions. */
async function reset() {
  for (const base of ['/admin/gate', '/organizations/acme/gate']) {
    const policy = await homeport.api('GET', `${base}/policy`)
    for (const rule of policy.body.data.attributes.rules) await homeport.api('DELETE', `${base}/policy/rules/${rule.id}`)
    await homeport.api('PATCH', `${base}/policy`, { body: doc('gate-policies', { cooldown: '0', 'allow-only': false, approvals: false, 'report-only': false }) })
  }
  const store = homeport.server.services.store
  for (const request of await store.gateRequests.all()) await store.gateRequests.delete(request.id)
  for (const sighting of await store.releaseSightings.all()) await store.releaseSightings.delete(sighting.id)
  now = Date.now()
}

interface Scenario {
  name: string
  arrange(): Promise<void>
  offered: string[]
}

const SCENARIOS: Scenario[] = [
  { name: 'no policy', arrange: () => Promise.resolve(), offered: VERSIONS },
  {
    name: 'the installation blocks >= 1.2.0 of hashicorp/*',
    arrange: () => setPolicy('admin', {}, [{ effect: 'block', pattern: 'hashicorp/*', versions: '>= 1.2.0', reason: 'CVE-2026-0001' }]),
    offered: ['1.0.0', '1.1.0']
  },
  {
    name: 'the organization lets in only < 1.1.0',
    arrange: () =>
      setPolicy('acme', { 'allow-only': true }, [
        { effect: 'allow', pattern: 'registry.terraform.io/hashicorp/null', versions: '< 1.1.0' },
        { effect: 'allow', pattern: 'hashicorp/consul/aws', versions: '< 1.1.0' }
      ]),
    offered: ['1.0.0']
  },
  {
    name: 'a 7-day cooldown, every version first seen now, 1.0.0 waived',
    arrange: () => setPolicy('admin', { cooldown: '7d' }, [{ effect: 'exempt', pattern: 'hashicorp/*', versions: '= 1.0.0' }]),
    offered: ['1.0.0']
  },
  {
    name: 'the same cooldown, eight days later',
    arrange: async () => {
      await setPolicy('admin', { cooldown: '7d' })
      await offeredOnEveryFace()
      now += 8 * DAY
    },
    offered: VERSIONS
  },
  {
    name: 'the organization approves each version; 1.1.0 approved, 1.2.0 denied',
    arrange: async () => {
      await setPolicy('acme', { approvals: true })
      for (const [kind, name] of [['provider', 'registry.terraform.io/hashicorp/null'], ['module', `registry.terraform.io/${MODULE}`]]) {
        const approve = await homeport.api('POST', '/organizations/acme/gate/requests', { body: doc('gate-requests', { kind, package: name, version: '1.1.0', status: 'approved' }) })
        expect(approve.status, JSON.stringify(approve.body)).toBe(201)
        const deny = await homeport.api('POST', '/organizations/acme/gate/requests', { body: doc('gate-requests', { kind, package: name, version: '1.2.0', status: 'denied', reason: 'breaks our state' }) })
        expect(deny.status).toBe(201)
      }
    },
    offered: ['1.1.0']
  },
  {
    name: 'a report-only block',
    arrange: () => setPolicy('admin', { 'report-only': true }, [{ effect: 'block', pattern: 'hashicorp/*', reason: 'trying it out' }]),
    offered: VERSIONS
  }
]

describe('the gate, on every face', () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: every face offers ${scenario.offered.join(', ')}`, async () => {
      await reset()
      await scenario.arrange()
      const faces = await offeredOnEveryFace()
      const expected = Object.fromEntries(Object.keys(faces).map((face) => [face, face === 'modules.v1 latest' ? [scenario.offered.at(-1)] : sorted(scenario.offered)]))
      expect(Object.fromEntries(Object.entries(faces).map(([face, versions]) => [face, sorted(versions)]))).toEqual(expected)
      for (const version of VERSIONS) {
        const fetched = await fetchedOnEveryFace(version)
        const status = scenario.offered.includes(version) ? 200 : 404
        expect(fetched, `${version}`).toEqual(Object.fromEntries(Object.keys(fetched).map((face) => [face, face === 'modules.v1 download' && status === 200 ? 204 : status])))
      }
    }, 60_000)
  }

  it('says why: the rule in a 404, and the providers.v1 list’s warnings, which Terraform prints', async () => {
    await reset()
    await setPolicy('admin', { cooldown: '7d' }, [{ effect: 'block', pattern: 'hashicorp/null', versions: '= 1.2.0', reason: 'CVE-2026-0001' }])
    const list = await get(`${PROVIDERS}/hashicorp/null/versions`)
    expect(list.body.warnings).toEqual([
      expect.stringMatching(/^Homeport holds back registry\.terraform\.io\/hashicorp\/null 1\.2\.0: blocked by this Homeport's rule "hashicorp\/null = 1\.2\.0": CVE-2026-0001\.$/),
      expect.stringMatching(/^Homeport holds back registry\.terraform\.io\/hashicorp\/null 1\.1\.0: in this Homeport's 7d cooldown: first seen here .*, offered from /),
      expect.stringMatching(/1\.0\.0: in this Homeport's 7d cooldown/)
    ])
    const held = await get(`${PROVIDERS}/hashicorp/null/1.1.0/download/linux/amd64`)
    expect(held.status).toBe(404)
    expect(held.body.errors[0]).toMatch(/is not offered here: in this Homeport's 7d cooldown: .*offered from \d{4}-/)
    const api = await homeport.api('GET', `${MODULES}/${MODULE}/1.2.0`, { token: team.token })
    expect(api.status).toBe(404)
    const index = await get(`${MIRROR}/hashicorp/null/1.2.0.json`)
    expect(index.status).toBe(404)
    expect(index.body.errors[0]).toMatch(/1\.2\.0 is not offered here: blocked by this Homeport's rule "hashicorp\/null = 1\.2\.0": CVE-2026-0001/)
  })

  it('records every decision in the audit trail, a report-only one as what it would have done', async () => {
    await reset()
    await setPolicy('admin', { 'report-only': true }, [{ effect: 'block', pattern: 'hashicorp/consul/aws', versions: '= 1.1.0', reason: 'trial' }])
    await offeredOnEveryFace()
    const events = await homeport.server.services.store.auditTrail.all()
    const decisions = events.filter((event) => event.resource.type === 'upstream-version').map((event) => `${event.action} ${event.resource.name}`)
    expect(decisions).toContainEqual(expect.stringMatching(/^would be blocked registry\.terraform\.io\/hashicorp\/consul\/aws 1\.1\.0: blocked by this Homeport's rule/))
  })

  it('an organization can lengthen the installation’s cooldown, never shorten it; only owners and the site admin set it', async () => {
    await reset()
    await setPolicy('admin', { cooldown: '7d' })
    const shorter = await homeport.api('PATCH', '/organizations/acme/gate/policy', { body: doc('gate-policies', { cooldown: '3d' }) })
    expect(shorter.status).toBe(422)
    expect(shorter.body.errors[0].detail).toMatch(/holds every version for 7d already/)
    expect((await homeport.api('PATCH', '/organizations/acme/gate/policy', { body: doc('gate-policies', { cooldown: '14d' }) })).status).toBe(200)
    const byTeam = await homeport.api('PATCH', '/organizations/acme/gate/policy', { body: doc('gate-policies', { cooldown: '30d' }), token: team.token })
    expect(byTeam.status).toBe(404)
    expect((await homeport.api('PATCH', '/admin/gate/policy', { body: doc('gate-policies', { cooldown: '1d' }), token: team.token })).status).toBe(403)
    expect((await homeport.api('PATCH', '/admin/gate/policy', { body: doc('gate-policies', { cooldown: '7 days' }) })).status).toBe(422)
  })

  it('a bundle carries only what the gate offers: the newest allowed version, and a problem for a held exact one', async () => {
    await reset()
    await setPolicy('admin', {}, [{ effect: 'block', pattern: 'hashicorp/*', versions: '= 1.2.0', reason: 'CVE-2026-0001' }])
    const make = async (attributes: Record<string, unknown>) => {
      const started = await homeport.api('POST', '/bundles', { body: doc('bundles', { organization: 'acme', platforms: ['linux_amd64'], ...attributes }) })
      expect(started.status, JSON.stringify(started.body)).toBe(202)
      return eventually(async () => {
        const job = await homeport.api('GET', `/bundles/${started.body.data.id}`)
        if (!['ready', 'failed'].includes(job.body.data.attributes.status)) throw new Error(`the bundle did not finish (${job.body.data.attributes.status})`)
        return job.body.data.attributes
      })
    }
    const ranged = await make({ modules: [{ source: `registry.terraform.io/${MODULE}`, version: '>= 1.0.0' }], providers: [{ source: 'registry.terraform.io/hashicorp/null', version: '>= 1.0.0' }] })
    expect(ranged.problems).toEqual([])
    expect(ranged.manifest.modules.map((module: { version: string }) => module.version)).toEqual(['1.1.0'])
    expect(ranged.manifest.providers.map((provider: { version: string }) => provider.version)).toEqual(['1.1.0'])
    const pinned = await make({ providers: [{ source: 'registry.terraform.io/hashicorp/null', version: '= 1.2.0' }] })
    expect(pinned.problems).toEqual([expect.objectContaining({ reason: expect.stringMatching(/no version meets "= 1\.2\.0"; available: 1\.1\.0, 1\.0\.0|available: 1\.0\.0, 1\.1\.0/) })])
  })

  it('keeps the first archive of an upstream version: a re-tag upstream is refused, recorded, and never served', async () => {
    await reset()
    await publish(upstream, 'hashicorp', 'retag', 'aws', '1.0.0', { 'main.tf': 'output "first" {\n  value = true\n}\n' })
    await createModule(homeport, 'acme', 'retag', 'aws', { 'registry-name': 'public', namespace: 'hashicorp' })
    const mirror = () => homeport.api('POST', '/organizations/acme/registry-modules/public/hashicorp/retag/aws/mirror', { body: doc('registry-module-versions', { version: '1.0.0' }) })
    expect((await mirror()).status).toBe(201)
    await eventually(async () => {
      const read = await homeport.api('GET', '/organizations/acme/registry-modules/public/hashicorp/retag/aws')
      expect(read.body.data.attributes['version-statuses'][0].status).toBe('ok')
    })
    // Upstream moves the tag: the same version, other bytes.
    const gone = await upstream.api('DELETE', '/organizations/hashicorp/registry-modules/private/hashicorp/retag/aws/1.0.0')
    expect(gone.status, JSON.stringify(gone.body)).toBe(204)
    await publish(upstream, 'hashicorp', 'retag', 'aws', '1.0.0', { 'main.tf': 'output "second" {\n  value = "changed"\n}\n' })
    // Here, the curation is dropped and made again (the only way a mirrored version goes): the version's first archive is still on record.
    expect((await homeport.api('DELETE', '/organizations/acme/registry-modules/public/hashicorp/retag')).status).toBe(204)
    await createModule(homeport, 'acme', 'retag', 'aws', { 'registry-name': 'public', namespace: 'hashicorp' })
    const again = await mirror()
    expect(again.status).toBe(409)
    expect(again.body.errors[0].detail).toMatch(/now serves a different archive for registry\.terraform\.io\/hashicorp\/retag\/aws 1\.0\.0 .*keeps what it first fetched/)
    const events = await homeport.server.services.store.auditTrail.all()
    expect(events.filter((event) => event.action === 'refuse re-tag').map((event) => event.resource.name)).toContain('registry.terraform.io/hashicorp/retag/aws 1.0.0')
  })
})
