import semver from 'semver'
import { InvalidInputError } from '../../core/errors.js'

/**
 * Terraform's version constraints (`>= 1.2, < 2.0`, `~> 5.0`, `= 1.2.3`, `!= 1.3.0`, `1.2.3`), as
 * HashiCorp's go-version reads them. Written by hand because node-semver reads `~> 5.0` as its own
 * tilde range (>= 5.0.0 < 5.1.0), where Terraform means >= 5.0 < 6.0. A prerelease matches only a
 * constraint that names it exactly, as Terraform installs prereleases; with `inRange`, any prerelease
 * the comparisons admit (for rules over versions, not installs: blocking `< 6.2.0` blocks 6.2.0-beta1).
 */
export function terraformConstraint(text: string, attribute = 'versions', { inRange = false } = {}): (version: string) => boolean {
  const parts = text.split(',').map((part) => part.trim())
  const tests = parts.map((part) => {
    const match = /^(=|!=|>=|<=|>|<|~>)?\s*v?(\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/.exec(part)
    if (!match) throw new InvalidInputError(`"${text}" is not a version constraint (like "~> 5.0" or ">= 1.2, < 2.0").`, attribute)
    const operator = match[1] ?? '='
    const written = match[2]!
    const segments = written.split(/[-+]/)[0]!.split('.').length
    // `5.0` is 5.0.0; a full version (a prerelease among them) stands as written.
    const bound = semver.valid(written) ?? semver.coerce(written)!.version
    return { operator, bound, segments, exact: operator === '=' }
  })
  return (version) => {
    if (semver.valid(version) === null) return false
    // A prerelease only when asked for by name.
    if (!inRange && semver.prerelease(version) && !tests.some((test) => test.exact && semver.eq(version, test.bound))) return false
    return tests.every(({ operator, bound, segments }) => {
      switch (operator) {
        case '=':
          return semver.eq(version, bound)
        case '!=':
          return !semver.eq(version, bound)
        case '>':
          return semver.gt(version, bound)
        case '>=':
          return semver.gte(version, bound)
        case '<':
          return semver.lt(version, bound)
        case '<=':
          return semver.lte(version, bound)
        default: {
          // ~>: every segment but the last as written, the last at least as written.
          if (semver.lt(version, bound)) return false
          if (segments === 1) return true
          if (semver.major(version) !== semver.major(bound)) return false
          return segments === 2 || semver.minor(version) === semver.minor(bound)
        }
      }
    })
  }
}
