import semver from 'semver'
import type { GatePolicyRecord, GateRequestRecord, GateRuleRecord, OrganizationRecord } from '../../store/records.js'
import { GATE_REQUEST, GATE_SCOPE, INSTALLATION_SCOPE, type Store } from '../../store/port.js'
import { describeCaller, type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { ForbiddenError, InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId } from '../core/ids.js'
import type { AuditResource, AuditTrailService } from '../organizations/audit-trail.js'
import type { OrganizationService } from '../organizations/organizations.js'
import { formatDuration, parseDuration } from './duration.js'
import { emptyPolicy, policyId, type Gate } from './gate.js'
import { checkPattern, packageKey, packageName, packageOfKey, versionTest, type PublicPackage } from './packages.js'
import type { ReleaseDates } from './release-dates.js'

/** A change to a policy's settings (each left as it is when absent). */
export interface PolicyChange {
  /** A duration (`7d`, `0`). */
  cooldown?: string
  allowOnly?: boolean
  approvals?: boolean
  reportOnly?: boolean
}

export interface RuleInput {
  effect?: string
  pattern?: string
  versions?: string
  reason?: string
}

/** A policy as its readers see it: the record, the scope's name, and for the installation the floor `--cooldown` sets. */
export interface PolicyView {
  scope: string
  policy: GatePolicyRecord
  /** The installation's cooldown, which an organization's adds to (seconds). */
  installationCooldownSeconds: number
  /** The least the installation's cooldown may be (`--cooldown`). */
  cooldownFloorSeconds: number
}

/** A request as the queue shows it. */
export interface RequestView {
  request: GateRequestRecord
  package: PublicPackage
}

/** The most rules one policy holds. */
const MAX_RULES = 500
const EFFECTS = ['block', 'allow', 'exempt'] as const

/**
 * The gate's policies and its approval queue, as people change them: the installation's (the site
 * admin's) and each organization's (its owners'); every change and every decision is in the audit trail.
 * Gate (gate.ts) reads what this writes.
 */
export class GatePolicyService {
  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService,
    private readonly gate: Gate,
    private readonly dates: ReleaseDates,
    private readonly audit: AuditTrailService,
    private readonly clock: () => number
  ) {}

  /** A scope's policy: the installation's (`orgName` undefined) or an organization's. */
  async read(caller: Caller, orgName: string | undefined): Promise<PolicyView> {
    const org = orgName === undefined ? undefined : await this.organizations.read(caller, orgName)
    if (!org && !authorize(caller, 'read installation gate')) throw new NotFoundError('the gate policy was not found')
    return this.view(org)
  }

  async update(caller: Caller, orgName: string | undefined, change: PolicyChange): Promise<PolicyView> {
    const org = await this.forChange(caller, orgName, 'update', 'gate-policy')
    const cooldownSeconds = change.cooldown === undefined ? undefined : parseDuration(change.cooldown)
    if (cooldownSeconds !== undefined) await this.checkCooldown(org, cooldownSeconds)
    await this.change(org, (draft) => {
      if (cooldownSeconds !== undefined) draft.cooldownSeconds = cooldownSeconds
      if (change.allowOnly !== undefined) draft.allowOnly = change.allowOnly
      if (change.approvals !== undefined) draft.approvals = change.approvals
      if (change.reportOnly !== undefined) draft.reportOnly = change.reportOnly
    })
    const view = await this.view(org)
    const settings = [
      `cooldown ${formatDuration(view.policy.cooldownSeconds)}`,
      view.policy.allowOnly && 'allow-only',
      view.policy.approvals && 'approvals',
      view.policy.reportOnly && 'report only'
    ].filter(Boolean)
    await this.done(caller, org, 'update', { type: 'gate-policy', id: view.policy.id, name: `${view.scope}: ${settings.join(', ')}` })
    return view
  }

  async addRule(caller: Caller, orgName: string | undefined, input: RuleInput): Promise<GateRuleRecord> {
    const org = await this.forChange(caller, orgName, 'create', 'gate-rule')
    const effect = EFFECTS.find((candidate) => candidate === input.effect)
    if (!effect) throw new InvalidInputError(`A rule's effect is block, allow or exempt, not "${input.effect ?? ''}".`, 'effect')
    const pattern = checkPattern(input.pattern ?? '')
    const versions = (input.versions ?? '').trim()
    versionTest(versions)
    const reason = (input.reason ?? '').trim()
    if (effect === 'block' && reason === '') throw new InvalidInputError('Say why it is blocked: the reason is what a client that asks for it is told.', 'reason')
    if (reason.length > 500) throw new InvalidInputError('A reason is at most 500 characters.', 'reason')
    const rule: GateRuleRecord = { id: newId('gaterule'), effect, pattern, versions, reason, createdBy: await this.describe(caller, org), createdAt: this.now() }
    await this.change(org, (draft) => {
      if (draft.rules.length >= MAX_RULES) throw new InvalidInputError(`A policy holds at most ${MAX_RULES} rules.`, 'rules')
      draft.rules.push(rule)
    })
    await this.done(caller, org, 'create', { type: 'gate-rule', id: rule.id, name: `${effect} ${pattern}${versions ? ` ${versions}` : ''}${reason ? `: ${reason}` : ''}` })
    return rule
  }

  async removeRule(caller: Caller, orgName: string | undefined, ruleId: string): Promise<void> {
    const org = await this.forChange(caller, orgName, 'destroy', 'gate-rule')
    let removed: GateRuleRecord | undefined
    await this.change(org, (draft) => {
      removed = draft.rules.find((rule) => rule.id === ruleId)
      if (!removed) throw new NotFoundError(`rule ${ruleId} not found`, false)
      draft.rules = draft.rules.filter((rule) => rule.id !== ruleId)
    })
    await this.done(caller, org, 'destroy', { type: 'gate-rule', id: ruleId, name: `${removed!.effect} ${removed!.pattern}${removed!.versions ? ` ${removed!.versions}` : ''}` })
  }

  /** The scope's queue, newest request first (pending ones only, or every one). */
  async requests(caller: Caller, orgName: string | undefined, { pending = false } = {}): Promise<RequestView[]> {
    const org = orgName === undefined ? undefined : await this.organizations.read(caller, orgName)
    if (!org && !authorize(caller, 'manage installation gate')) throw new NotFoundError('the gate requests were not found')
    const all = await this.store.gateRequests.listBy(GATE_SCOPE, org?.id ?? INSTALLATION_SCOPE)
    return all
      .filter((request) => !pending || request.status === 'pending')
      .sort((a, b) => b.requestedAt.localeCompare(a.requestedAt) || semver.rcompare(a.version, b.version))
      .map((request) => ({ request, package: packageOfKey(request.key) }))
  }

  /**
   * Approves or denies a version in the scope (a request in the queue, or any version by name: the
   * fast path past the cooldown for a security fix). An approval of an exact version waives the
   * scope's cooldown and approval for it; a denial holds it.
   */
  async decide(caller: Caller, orgName: string | undefined, target: PublicPackage, version: string, status: 'approved' | 'denied', reason: string): Promise<RequestView> {
    const org = await this.forChange(caller, orgName, status === 'approved' ? 'approve' : 'deny', 'gate-request')
    if (semver.valid(version) !== version) throw new InvalidInputError(`"${version}" is not a version.`, 'version')
    if (status === 'denied' && reason.trim() === '') throw new InvalidInputError('Say why it is denied: the reason is what a client that asks for it is told.', 'reason')
    const key = packageKey(target)
    const scope = org?.id ?? null
    const existing = await this.store.gateRequests.findBy(GATE_REQUEST, `${scope ?? INSTALLATION_SCOPE}|${key}|${version}`)
    const id = existing?.id ?? newId('gatereq')
    const at = this.now()
    const decidedBy = await this.describe(caller, org)
    const publishedAt = (await this.dates.known(target))[version]?.publishedAt ?? null
    const record = await this.store.gateRequests.upsert(
      id,
      () => ({ id, organizationId: scope, key, version, status: 'pending', requesters: [], requestedAt: at, publishedAt, decidedBy: null, decidedAt: null, reason: '' }),
      (draft) => {
        draft.status = status
        draft.decidedBy = decidedBy
        draft.decidedAt = at
        draft.reason = reason.trim()
      }
    )
    // A decision holds (or waives) even where the scope has set nothing else.
    await this.change(org, (draft) => {
      draft.hasDecisions = true
    })
    await this.done(caller, org, status === 'approved' ? 'approve' : 'deny', { type: 'gate-request', id, name: `${packageName(target)} ${version}${reason.trim() ? `: ${reason.trim()}` : ''}` })
    return { request: record, package: target }
  }

  /**
   * How the scope's gate treats each version of a package (every one seen, and the named ones), for
   * the GUI's pages: the installation's alone, or with the organization's on top. Records nothing.
   */
  async explain(caller: Caller, orgName: string | undefined, target: PublicPackage, versions?: readonly string[]) {
    const org = orgName === undefined ? undefined : await this.organizations.read(caller, orgName)
    if (!org && !authorize(caller, 'read installation gate')) throw new NotFoundError('the gate policy was not found')
    for (const version of versions ?? []) if (semver.valid(version) !== version) throw new InvalidInputError(`"${version}" is not a version.`, 'versions')
    return this.gate.explain({ caller, organizationIds: org ? [org.id] : [] }, target, versions)
  }

  /** A request by id, in the scope (for deciding one from the queue). */
  async request(caller: Caller, orgName: string | undefined, id: string): Promise<RequestView> {
    const found = (await this.requests(caller, orgName)).find((view) => view.request.id === id)
    if (!found) throw new NotFoundError(`gate request ${id} not found`)
    return found
  }

  private async view(org: OrganizationRecord | undefined): Promise<PolicyView> {
    const installation = await this.gate.installationPolicy()
    const policy = org ? ((await this.store.gatePolicies.get(policyId(org.id))) ?? emptyPolicy(org.id)) : installation
    return { scope: org?.name ?? 'installation', policy, installationCooldownSeconds: installation.cooldownSeconds, cooldownFloorSeconds: this.gate.cooldownFloor }
  }

  /** An organization adds to the installation's cooldown, never shortens it; the installation's is at least `--cooldown`. */
  private async checkCooldown(org: OrganizationRecord | undefined, seconds: number): Promise<void> {
    if (!org) {
      if (seconds !== 0 && seconds < this.gate.cooldownFloor) {
        throw new InvalidInputError(`This Homeport was started with --cooldown ${formatDuration(this.gate.cooldownFloor)}: the installation's cooldown is at least that.`, 'cooldown')
      }
      return
    }
    const installation = (await this.gate.installationPolicy()).cooldownSeconds
    if (seconds !== 0 && seconds < installation) {
      throw new InvalidInputError(
        `This Homeport holds every version for ${formatDuration(installation)} already: an organization's cooldown can only be longer (or 0, to add none).`,
        'cooldown'
      )
    }
  }

  private async change(org: OrganizationRecord | undefined, change: (draft: GatePolicyRecord) => void): Promise<void> {
    const id = policyId(org?.id ?? null)
    await this.store.gatePolicies.upsert(id, () => emptyPolicy(org?.id ?? null), (draft) => {
      change(draft)
      draft.updatedAt = this.now()
    })
  }

  /** The organization named (none: the installation), once the caller may change its gate (a refusal is recorded). */
  private async forChange(caller: Caller, orgName: string | undefined, action: string, type: AuditResource['type']): Promise<OrganizationRecord | undefined> {
    const resource = { type, id: orgName ?? 'installation', name: `the gate of ${orgName ?? 'this Homeport'}` }
    if (orgName !== undefined) return this.organizations.forChange(caller, orgName, 'manage gate', action, resource)
    await this.audit.check(caller, { permission: 'manage installation gate', org: undefined, action, resource }, () => new ForbiddenError('Only the site admin sets the gate of the whole installation.'))
    return undefined
  }

  private done(caller: Caller, org: OrganizationRecord | undefined, action: string, resource: AuditResource): Promise<void> {
    return this.audit.done({ author: caller, permission: org ? 'manage gate' : 'manage installation gate', org, action, resource })
  }

  private async describe(caller: Caller, org: OrganizationRecord | undefined): Promise<string> {
    if (caller.kind === 'site-admin') return 'the site admin'
    if (caller.kind === 'user') return caller.username
    const own = org ?? (await this.store.organizations.get(caller.organizationId))
    return own ? describeCaller(caller, own) : caller.kind
  }

  private now(): string {
    return new Date(this.clock()).toISOString()
  }
}
