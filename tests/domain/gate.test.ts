import { describe, expect, it } from 'vitest'
import type { Caller } from '../../src-main/server/domain/core/access.js'
import { HeldByGateError } from '../../src-main/server/domain/core/errors.js'
import { decide, type ScopedPolicy } from '../../src-main/server/domain/gate/decide.js'
import { formatDuration, parseDuration } from '../../src-main/server/domain/gate/duration.js'
import { emptyPolicy, Gate } from '../../src-main/server/domain/gate/gate.js'
import { checkPattern, patternMatches, publicPackage, versionTest } from '../../src-main/server/domain/gate/packages.js'
import { ReleaseDates } from '../../src-main/server/domain/gate/release-dates.js'
import { AuditTrailService } from '../../src-main/server/domain/organizations/audit-trail.js'
import type { GatePolicyRecord, GateRuleRecord } from '../../src-main/server/store/records.js'
import { openMemoryStore } from '../../src-main/server/store/memory/memory-store.js'
import { ADMIN, domain } from './domain.js'

const AWS = publicPackage('provider', 'registry.terraform.io', 'hashicorp', 'aws')
const VPC = publicPackage('module', 'registry.terraform.io', 'terraform-aws-modules', 'vpc', 'aws')
const TOFU_NULL = publicPackage('provider', 'registry.opentofu.org', 'hashicorp', 'null')
const NOW = Date.parse('2026-11-28T12:00:00Z')
const DAY = 86_400_000

const rule = (effect: GateRuleRecord['effect'], pattern: string, versions = '', reason = 'because'): GateRuleRecord => ({ id: `gaterule-${effect}${pattern.length}`, effect, pattern, versions, reason, createdBy: 'the site admin', createdAt: '' })
const installation = (policy: Partial<GatePolicyRecord>): ScopedPolicy => ({ scope: 'installation', organizationId: null, policy: { ...emptyPolicy(null), ...policy } })
const organization = (policy: Partial<GatePolicyRecord>): ScopedPolicy => ({ scope: 'acme', organizationId: 'org-acme', policy: { ...emptyPolicy('org-acme'), ...policy } })
const seen = (publishedAt: string | null, firstSeenAt = new Date(NOW - DAY).toISOString()) => ({ sighting: { firstSeenAt, publishedAt }, requests: new Map() })

describe('durations', () => {
  it('reads 7d, 36h, 90m, 1w2d and 0, and writes them back', () => {
    expect([parseDuration('7d'), parseDuration('36h'), parseDuration('90m'), parseDuration('1w2d'), parseDuration('0'), parseDuration('off')]).toEqual([604_800, 129_600, 5_400, 777_600, 0, 0])
    expect([formatDuration(604_800), formatDuration(129_600), formatDuration(5_400), formatDuration(0)]).toEqual(['7d', '1d12h', '1h30m', '0'])
  })

  it('refuses what is not one, months, and more than a year', () => {
    for (const text of ['7 days', '7', '1mo', '-1d', 'd', '400d']) expect(() => parseDuration(text), text).toThrow()
  })
})

describe('address patterns and version ranges', () => {
  it('names a namespace, one package, or a registry, with * for any part', () => {
    expect(patternMatches(checkPattern('hashicorp/*'), AWS)).toBe(true)
    expect(patternMatches(checkPattern('hashicorp/*'), VPC)).toBe(false)
    expect(patternMatches(checkPattern('terraform-aws-modules/*'), VPC)).toBe(true)
    expect(patternMatches(checkPattern('terraform-aws-modules/vpc/aws'), VPC)).toBe(true)
    expect(patternMatches(checkPattern('Hashicorp/AWS'), AWS)).toBe(true)
    expect(patternMatches(checkPattern('registry.opentofu.org/*/*'), TOFU_NULL)).toBe(true)
    expect(patternMatches(checkPattern('registry.opentofu.org/*/*'), AWS)).toBe(false)
    expect(patternMatches(checkPattern('*/aws'), AWS)).toBe(true)
    // One copy served under both public names: a rule naming either holds it.
    expect(patternMatches(checkPattern('registry.opentofu.org/hashicorp/aws'), { ...AWS, aliases: ['registry.opentofu.org'] })).toBe(true)
    for (const bad of ['', 'a/b/c/d', '../x', 'https://x/y', 'a b/c']) expect(() => checkPattern(bad), bad).toThrow()
  })

  it('takes Terraform’s constraints, a prerelease within the range included', () => {
    const range = versionTest('>= 6.0.0, < 6.2.0')
    expect(['5.9.0', '6.0.0', '6.1.0-beta1', '6.1.9', '6.2.0'].map(range)).toEqual([false, true, true, true, false])
    expect(versionTest('~> 6.0')('6.9.0')).toBe(true)
    expect(versionTest('')('0.0.1-rc1')).toBe(true)
    expect(() => versionTest('latest')).toThrow()
  })
})

