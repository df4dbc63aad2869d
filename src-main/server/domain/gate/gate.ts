import semver from 'semver'
import type { GatePolicyRecord, GateRequestRecord, OrganizationRecord, ReleaseSighting } from '../../store/records.js'
import { GATE_PACKAGE, type Store } from '../../store/port.js'
import { UniqueConstraintError } from '../../store/errors.js'
import { Lru } from '../../../shared/lru.js'
import { callerKey, callerOrganizations, describeCaller, type Caller } from '../core/access.js'
import { HeldByGateError } from '../core/errors.js'
import { newId } from '../core/ids.js'
import type { AuditTrailService } from '../organizations/audit-trail.js'
import { decide, OFFERED, type Decision, type ScopedPolicy } from './decide.js'
import { packageKey, packageName, type PublicPackage } from './packages.js'
import type { PublishTimes, ReleaseDates } from './release-dates.js'
import { newestFirst, newestVersionsFirst } from '../core/newest-first.js'

/** The id of a scope's policy record: `gate-installation`, or `gate-org…` (a store id has one dash). */
export function policyId(organizationId: string | null): string {
  return `gate-${(organizationId ?? 'installation').replace('-', '')}`
}

/** A policy that holds nothing, for a scope that has set none. */
export function emptyPolicy(organizationId: string | null): GatePolicyRecord {
  return { id: policyId(organizationId), organizationId, cooldownSeconds: 0, allowOnly: false, approvals: false, reportOnly: false, rules: [], updatedAt: new Date(0).toISOString() }
}

/** Whether a policy can hold anything back (or let anything past another's hold): its settings, its rules, or people's decisions. */
function inForce(policy: GatePolicyRecord): boolean {
  return policy.cooldownSeconds > 0 || policy.allowOnly || policy.approvals || policy.rules.length > 0 || policy.hasDecisions === true
}

/** How many held versions a providers.v1 list names in its warnings (Terraform prints each on every init). */
const MAX_WARNINGS = 5
/** The most requesters a request keeps (the latest). */
const MAX_REQUESTERS = 5

/**
 * Where a decision is asked from: the organizations whose policies apply on top of the installation's
 * (none for the installation's alone). A version is offered only where every one of them offers it.
 */
export interface GateContext {
  caller: Caller
  organizationIds: readonly string[]
}

/**
 * The organizations whose policies apply to a caller's reads of public providers: its token's; every
 * one a person has a team in, so that no organization's gate is passed by reading as a person of two
 * (none for the site admin).
 */
export function callerScope(caller: Caller): GateContext {
  return { caller, organizationIds: callerOrganizations(caller) }
}

export interface GateOptions {
  /** The installation's floor (`--cooldown`): its policy's cooldown is at least this. */
  cooldownSeconds: number
  clock: () => number
}

/**
 * The gate: the one place Homeport decides which versions from the public registries it offers.
 * Every face asks it, through the services that serve public providers and modules (the registry
 * protocols, the network mirror, OCI, MCP, the API, the GUI and bundles): a held version is left out
 * of every list, and a direct fetch of it is refused with HeldByGateError. Decisions are made at
 * request time from the policies, the recorded dates and people's approvals, so a cooldown ends by
 * itself and a policy change holds at once on every replica. Each hold is recorded in the audit trail
 * (once per process per version and verdict, not per request).
 */
export class Gate {
  private readonly recorded = new Lru<string, true>(10_000)
  /** Each package's decisions for a scope, with what they were made from (see `decisions`). */
  private readonly decided = new Lru<string, { inputs: unknown[]; until: number; byVersion: Map<string, Decision> }>(2_000)
  private floored: { stored: GatePolicyRecord | undefined; policy: GatePolicyRecord } | undefined

  constructor(
    private readonly store: Store,
    private readonly dates: ReleaseDates,
    private readonly audit: AuditTrailService,
    private readonly options: GateOptions
  ) {}

  /** The installation's policy, with the floor `--cooldown` sets (the same object while the record is the same, for the memo below). */
  async installationPolicy(): Promise<GatePolicyRecord> {
    const stored = await this.store.gatePolicies.get(policyId(null))
    if (this.floored && this.floored.stored === stored) return this.floored.policy
    const policy = stored ?? emptyPolicy(null)
    this.floored = { stored, policy: { ...policy, cooldownSeconds: Math.max(policy.cooldownSeconds, this.options.cooldownSeconds) } }
    return this.floored.policy
  }

  /** The cooldown `--cooldown` sets: the least the installation's policy holds for. */
  get cooldownFloor(): number {
    return this.options.cooldownSeconds
  }

  /** The policies in force for organizations' reads (the installation's first). */
  async policies(organizationIds: readonly string[]): Promise<ScopedPolicy[]> {
    const scoped: ScopedPolicy[] = []
    const installation = await this.installationPolicy()
    if (inForce(installation)) scoped.push({ scope: 'installation', organizationId: null, policy: installation })
    for (const organizationId of organizationIds) {
      const own = await this.store.gatePolicies.get(policyId(organizationId))
      if (own && inForce(own)) {
        const org = await this.store.organizations.get(organizationId)
        if (org) scoped.push({ scope: org.name, organizationId, policy: own })
      }
    }
    return scoped
  }

