/**
 * The gate's resources (Homeport's own JSON:API, under /api/v2/admin/gate for the installation and
 * /api/v2/organizations/<name>/gate for an organization): its policy, its rules and its queue.
 */

/** `gate-policies`: one scope's settings and rules. */
export interface GatePolicyAttributes {
  /** `installation`, or the organization's name. */
  scope: string
  /** The cooldown as a duration (`7d`, `0`). */
  cooldown: string
  'cooldown-seconds': number
  /** The installation's cooldown, which an organization's can only lengthen (seconds). */
  'installation-cooldown-seconds': number
  /** The least the installation's cooldown may be: `--cooldown` (seconds). */
  'cooldown-floor-seconds': number
  'allow-only': boolean
  approvals: boolean
  'report-only': boolean
  rules: GateRuleAttributes[]
  'updated-at': string
}

/** `gate-rules`: what a rule names, and what it does. */
export interface GateRuleAttributes {
  id: string
  effect: 'block' | 'allow' | 'exempt'
  pattern: string
  versions: string
  reason: string
  'created-by': string
  'created-at': string
}

/** `gate-requests`: a version waiting for a decision under a policy with approvals, or decided. */
export interface GateRequestAttributes {
  /** `provider` or `module`. */
  kind: string
  /** `registry.terraform.io/hashicorp/aws` */
  package: string
  version: string
  status: 'pending' | 'approved' | 'denied'
  requesters: Array<{ who: string; at: string }>
  'requested-at': string
  'published-at': string | null
  'decided-by': string | null
  'decided-at': string | null
  reason: string
}

/** A version as the gate sees it on a package's page: offered or held, and why. */
export interface GateVersionAttributes {
  version: string
  offered: boolean
  verdict: 'offered' | 'cooldown' | 'blocked' | 'not-allowed' | 'awaiting-approval' | 'denied'
  reason: string
  /** When a cooldown ends. */
  until: string | null
  /** Held by a report-only policy: offered, and recorded. */
  reported: boolean
  /** What let it past a cooldown or approval (an exemption, an approval). */
  waived: string | null
  'published-at': string | null
  'first-seen-at': string | null
}
