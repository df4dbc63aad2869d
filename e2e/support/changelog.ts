const SUBJECTS = ['`azs`', '`private_subnets`', 'flow logs', 'the default security group', 'IPv6 subnets', 'NAT gateways', 'VPC endpoints', 'the DHCP options set', 'customer gateways', 'network ACLs']

/** The `count` releases before `newest`, newest first: patches down to .0, then the minor before (its last patch 1–5), then the major before. */
function releasesBefore(newest: string, count: number): string[] {
  let [major, minor, patch] = newest.split('.').map(Number) as [number, number, number]
  const releases: string[] = []
  while (releases.length < count) {
    if (patch > 0) patch--
    else if (minor > 0) [minor, patch] = [minor - 1, 1 + ((minor * 7) % 5)]
    else if (major > 0) [major, minor, patch] = [major - 1, 6 + (major % 4), 3]
    if (major + minor + patch === 0) break
    releases.push(`${major}.${minor}.${patch}`)
  }
  return releases
}

/**
 * Older releases of a CHANGELOG.md as semantic-release writes one (conventional commits), newest
 * first, each a compare link and a date, its features and fixes, each with its pull request and commit:
 * what a module with years of releases ships (terraform-aws-vpc's is a page about 30,000 px tall).
 */
export function olderReleases(repository: string, newest: string, count: number, lastDate: string): string {
  const releases = releasesBefore(newest, count)
  return releases
    .map((version, index) => {
      const previous = releases[index + 1] ?? '0.0.0'
      const date = new Date(Date.parse(lastDate) - (index + 1) * 9 * 86_400_000).toISOString().slice(0, 10)
      const item = (n: number) => {
        const pull = 1040 - index * 4 - n
        const commit = ((index + 1) * 2654435761 + n * 40503).toString(16).padStart(8, '0').slice(-7)
        return `* ${n % 2 ? 'Add support for' : 'Correct how the module handles'} ${SUBJECTS[(index + n) % SUBJECTS.length]} ([#${pull}](${repository}/issues/${pull})) ([${commit}](${repository}/commit/${commit}))`
      }
      const features = version.endsWith('.0') ? `### Features\n\n${[1, 3].slice(0, 1 + (index % 2)).map(item).join('\n')}\n\n` : ''
      const fixes = version.endsWith('.0') && index % 3 === 0 ? '' : `### Bug Fixes\n\n${[0, 2].slice(0, 1 + (index % 2)).map(item).join('\n')}\n`
      return `## [${version}](${repository}/compare/v${previous}...v${version}) (${date})\n\n\n${features}${fixes}`
    })
    .join('\n')
}
