import { useState } from 'react'
import semver from 'semver'
import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../lib/session'
import { ErrorMessage, Loading } from '../../lib/ui'
import { compareOptions, type ModuleAddress } from './api'
import { InterfaceChanges } from './InterfaceChanges'

/** Any two published versions side by side: what changed in the interface, and whether the version step says so. */
export function CompareVersions({ address, versions, selected }: { address: ModuleAddress; versions: string[]; selected: string }) {
  const { client } = useSession()
  const sorted = semver.rsort([...versions])
  const [to, setTo] = useState(selected)
  const [from, setFrom] = useState(sorted.find((version) => semver.lt(version, selected)) ?? selected)
  const diff = useQuery({ ...compareOptions(client, address, from, to), enabled: sorted.length > 1 })
  if (sorted.length < 2) return null
  const choice = (id: string, label: string, value: string, set: (version: string) => void) => (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => set(event.target.value)}>
        {sorted.map((version) => (
          <option key={version} value={version}>
            {version}
          </option>
        ))}
      </select>
    </div>
  )
  return (
    <section className="card padded stack-tight" aria-labelledby="compare-title">
      <h2 id="compare-title">Interface changes</h2>
      <div className="form-row">
        {choice('compare-from', 'From', from, setFrom)}
        {choice('compare-to', 'To', to, setTo)}
      </div>
      {diff.isPending && <Loading what="the comparison" />}
      <ErrorMessage error={diff.error} action="Could not compare them" />
      {diff.data && <InterfaceChanges diff={diff.data.data.attributes} />}
    </section>
  )
}
