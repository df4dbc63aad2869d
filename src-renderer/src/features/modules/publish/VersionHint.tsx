import { useEffect } from 'react'
import { useQuery } from '@tanstack/react-query'
import semver from 'semver'
import { useSession } from '../../../lib/session'
import { moduleOptions, type ModuleAddress } from '../api'
import { newest } from '../newest'

/**
 * The version to publish, against those the module has: the next patch is proposed until one is chosen,
 * the next patch, minor and major are offered, and a version that exists, or jumps a major, is said to.
 */
export function VersionHint({
  address,
  version,
  onPick,
  proposing
}: {
  address: ModuleAddress
  version: string
  onPick: (version: string, chosen: boolean) => void
  proposing: boolean
}) {
  const { client } = useSession()
  const module = useQuery({ ...moduleOptions(client, address), enabled: Boolean(address.name && address.provider), retry: false })
  const versions = module.data?.data.attributes['version-statuses'].map((entry) => entry.version) ?? []
  // The latest as the registry has it (a prerelease only when nothing is stable): the next steps are taken from there.
  const latest = newest(versions.filter((candidate) => semver.valid(candidate)))
  const next = latest ? semver.inc(latest, 'patch')! : undefined
  useEffect(() => {
    if (proposing && next && version !== next) onPick(next, false)
  }, [proposing, next, version, onPick])
  if (!latest) return <p className="hint">A new module: its first version.</p>
  const offers = (['patch', 'minor', 'major'] as const).map((step) => semver.inc(latest, step)!)
  const exists = versions.includes(version)
  const jump = semver.valid(version) && semver.major(version) > semver.major(latest) + 1
  return (
    <div className="hint">
      <p>
        Latest is {latest}. Use{' '}
        {offers.map((offer, index) => (
          <span key={offer}>
            {index > 0 && ' · '}
            <button type="button" className="link" onClick={() => onPick(offer, true)}>
              {offer}
            </button>
          </span>
        ))}
      </p>
      {exists && <p role="alert">{version} exists already: a published version never changes. Pick a new one.</p>}
      {!exists && jump && (
        <p role="alert">
          {version} skips a major version after {latest}.
        </p>
      )}
    </div>
  )
}