  /**
   * The decision on each of `versions` (in their order); `lookup` gives publish times for versions
   * never seen before. Decisions are kept while what they were made from is the same (the store
   * hands out the same record until it changes) and no cooldown among them has ended: a list read
   * again costs the reads of its inputs, not a decision per version.
   */
  async decisions(context: GateContext, target: PublicPackage, versions: readonly string[], lookup?: PublishTimes, inForce?: ScopedPolicy[]): Promise<Decision[]> {
    const policies = inForce ?? (await this.policies(context.organizationIds))
    if (policies.length === 0) return versions.map(OFFERED)
    const dated = policies.some(({ policy }) => policy.cooldownSeconds > 0 || policy.approvals)
    const sighting = dated ? await this.dates.sight(target, versions, lookup) : undefined
    const name = packageKey(target)
    const requests = await this.store.gateRequests.listBy(GATE_PACKAGE, name)
    const now = this.options.clock()
    const inputs: unknown[] = [sighting, ...requests]
    for (const { scope, policy } of policies) inputs.push(scope, policy)
    const key = `${context.organizationIds.join(',')}|${name}`
    let memo = this.decided.get(key)
    if (!memo || now >= memo.until || memo.inputs.length !== inputs.length || memo.inputs.some((input, index) => input !== inputs[index])) {
      memo = { inputs, until: Number.POSITIVE_INFINITY, byVersion: new Map() }
      this.decided.set(key, memo)
    }
    const fresh: Decision[] = []
    // Grouped only when a decision is made: a read the memo answers whole does not pay for it.
    let byScope: Map<string, Map<string, GateRequestRecord>> | undefined
    const decisions = versions.map((version) => {
      let decision = memo.byVersion.get(version)
      if (!decision) {
        byScope ??= requestsByVersion(requests)
        decision = decide(target, version, policies, { sighting: sighting?.versions[version], requests: byScope.get(version) ?? new Map<string, GateRequestRecord>() }, now)
        if (decision.until) memo.until = Math.min(memo.until, Date.parse(decision.until))
        memo.byVersion.set(version, decision)
        fresh.push(decision)
      }
      return decision
    })
    if (fresh.length > 0) await this.remember(context, target, fresh, policies)
    await this.queue(context, target, decisions, policies)
    return decisions
  }

  /**
   * The decision on every version Homeport has seen or been asked about, and on `versions` (those
   * mirrored here, say), newest first, with what the gate knows of each, for people to read: nothing
   * is recorded or fetched, as a read should.
   */
  async explain(context: GateContext, target: PublicPackage, versions: readonly string[] = []): Promise<Array<{ decision: Decision; sighting: ReleaseSighting | undefined }>> {
    const known = await this.dates.known(target)
    const requests = await this.requestsOf(target)
    const named = newestVersionsFirst([...new Set([...versions, ...Object.keys(known), ...requests.keys()])].filter((version) => semver.valid(version) !== null))
    const policies = await this.policies(context.organizationIds)
    const now = this.options.clock()
    return named.map((version) => ({
      decision: policies.length === 0 ? OFFERED(version) : decide(target, version, policies, { sighting: known[version], requests: requests.get(version) ?? new Map<string, GateRequestRecord>() }, now),
      sighting: known[version]
    }))
  }

  /** The entries of a list the gate offers, and the decisions on those it holds. */
  async offered<T>(context: GateContext, target: PublicPackage, entries: readonly T[], versionOf: (entry: T) => string, lookup?: PublishTimes, inForce?: ScopedPolicy[]): Promise<{ offered: T[]; held: Decision[] }> {
    const decisions = await this.decisions(context, target, entries.map(versionOf), lookup, inForce)
    return { offered: entries.filter((_, index) => decisions[index]!.offered), held: decisions.filter((decision) => !decision.offered) }
  }

  /** A direct fetch of one version: its decision, or HeldByGateError when it is not offered. */
  async check(context: GateContext, target: PublicPackage, version: string, lookup?: PublishTimes): Promise<Decision> {
    const [decision] = await this.decisions(context, target, [version], lookup)
    if (!decision!.offered) throw new HeldByGateError(`${packageName(target)} ${version} is not offered here: ${decision!.reason}`, decision!.until)
    return decision!
  }

  /** What a providers.v1 list says of the versions it holds back (Terraform prints these, even when a lock file pins a version). */
  warnings(target: PublicPackage, held: readonly Decision[]): string[] {
    const newest = newestFirst(held, (decision) => decision.version)
    const lines = newest.slice(0, MAX_WARNINGS).map((decision) => `Homeport holds back ${packageName(target)} ${decision.version}: ${decision.reason}.`)
    if (newest.length > MAX_WARNINGS) lines.push(`Homeport holds back ${newest.length - MAX_WARNINGS} more versions of ${packageName(target)}; its GUI's Gate page lists them.`)
    return lines
  }

