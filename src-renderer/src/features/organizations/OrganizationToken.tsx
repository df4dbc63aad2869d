import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { NewToken } from '../../lib/new-token'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ConfirmButton, ErrorMessage, Loading } from '../../lib/ui'
import { organizationTokenOptions, useDeleteOrganizationToken, useGenerateOrganizationToken } from './api'

/**
 * The organization token, for the pipeline that publishes this organization's modules and providers:
 * what it may do, whether there is one and until when, and generating, replacing or deleting it (owners).
 */
export function OrganizationToken({ org }: { org: string }) {
  const { client } = useSession()
  const current = useQuery(organizationTokenOptions(client, org))
  const generate = useGenerateOrganizationToken(client, org)
  const remove = useDeleteOrganizationToken(client, org)
  const [until, setUntil] = useState('')
  const [shown, setShown] = useState<string>()
  // The end of the chosen day, where the user is.
  const make = () => generate.mutate(until ? new Date(`${until}T23:59:59`).toISOString() : null, { onSuccess: setShown })
  const token = current.data?.data

  return (
    <section className="card padded stack-tight" aria-labelledby="organization-token-title">
      <h2 id="organization-token-title">Organization token</h2>
      <p className="muted">
        For a pipeline that publishes: it creates modules, versions and providers in this organization and reads them, but deletes nothing, manages no team and sees no other
        organization.
      </p>
      {current.isPending && <Loading what="the organization token" />}
      <ErrorMessage error={current.error ?? generate.error ?? remove.error} />
      {current.isSuccess && (
        <p role="status">
          {token
            ? `Made ${formatDate(token.attributes['created-at'])}; ${token.attributes['expired-at'] ? `expires ${formatDate(token.attributes['expired-at'])}` : 'never expires'}.`
            : 'None yet.'}
        </p>
      )}
      {shown && <NewToken token={shown} label="New organization token" onDone={() => setShown(undefined)} />}
      {current.isSuccess && (
        <div className="form-row">
          <div className="field">
            <label htmlFor="organization-token-until">Valid until (optional)</label>
            <input id="organization-token-until" type="date" value={until} min={new Date().toISOString().slice(0, 10)} onChange={(event) => setUntil(event.target.value)} />
          </div>
          {token ? (
            <ConfirmButton label="Replace token" confirm="The pipeline’s current token stops working at once. Replace it?" action="Replace" busyLabel="Replacing…" busy={generate.isPending} onConfirm={make} />
          ) : (
            <button type="button" className="primary" disabled={generate.isPending} onClick={make}>
              Generate token
            </button>
          )}
          {token && <ConfirmButton label="Delete token" confirm="Delete the organization token? Pipelines using it stop at once." busy={remove.isPending} onConfirm={() => remove.mutate()} />}
        </div>
      )}
    </section>
  )
}
