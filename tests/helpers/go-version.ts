/**
 * Version constraints as Terraform evaluates them for modules (hashicorp/go-version, plus
 * Terraform's rule that a prerelease is chosen only when requested exactly), written from
 * ../shared/terraform-client.md §4.3 so the tests choose versions the way `terraform init` does.
 */
export interface GoVersion {
  segments: number[]
  /** How many segments were written (`1.2` → 2). */
  specified: number
  prerelease: string
  original: string
}

const VERSION = /^v?(\d+(?:\.\d+)*)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/

export function parseVersion(text: string): GoVersion | undefined {
  const match = VERSION.exec(text.trim())
  if (!match) return undefined
  const written = match[1]!.split('.').map(Number)
  const segments = [...written]
  while (segments.length < 3) segments.push(0)
  return { segments, specified: written.length, prerelease: match[2] ?? '', original: text.trim() }
}

/** go-version's String(): the canonical form Terraform sends to the download endpoint. */
export function canonical(version: GoVersion): string {
  const metadata = VERSION.exec(version.original)?.[3]
  return `${version.segments.join('.')}${version.prerelease ? `-${version.prerelease}` : ''}${metadata ? `+${metadata}` : ''}`
}

function comparePrerelease(a: string, b: string): number {
  if (a === b) return 0
  if (!a) return 1
  if (!b) return -1
  const left = a.split('.')
  const right = b.split('.')
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i]
    const y = right[i]
    if (x === undefined) return -1
    if (y === undefined) return 1
    const xNumeric = /^\d+$/.test(x)
    const yNumeric = /^\d+$/.test(y)
    if (xNumeric && yNumeric && Number(x) !== Number(y)) return Number(x) < Number(y) ? -1 : 1
    if (xNumeric !== yNumeric) return xNumeric ? -1 : 1
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}

export function compare(a: GoVersion, b: GoVersion): number {
  for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
    const difference = (a.segments[i] ?? 0) - (b.segments[i] ?? 0)
    if (difference !== 0) return Math.sign(difference)
  }
  return comparePrerelease(a.prerelease, b.prerelease)
}

function prereleaseCheck(v: GoVersion, c: GoVersion): boolean {
  if (c.prerelease && v.prerelease) return c.segments.join('.') === v.segments.join('.')
  return !(!c.prerelease && v.prerelease)
}

type Check = (v: GoVersion) => boolean

function constraint(text: string): Check {
  const match = /^\s*(=|!=|>=|<=|>|<|~>)?\s*(\S+)\s*$/.exec(text)
  const c = match && parseVersion(match[2]!)
  if (!match || !c) throw new Error(`Invalid version constraint "${text}"`)
  switch (match[1] ?? '=') {
    case '=':
      return (v) => compare(v, c) === 0
    case '!=':
      return (v) => compare(v, c) !== 0
    case '>':
      return (v) => prereleaseCheck(v, c) && compare(v, c) > 0
    case '<':
      return (v) => prereleaseCheck(v, c) && compare(v, c) < 0
    case '>=':
      return (v) => prereleaseCheck(v, c) && compare(v, c) >= 0
    case '<=':
      return (v) => prereleaseCheck(v, c) && compare(v, c) <= 0
    default:
      // ~>: at least c, and the same in every segment but the last one written.
      return (v) => {
        if (!prereleaseCheck(v, c) || (c.prerelease && !v.prerelease) || compare(v, c) < 0) return false
        for (let i = 0; i < c.specified - 1; i++) if (v.segments[i] !== c.segments[i]) return false
        return true
      }
  }
}

/**
 * Whether `version` meets `constraints` (comma-separated, all must hold) for a module. A
 * prerelease is considered only when the constraint names exactly it (`1.2.0-beta1` or
 * `=1.2.0-beta1`, without a space), as Terraform's go-versions gate has it.
 */
export function meets(version: GoVersion, constraints: string | undefined): boolean {
  if (constraints === undefined) return !version.prerelease
  if (version.prerelease) {
    const exact = /^=?(v?\d[^\s,]*)$/.exec(constraints.trim())
    const requested = exact && parseVersion(exact[1]!)
    if (!requested || compare(requested, version) !== 0) return false
  }
  return constraints.split(',').every((part) => constraint(part)(version))
}