describe('the decision', () => {
  it('holds a version in its cooldown until it ends, counted from its publish time, else from when it was first seen', () => {
    const policies = [installation({ cooldownSeconds: 7 * 86_400 })]
    const young = decide(AWS, '6.1.0', policies, seen(new Date(NOW - 2 * DAY).toISOString()), NOW)
    expect(young).toMatchObject({ offered: false, verdict: 'cooldown', until: new Date(NOW + 5 * DAY).toISOString() })
    expect(young.reason).toMatch(/^in this Homeport's 7d cooldown: published 2026-11-26T12:00:00\.000Z, offered from 2026-12-03T12:00:00\.000Z$/)
    expect(decide(AWS, '6.0.0', policies, seen(new Date(NOW - 8 * DAY).toISOString()), NOW).offered).toBe(true)
    expect(decide(AWS, '6.2.0', policies, seen(null), NOW)).toMatchObject({ offered: false, until: new Date(NOW + 6 * DAY).toISOString() })
    // Never seen (no sighting at all): fails closed.
    expect(decide(AWS, '6.3.0', policies, { sighting: undefined, requests: new Map() }, NOW).offered).toBe(false)
  })

  it('blocks with the rule’s reason; a block wins over an exemption and an approval', () => {
    const policies = [installation({ cooldownSeconds: 7 * 86_400, rules: [rule('exempt', 'hashicorp/*'), rule('block', 'hashicorp/aws', '= 6.1.0', 'CVE-2026-1234')] })]
    const approved = { ...seen(null), requests: new Map([['installation', { status: 'approved', decidedBy: 'the site admin' } as never]]) }
    expect(decide(AWS, '6.1.0', policies, approved, NOW)).toMatchObject({ offered: false, verdict: 'blocked', reason: `blocked by this Homeport's rule "hashicorp/aws = 6.1.0": CVE-2026-1234` })
    expect(decide(AWS, '6.0.0', policies, seen(null), NOW)).toMatchObject({ offered: true, waived: `exempt by this Homeport's rule "hashicorp/*"` })
  })

  it('in allow-only mode, offers only what an allow rule names', () => {
    const policies = [organization({ allowOnly: true, rules: [rule('allow', 'hashicorp/*', '< 7.0.0')] })]
    expect(decide(AWS, '6.0.0', policies, seen(null), NOW).offered).toBe(true)
    expect(decide(AWS, '7.0.0', policies, seen(null), NOW)).toMatchObject({ offered: false, verdict: 'not-allowed', scope: 'acme' })
    expect(decide(VPC, '5.0.0', policies, seen(null), NOW).verdict).toBe('not-allowed')
  })

  it('waits for approval; an approval also waives that scope’s cooldown, a denial holds with its reason', () => {
    const policies = [organization({ approvals: true, cooldownSeconds: 30 * 86_400 })]
    expect(decide(AWS, '6.0.0', policies, seen(new Date(NOW - 60 * DAY).toISOString()), NOW).verdict).toBe('awaiting-approval')
    const decided = (status: string, reason = '') => ({ ...seen(null), requests: new Map([['org-acme', { status, reason, decidedBy: 'team owners' } as never]]) })
    expect(decide(AWS, '6.0.0', policies, decided('approved'), NOW)).toMatchObject({ offered: true, waived: 'approved by team owners of organization acme' })
    expect(decide(AWS, '6.0.0', policies, decided('denied', 'breaks state'), NOW)).toMatchObject({ offered: false, verdict: 'denied', reason: 'denied by team owners of organization acme: breaks state' })
  })

  it('an organization adds to the installation’s policy and cannot undo it', () => {
    const policies = [installation({ cooldownSeconds: 7 * 86_400 }), organization({ rules: [rule('exempt', 'hashicorp/*')] })]
    // The organization's exemption is its own: the installation's cooldown still holds.
    expect(decide(AWS, '6.1.0', policies, seen(new Date(NOW - DAY).toISOString()), NOW)).toMatchObject({ offered: false, scope: 'installation' })
  })

  it('a report-only policy offers what it would hold, and says so', () => {
    const policies = [installation({ reportOnly: true, rules: [rule('block', 'hashicorp/*')] })]
    expect(decide(AWS, '6.1.0', policies, seen(null), NOW)).toMatchObject({ offered: true, reported: true, verdict: 'blocked' })
    // An enforcing scope after it still holds.
    expect(decide(AWS, '6.1.0', [...policies, organization({ rules: [rule('block', 'hashicorp/aws')] })], seen(null), NOW)).toMatchObject({ offered: false, scope: 'acme' })
  })
})

describe('the gate over the store', () => {
  const setup = async (cooldownSeconds = 7 * 86_400) => {
    let now = NOW
    const store = await openMemoryStore()
    const clock = () => now
    const dates = new ReleaseDates(store, clock)
    const gate = new Gate(store, dates, new AuditTrailService(store, clock), { cooldownSeconds, clock })
    return { store, gate, dates, later: (ms: number) => (now += ms) }
  }
  const admin: Caller = { kind: 'site-admin' }

  it('believes a publish time from the upstream only between Terraform’s first release and now', async () => {
    const { gate, dates } = await setup()
    const times = new Map(Object.entries({ '1.0.0': '2026-11-01T00:00:00Z', '1.1.0': '2030-01-01T00:00:00Z', '1.2.0': '1999-01-01T00:00:00Z', '1.3.0': 'yesterday' }).map(([version, publishedAt]) => [version, { publishedAt }]))
    const decisions = await gate.decisions({ caller: admin, organizationIds: [] }, AWS, ['1.0.0', '1.1.0', '1.2.0', '1.3.0'], () => Promise.resolve(times))
    expect(decisions.map((decision) => decision.offered)).toEqual([true, false, false, false])
    expect(Object.values(await dates.known(AWS)).map((sighting) => sighting.publishedAt)).toEqual(['2026-11-01T00:00:00.000Z', null, null, null])
  })

  it('asks the upstream for publish times once per new version; a cooldown ends by itself', async () => {
    const { gate, later } = await setup()
    const asked: string[][] = []
    const lookup = (versions: string[]) => (asked.push(versions), Promise.resolve(new Map()))
    const context = { caller: admin, organizationIds: [] }
    await expect(gate.check(context, AWS, '2.0.0', lookup)).rejects.toBeInstanceOf(HeldByGateError)
    await gate.decisions(context, AWS, ['2.0.0', '2.1.0'], lookup)
    expect(asked).toEqual([['2.0.0'], ['2.1.0']])
    later(7 * DAY)
    expect((await gate.check(context, AWS, '2.0.0', lookup)).offered).toBe(true)
  })

  it('counts a version kept here before the gate saw it (mirrored, imported; offline: no publish time) as seen since then', async () => {
    const { gate } = await setup()
    const kept = new Map([['5.0.0', { keptSince: new Date(NOW - 30 * DAY).toISOString() }], ['5.1.0', { keptSince: new Date(NOW - DAY).toISOString() }]])
    const decisions = await gate.decisions({ caller: admin, organizationIds: [] }, VPC, ['5.0.0', '5.1.0', '5.2.0'], () => Promise.resolve(kept))
    expect(decisions.map((decision) => [decision.version, decision.offered])).toEqual([['5.0.0', true], ['5.1.0', false], ['5.2.0', false]])
  })

  it('keeps the first digest of a version and refuses another', async () => {
    const { dates } = await setup()
    expect(await dates.canonical(VPC, '5.0.0', 'a'.repeat(64))).toEqual({ ok: true })
    expect(await dates.canonical(VPC, '5.0.0', 'a'.repeat(64))).toEqual({ ok: true })
    expect(await dates.canonical(VPC, '5.0.0', 'b'.repeat(64))).toEqual({ ok: false, kept: 'a'.repeat(64) })
    expect((await dates.known(VPC))['5.0.0']).toMatchObject({ digest: 'a'.repeat(64), refusedDigest: 'b'.repeat(64) })
  })

  it('queues the newest version waiting for approval, once per requester', async () => {
    const { store, gate } = await setup(0)
    await store.gatePolicies.create({ ...emptyPolicy(null), approvals: true })
    for (let i = 0; i < 3; i++) await gate.decisions({ caller: admin, organizationIds: [] }, AWS, ['6.0.0', '6.1.0'])
    const requests = await store.gateRequests.all()
    expect(requests.map((request) => [request.version, request.status, request.requesters.map((requester) => requester.who)])).toEqual([['6.1.0', 'pending', ['the site admin']]])
  })

  it('holds a version a person denied, in a scope that has set nothing else', async () => {
    const d = await domain()
    try {
      await d.services.organizations.create(ADMIN, { name: 'acme', email: 'ops@example.com' })
      const owners = await d.owners('acme')
      await d.services.gatePolicies.decide(owners, 'acme', VPC, '5.1.0', 'denied', 'breaks our state')
      const org = (await d.services.organizations.read(ADMIN, 'acme')).id
      const decisions = await d.services.gate.decisions({ caller: owners, organizationIds: [org] }, VPC, ['5.0.0', '5.1.0'])
      expect(decisions.map((decision) => [decision.version, decision.offered])).toEqual([['5.0.0', true], ['5.1.0', false]])
      expect(decisions[1]!.reason).toMatch(/^denied by team owners of organization acme: breaks our state$/)
      // Another organization's reads are not its business.
      expect((await d.services.gate.decisions({ caller: ADMIN, organizationIds: [] }, VPC, ['5.1.0']))[0]!.offered).toBe(true)
    } finally {
      await d.close()
    }
  })
})
