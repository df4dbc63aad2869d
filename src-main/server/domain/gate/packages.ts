import { Lru } from '../../../shared/lru.js'
import { InvalidInputError } from '../core/errors.js'
import { terraformConstraint } from '../modules/versions/constraints.js'

/** A package that comes in from a public registry: a provider (`hashicorp/aws`) or a module (`terraform-aws-modules/vpc/aws`). */
export interface PublicPackage {
  kind: 'provider' | 'module'
  /** The public registry's name (`registry.terraform.io`). */
  hostname: string
  /** `namespace/type` for a provider, `namespace/name/provider` for a module; lower case. */
  address: string
  /** Other public names the same copy is served under (one mirror answering for both registries): a rule naming either holds it. */
  aliases?: readonly string[]
}

export function publicPackage(kind: PublicPackage['kind'], hostname: string, ...parts: string[]): PublicPackage {
  return { kind, hostname: hostname.toLowerCase(), address: parts.join('/').toLowerCase() }
}

/** The package's name in the gate's records: `provider:registry.terraform.io/hashicorp/aws`. */
export function packageKey({ kind, hostname, address }: PublicPackage): string {
  return `${kind}:${hostname}/${address}`
}

/** The package as people write it: `registry.terraform.io/hashicorp/aws`. */
export function packageName({ hostname, address }: PublicPackage): string {
  return `${hostname}/${address}`
}

/** The package a key names (packageKey's inverse). */
export function packageOfKey(key: string): PublicPackage {
  const [kind, rest] = key.split(/:(.*)/s) as [PublicPackage['kind'], string]
  const [hostname, ...parts] = rest.split('/')
  return { kind, hostname: hostname!, address: parts.join('/') }
}

const SEGMENT = /^(\*|[a-z0-9][a-z0-9_-]{0,63})$/
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const HOSTNAME = new RegExp(`^${LABEL}(?:\\.${LABEL})+(?::\\d{1,5})?$`)

/**
 * A rule's address pattern, checked: segments of letters, digits, `-` and `_`, or `*` for any one
 * segment, optionally after a hostname (`registry.opentofu.org/*\/*`). A last `*` stands for the rest,
 * so `hashicorp/*` names every provider and module of the namespace.
 */
export function checkPattern(text: string): string {
  const pattern = text.trim().toLowerCase()
  const segments = pattern.split('/')
  const hostname = segments[0]!.includes('.') ? segments.shift() : undefined
  const ok = segments.length >= 1 && segments.length <= 3 && segments.every((segment) => SEGMENT.test(segment)) && (hostname === undefined || HOSTNAME.test(hostname))
  if (!ok) {
    throw new InvalidInputError(`"${text}" is not an address pattern: write namespace/type, namespace/name/provider, or with * for any part (hashicorp/*), optionally after a registry's hostname.`, 'pattern')
  }
  return pattern
}

/** Whether `pattern` (checked by checkPattern) names the package. */
export function patternMatches(pattern: string, target: PublicPackage): boolean {
  const segments = pattern.split('/')
  if (segments[0]!.includes('.')) {
    const host = segments.shift()!
    if (host !== target.hostname && !target.aliases?.includes(host)) return false
  }
  const parts = target.address.split('/')
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1
    if (segment === '*' && last) return parts.length >= segments.length
    if (segment !== '*' && segment !== parts[index]) return false
  }
  return segments.length === parts.length
}

/** Constraints read once: a list of a thousand versions asks each rule's a thousand times. */
const tests = new Lru<string, (version: string) => boolean>(1000)

/** A rule's version constraint as a test (every version for an empty one), prereleases in its range included. */
export function versionTest(constraint: string): (version: string) => boolean {
  let test = tests.get(constraint)
  if (!test) {
    test = constraint.trim() === '' ? () => true : terraformConstraint(constraint, 'versions', { inRange: true })
    tests.set(constraint, test)
  }
  return test
}
