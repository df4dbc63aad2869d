import semver from 'semver'

/** The newest stable version, or the newest prerelease when there is no stable one (as the registry picks its latest). */
export function newest(versions: string[]): string | undefined {
  const sorted = semver.rsort([...versions])
  return sorted.find((version) => semver.prerelease(version) === null) ?? sorted[0]
}
