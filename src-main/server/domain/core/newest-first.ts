import semver, { type SemVer } from 'semver'
import { Lru } from '../../../shared/lru.js'

/**
 * How many parsed versions are kept, by their text: far more than the distinct versions of most
 * registries (they repeat from module to module: 1.0.0, 2.3.1), and a few megabytes at most.
 */
const PARSED_KEPT = 20_000
/** Never handed out of this file: a SemVer can be changed in place (inc). */
const parsedVersions = new Lru<string, SemVer>(PARSED_KEPT)

/**
 * `items` in a new array, newest version first: semantic version order, build metadata ignored, items
 * of equal versions in their order (as `sort(semver.rcompare)`). Each version is parsed once, and
 * kept, not parsed at every comparison: the module list's page of 20 modules (one with 500 versions)
 * parsed thousands of versions, a megabyte of garbage an answer, and the young-generation collections
 * it caused were most of the list's slow answers. Throws a TypeError for a version that is not
 * semantic, as semver does.
 */
export function newestFirst<T>(items: readonly T[], versionOf: (item: T) => string): T[] {
  const keyed = items.map((item) => ({ item, version: parsed(versionOf(item)) }))
  return keyed.sort((a, b) => b.version.compare(a.version)).map(({ item }) => item)
}

/** Version strings, newest first (newestFirst). */
export function newestVersionsFirst(versions: readonly string[]): string[] {
  return newestFirst(versions, (version) => version)
}

/** Of versions newest first, the newest stable one, or the newest prerelease when none is stable (as Terraform picks, unconstrained). */
export function latestOf<T extends { version: string }>(versions: readonly T[]): T | undefined {
  return versions.find((item) => parsed(item.version).prerelease.length === 0) ?? versions[0]
}

function parsed(version: string): SemVer {
  let found = parsedVersions.get(version)
  if (!found) parsedVersions.set(version, (found = new semver.SemVer(version)))
  return found
}
