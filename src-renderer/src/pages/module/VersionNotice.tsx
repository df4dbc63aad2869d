import semver from 'semver'
import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../lib/session'
import { AppLink } from '../../lib/link'
import { versionOptions, type ModuleAddress, type ModuleAttributes } from '../../features/modules/api'
import type { ProtocolDeprecation } from '@shared/wire/modules'
import { newestInstallable } from '../../features/modules/newest'

/**
 * Above the documentation, what a reader of this version must know first (the public registry's
 * banners): that it is revoked or deprecated, in its publisher's words, or that a newer version
 * exists, with a link to it. The sidebar's lifecycle card says who did it and when, and undoes it.
 */
export function VersionNotice({ address, attributes, version, deprecation }: { address: ModuleAddress; attributes: ModuleAttributes; version: string; deprecation: ProtocolDeprecation | null }) {
  const { client } = useSession()
  // A private version's record has the revocation's own message (the protocol carries the deprecation's only).
  const record = useQuery({ ...versionOptions(client, address, version), enabled: address.registry === 'private' })
  const revocation = record.data?.data.attributes.revocation
  const revoked = attributes['revoked-versions'].includes(version)
  const statement = revocation ? { reason: revocation.message, link: revocation.link } : deprecation
  const latest = newestInstallable(attributes)
  const toLatest = latest && latest !== version && <AppLink to={{ page: 'module', ...address, version: latest }}>See {latest}, the latest.</AppLink>
  if (revoked || deprecation) {
    return (
      <p className="banner lifecycle-notice" role="note">
        <strong>{revoked ? `${version} is revoked: Terraform installs it for no one new.` : `${version} is deprecated.`}</strong>
        {statement?.reason && <> {statement.reason}</>}
        {statement?.link && (
          <>
            {' '}
            <a href={statement.link} target="_blank" rel="noreferrer noopener">
              More
            </a>
          </>
        )}{' '}
        {toLatest}
      </p>
    )
  }
  if (!toLatest || !semver.lt(version, latest)) return null
  return (
    <p className="banner" role="note">
      This is an older version of the module. {toLatest}
    </p>
  )
}
