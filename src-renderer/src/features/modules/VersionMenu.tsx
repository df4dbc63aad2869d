import semver from 'semver'
import { formatDate, formatDateTime } from '../../lib/format'
import type { ModuleAttributes } from './api'
import { newest } from './newest'

type Published = ModuleAttributes['published-versions'][number]

/** Where a version came from: its git tag, or the commit it was built from (shortened as git shows it). */
function origin(entry: Published | undefined): string {
  if (entry?.tag) return `tag ${entry.tag}`
  if (entry?.['commit-sha']) return `commit ${entry['commit-sha'].slice(0, 7)}`
  return ''
}

/**
 * The published versions, newest first, each with what a reader picks by: latest, prerelease,
 * deprecated or revoked, when it was published and from which tag or commit (HCP's and the public
 * registry's version menus); and, beside it, the same of the version shown.
 */
export function VersionMenu({ attributes, version, onChange }: { attributes: ModuleAttributes; version: string; onChange: (version: string) => void }) {
  const published = attributes['published-versions']
  const byVersion = new Map(published.map((entry) => [entry.version, entry]))
  const latest = newest(published.map((entry) => entry.version))
  const marks = (candidate: string) =>
    [
      candidate === latest && 'latest',
      semver.prerelease(candidate) !== null && 'prerelease',
      attributes['revoked-versions'].includes(candidate) ? 'revoked' : attributes['deprecated-versions'].includes(candidate) && 'deprecated'
    ].filter(Boolean)
  const current = byVersion.get(version)
  return (
    <>
      <label>
        Version{' '}
        <select value={version} onChange={(event) => onChange(event.target.value)} aria-label="Version">
          {semver.rsort(published.map((entry) => entry.version)).map((candidate) => (
            <option key={candidate} value={candidate}>
              {[candidate + (marks(candidate).length > 0 ? ` (${marks(candidate).join(', ')})` : ''), formatDate(byVersion.get(candidate)?.['published-at']), origin(byVersion.get(candidate))]
                .filter(Boolean)
                .join(' · ')}
            </option>
          ))}
        </select>
      </label>
      <span className="muted" aria-label="About this version">
        {marks(version).length > 0 && `${marks(version).join(', ')} · `}published {formatDateTime(current?.['published-at'])}
        {origin(current) && ` from ${origin(current)}`}
      </span>
    </>
  )
}
