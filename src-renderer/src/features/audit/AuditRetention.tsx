import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../lib/session'
import { ErrorMessage } from '../../lib/ui'
import { retentionOptions, useSetRetention } from './api'

/** How long the audit trail keeps a change: forever unless the site admin sets a number of days. Shown to the site admin only. */
export function AuditRetention() {
  const { client } = useSession()
  const current = useQuery(retentionOptions(client))
  const save = useSetRetention(client)
  const [days, setDays] = useState<string>()
  if (!current.isSuccess) return null
  const kept = current.data.data.attributes['retention-days']
  const value = days ?? (kept === null ? '' : String(kept))
  return (
    <form
      className="card padded stack-tight"
      aria-labelledby="audit-retention-title"
      onSubmit={(event) => {
        event.preventDefault()
        save.mutate(value.trim() === '' ? null : Number(value), { onSuccess: () => setDays(undefined) })
      }}
    >
      <h2 id="audit-retention-title">Audit trail</h2>
      <p className="muted">Every change to every organization is recorded, with who made it and from where. {kept === null ? 'Homeport keeps every change.' : `Homeport keeps changes for ${kept} days.`}</p>
      <div className="form-row">
        <div className="field">
          <label htmlFor="audit-retention-days">Keep changes for (days)</label>
          <input id="audit-retention-days" type="number" min={1} max={3650} placeholder="forever" value={value} onChange={(event) => setDays(event.target.value)} />
        </div>
        <button type="submit" disabled={save.isPending || days === undefined}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
      <p className="hint">Leave it empty to keep every change. Older changes go within the hour after a shorter retention is saved.</p>
      <ErrorMessage error={save.error} action="Not saved" />
    </form>
  )
}
