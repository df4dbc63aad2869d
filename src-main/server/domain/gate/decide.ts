import type { GatePolicyRecord, GateRequestRecord, GateRuleRecord, ReleaseSighting } from '../../store/records.js'
import { formatDuration } from './duration.js'
import { patternMatches, versionTest, type PublicPackage } from './packages.js'

/** What the gate does with a version: offers it, or why not. */
export type Verdict = 'offered' | 'cooldown' | 'blocked' | 'not-allowed' | 'awaiting-approval' | 'denied'

/** The verdicts that keep a version out for good (until a person changes the policy), as against holding it for now. */
export const KEPT_OUT: ReadonlySet<Verdict> = new Set(['blocked', 'not-allowed', 'denied'])

/** A policy in force, with the scope it belongs to. */
export interface ScopedPolicy {
  /** `installation`, or the organization's name. */
  scope: string
  organizationId: string | null
  policy: GatePolicyRecord
}

/** The gate's decision on one version. */
export interface Decision {
  version: string
  /** Whether clients are offered it (a report-only policy's hold offers it). */
  offered: boolean
  verdict: Verdict
  /** Why, in words that name the rule and its scope. */
  reason: string
  /** The scope whose policy decided (none when every policy offers it). */
  scope?: string
  /** The rule that decided: a rule's id, or `cooldown`, `allow-only`, `approval`. */
  rule?: string
  /** When a cooldown ends (ISO time). */
  until?: string
  /** Held by a report-only policy: recorded, and offered. */
  reported?: boolean
  /** Offered past the cooldown or an approval by an exemption or an approval. */
  waived?: string
}

/** What the gate knows of one version: its sighting, and the decisions people made in each scope. */
export interface VersionFacts {
  sighting: ReleaseSighting | undefined
  /** The requests of the version, by organization id (`installation` for the installation's). */
  requests: Map<string, GateRequestRecord>
}

export const OFFERED = (version: string): Decision => ({ version, offered: true, verdict: 'offered', reason: 'offered' })

/**
 * The one decision of the gate, for one version of one package under the policies in force (the
 * installation's first, then the organization's): the first policy that enforces a hold decides; a
 * hold only a report-only policy makes is recorded and offered. A time from the network is not
 * trusted past what release-dates.ts believes; a version with no date at all counts as new (fail closed).
 */
export function decide(target: PublicPackage, version: string, policies: readonly ScopedPolicy[], facts: VersionFacts, now: number): Decision {
  let reported: Decision | undefined
  let waived: string | undefined
  for (const scoped of policies) {
    const decision = decideIn(scoped, target, version, facts, now)
    if (decision.verdict === 'offered') {
      waived ??= decision.waived
      continue
    }
    if (!scoped.policy.reportOnly) return decision
    reported ??= { ...decision, offered: true, reported: true }
  }
  return reported ?? { ...OFFERED(version), ...(waived ? { waived } : {}) }
}

function decideIn({ scope, organizationId, policy }: ScopedPolicy, target: PublicPackage, version: string, facts: VersionFacts, now: number): Decision {
  const held = (verdict: Verdict, rule: string, reason: string, until?: string): Decision => ({ version, offered: false, verdict, reason, scope, rule, ...(until ? { until } : {}) })
  const where = scope === 'installation' ? 'this Homeport' : `organization ${scope}`
  const rules = policy.rules.filter((rule) => matches(rule, target, version))
  const block = rules.find((rule) => rule.effect === 'block')
  if (block) return held('blocked', block.id, `blocked by ${where}'s rule "${block.pattern}${block.versions ? ` ${block.versions}` : ''}": ${block.reason || 'no reason given'}`)
  if (policy.allowOnly && !rules.some((rule) => rule.effect === 'allow')) {
    return held('not-allowed', 'allow-only', `${where} lets in only what its allow list names, and it does not name this version`)
  }
  const request = facts.requests.get(organizationId ?? 'installation')
  if (request?.status === 'denied') return held('denied', 'approval', `denied by ${request.decidedBy ?? 'an owner'} of ${where}: ${request.reason || 'no reason given'}`)
  if (request?.status === 'approved') return { ...OFFERED(version), waived: `approved by ${request.decidedBy ?? 'an owner'} of ${where}` }
  const exempt = rules.find((rule) => rule.effect === 'exempt')
  if (exempt) return { ...OFFERED(version), waived: `exempt by ${where}'s rule "${exempt.pattern}${exempt.versions ? ` ${exempt.versions}` : ''}"` }
  if (policy.cooldownSeconds > 0) {
    const since = facts.sighting?.publishedAt ?? facts.sighting?.firstSeenAt
    const from = since === undefined ? now : Date.parse(since)
    const ends = from + policy.cooldownSeconds * 1000
    if (ends > now) {
      const until = new Date(ends).toISOString()
      const dated = facts.sighting?.publishedAt ? 'published' : 'first seen here'
      return held('cooldown', 'cooldown', `in ${where}'s ${formatDuration(policy.cooldownSeconds)} cooldown: ${dated} ${since ?? 'just now'}, offered from ${until}`, until)
    }
  }
  if (policy.approvals) return held('awaiting-approval', 'approval', `waits for an owner of ${where} to approve it`)
  return OFFERED(version)
}

function matches(rule: GateRuleRecord, target: PublicPackage, version: string): boolean {
  return patternMatches(rule.pattern, target) && versionTest(rule.versions)(version)
}
