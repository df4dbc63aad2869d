import semver from 'semver'
import type { ModuleAttributes } from '@shared/wire/modules'

/** The newest stable version, or the newest prerelease when there is no stable one (as the registry picks its latest). */
export function newest(versions: string[]): string | undefined {
  const sorted = semver.rsort([...versions])
  return sorted.find((version) => semver.prerelease(version) === null) ?? sorted[0]
}

/** The newest version of a module that someone new may install: published, and not revoked. */
export function newestInstallable(attributes: Pick<ModuleAttributes, 'published-versions' | 'revoked-versions'>): string | undefined {
  return newest(attributes['published-versions'].map((entry) => entry.version).filter((version) => !attributes['revoked-versions'].includes(version)))
}