  /** Warnings for the versions whose content the upstream changed after Homeport first fetched it (refused: the first stays). */
  async retagWarnings(target: PublicPackage): Promise<string[]> {
    return Object.entries(await this.dates.known(target))
      .filter(([, sighting]) => sighting.refusedDigest !== undefined)
      .map(([version]) => `The upstream registry now serves different content for ${packageName(target)} ${version} than it first did: Homeport keeps serving what it first fetched.`)
  }

  /** Every request of the package's versions, by version and then by scope (`installation` or the organization's id). */
  private async requestsOf(target: PublicPackage): Promise<Map<string, Map<string, GateRequestRecord>>> {
    return requestsByVersion(await this.store.gateRequests.listBy(GATE_PACKAGE, packageKey(target)))
  }

  /** Records what the decisions hold back or waive in the audit trail, once per process per version and verdict. */
  private async remember(context: GateContext, target: PublicPackage, decisions: readonly Decision[], policies: readonly ScopedPolicy[]): Promise<void> {
    for (const decision of decisions) {
      const verdict = decision.reported ? `would be ${decision.verdict}` : decision.offered ? (decision.waived ? 'waived' : undefined) : decision.verdict
      if (verdict === undefined) continue
      const once = `${decision.scope ?? ''}|${packageKey(target)}|${decision.version}|${verdict}`
      if (this.recorded.get(once)) continue
      this.recorded.set(once, true)
      const org = policies.find((scoped) => scoped.scope === decision.scope)?.organizationId ?? undefined
      await this.audit.done({
        author: context.caller,
        permission: 'gate',
        org: org ? await this.store.organizations.get(org) : undefined,
        action: verdict,
        resource: { type: 'upstream-version', id: `${packageKey(target)}@${decision.version}`, name: `${packageName(target)} ${decision.version}: ${decision.waived ?? decision.reason}` }
      })
    }
  }

  /** Queues the newest version waiting for approval, with the caller as its requester (once per process per caller). */
  private async queue(context: GateContext, target: PublicPackage, decisions: readonly Decision[], policies: readonly ScopedPolicy[]): Promise<void> {
    let waiting: Decision | undefined
    for (const decision of decisions) if (decision.verdict === 'awaiting-approval' && (!waiting || semver.gt(decision.version, waiting.version))) waiting = decision
    if (!waiting) return
    const once = `request|${callerKey(context.caller)}|${waiting.scope ?? ''}|${packageKey(target)}|${waiting.version}`
    if (this.recorded.get(once)) return
    this.recorded.set(once, true)
    await this.request(context, target, waiting, policies)
  }

  /** Queues `decision`'s version for approval in the scope that asks for it, naming who tried to install it. */
  private async request(context: GateContext, target: PublicPackage, decision: Decision, policies: readonly ScopedPolicy[]): Promise<void> {
    const scoped = policies.find((candidate) => candidate.scope === decision.scope)
    if (!scoped) return
    const who = await this.describe(context.caller)
    const key = packageKey(target)
    const existing = (await this.requestsOf(target)).get(decision.version)?.get(scoped.organizationId ?? 'installation')
    if (existing?.requesters.some((requester) => requester.who === who)) return
    const at = new Date(this.options.clock()).toISOString()
    const sighting = (await this.dates.known(target))[decision.version]
    const id = existing?.id ?? newId('gatereq')
    // Two first requests at once: the one that loses the unique key leaves it to the other.
    await this.store.gateRequests.upsert(
      id,
      (): GateRequestRecord => ({
        id,
        organizationId: scoped.organizationId,
        key,
        version: decision.version,
        status: 'pending',
        requesters: [],
        requestedAt: at,
        publishedAt: sighting?.publishedAt ?? null,
        decidedBy: null,
        decidedAt: null,
        reason: ''
      }),
      (draft) => {
        if (draft.requesters.some((requester) => requester.who === who)) return
        draft.requesters = [...draft.requesters, { who, at }].slice(-MAX_REQUESTERS)
      }
    ).catch((error: unknown) => {
      if (!(error instanceof UniqueConstraintError)) throw error
    })
  }

  private async describe(caller: Caller): Promise<string> {
    if (caller.kind === 'site-admin') return 'the site admin'
    if (caller.kind === 'user') return caller.username
    const org: OrganizationRecord | undefined = await this.store.organizations.get(caller.organizationId)
    return org ? `${describeCaller(caller, org)} of ${org.name}` : caller.kind
  }
}

/** Requests by version, then by scope (`installation` or the organization's id). */
function requestsByVersion(requests: readonly GateRequestRecord[]): Map<string, Map<string, GateRequestRecord>> {
  const byVersion = new Map<string, Map<string, GateRequestRecord>>()
  for (const request of requests) {
    const scopes = byVersion.get(request.version) ?? new Map<string, GateRequestRecord>()
    scopes.set(request.organizationId ?? 'installation', request)
    byVersion.set(request.version, scopes)
  }
  return byVersion
}
