import semver from 'semver'
import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../lib/session'
import { ErrorMessage, Loading } from '../../lib/ui'
import { compareOptions, type ModuleAddress } from './api'
import { InterfaceChanges } from './InterfaceChanges'

/**
 * What the version shown changes in the interface since another published version (by default the
 * one before it), and whether its version step says so: the module page's Changes tab. The version
 * compared with is in the address (`from`), so a comparison is a link to share.
 */
export function CompareVersions({
  address,
  versions,
  selected,
  from,
  setFrom
}: {
  address: ModuleAddress
  versions: string[]
  selected: string
  from: string
  setFrom: (version: string) => void
}) {
  const { client } = useSession()
  const sorted = semver.rsort([...versions])
  const others = sorted.filter((version) => version !== selected)
  const base = others.includes(from) ? from : (sorted.find((version) => semver.lt(version, selected)) ?? others[0] ?? selected)
  const diff = useQuery({ ...compareOptions(client, address, base, selected), enabled: others.length > 0 })
  if (others.length === 0) return <p className="muted">{selected} is the only published version: there is nothing to compare it with.</p>
  return (
    <section className="stack-tight" aria-labelledby="compare-title">
      <h3 id="compare-title">Interface changes</h3>
      <div className="field">
        <label htmlFor="compare-from">
          What {selected} changes since
        </label>
        <select id="compare-from" value={base} onChange={(event) => setFrom(event.target.value)}>
          {others.map((version) => (
            <option key={version} value={version}>
              {version}
            </option>
          ))}
        </select>
      </div>
      {diff.isPending && <Loading what="the comparison" />}
      <ErrorMessage error={diff.error} action="Could not compare them" />
      {diff.data && <InterfaceChanges diff={diff.data.data.attributes} />}
    </section>
  )
}
