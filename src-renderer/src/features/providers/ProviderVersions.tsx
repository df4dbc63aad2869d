import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ActionsHeader, ConfirmButton, ErrorMessage } from '../../lib/ui'
import { changeProviderDeprecation, deleteProviderVersion, platformListOptions, providerKeys, type VersionResource } from './api'

/** A provider's versions, newest first: the key that signed each, its files, platforms and status, and what the caller may do with it. */
export function VersionTable({ org, name, versions }: { org: string; name: string; versions: VersionResource[] }) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={`Versions of ${name}`}>
    <table className="table">
      <thead>
        <tr>
          <th scope="col">Version</th>
          <th scope="col">Signed by key</th>
          <th scope="col">SHA256SUMS and signature</th>
          <th scope="col">Platforms</th>
          <th scope="col">Plugin protocols</th>
          <th scope="col">Status</th>
          <ActionsHeader />
        </tr>
      </thead>
      <tbody>
        {versions.map((version) => (
          <VersionRow key={version.id} org={org} name={name} version={version} />
        ))}
      </tbody>
    </table>
    </div>
  )
}

function VersionRow({ org, name, version }: { org: string; name: string; version: VersionResource }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const platforms = useQuery(platformListOptions(client, org, name, version.attributes.version))
  const remove = useMutation({
    mutationFn: () => deleteProviderVersion(client, org, name, version.attributes.version),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: providerKeys.all(org) })
  })
  const { attributes } = version
  const files = attributes['shasums-uploaded'] && attributes['shasums-sig-uploaded'] ? 'uploaded and checked' : attributes['shasums-uploaded'] ? 'signature missing' : 'missing'
  const offered = attributes['shasums-sig-uploaded'] && attributes['shasums-uploaded'] && platforms.data?.data.some((platform) => platform.attributes['provider-binary-uploaded']) === true
  return (
    <tr>
      <td>
        <strong>{attributes.version}</strong> <span className="muted">{formatDate(attributes['created-at'])}</span>
      </td>
      <td>
        <code>{attributes['key-id']}</code>
      </td>
      <td>{files}</td>
      <td>
        {platforms.data?.data.map((platform) => (
          <span key={platform.id} className={`badge ${platform.attributes['provider-binary-uploaded'] ? 'good' : 'neutral'}`} title={platform.attributes.filename}>
            {platform.attributes.os}_{platform.attributes.arch}
            {platform.attributes['provider-binary-uploaded'] ? '' : ' (no zip)'}
          </span>
        ))}
      </td>
      <td>{attributes.protocols.length > 0 ? attributes.protocols.join(', ') : <span className="muted">not said</span>}</td>
      <td>
        {attributes.deprecation ? (
          <p>
            <span className="badge warn">Deprecated</span> {attributes.deprecation.reason}
            {attributes.deprecation.link && (
              <>
                {' '}
                <a href={attributes.deprecation.link} target="_blank" rel="noreferrer noopener">
                  More
                </a>
              </>
            )}
            <br />
            <span className="muted">
              By {attributes.deprecation['deprecated-by']} on {formatDate(attributes.deprecation['deprecated-at'])}. Terraform and OpenTofu print the reason at every init.
            </span>
          </p>
        ) : (
          <span className="muted">{offered ? 'Offered to Terraform' : 'Not offered until its files are in'}</span>
        )}
      </td>
      <td>
        <div className="stack-tight">
          {attributes.permissions['can-deprecate'] && offered && <Deprecation org={org} name={name} version={version} />}
          {attributes.permissions['can-delete'] && (
            <ConfirmButton label="Delete" subject={attributes.version} confirm={`Delete ${attributes.version} and its files?`} onConfirm={() => remove.mutate()} busy={remove.isPending} />
          )}
          {remove.isError && <ErrorMessage error={remove.error} />}
        </div>
      </td>
    </tr>
  )
}

/** Deprecating a version with a reason (and a link), or taking it back. */
function Deprecation({ org, name, version }: { org: string; name: string; version: VersionResource }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const [asking, setAsking] = useState(false)
  const [reason, setReason] = useState('')
  const [link, setLink] = useState('')
  const number = version.attributes.version
  const change = useMutation({
    mutationFn: (deprecation: Parameters<typeof changeProviderDeprecation>[4]) => changeProviderDeprecation(client, org, name, number, deprecation),
    onSuccess: async () => {
      setAsking(false)
      setReason('')
      setLink('')
      await queryClient.invalidateQueries({ queryKey: providerKeys.all(org) })
    }
  })
  const ids = `deprecate-${version.id}`
  return (
    <>
      {version.attributes.deprecation ? (
        <button type="button" disabled={change.isPending} onClick={() => change.mutate({ 'deprecated-status': 'Undeprecated' })}>
          Undeprecate {number}
        </button>
      ) : asking ? (
        <form
          className="stack-tight"
          aria-label={`Deprecate ${name} ${number}`}
          onSubmit={(event) => {
            event.preventDefault()
            change.mutate({ 'deprecated-status': 'Deprecated', reason, link: link.trim() || null })
          }}
        >
          <label htmlFor={`${ids}-reason`}>Why (Terraform prints it)</label>
          <textarea id={`${ids}-reason`} value={reason} required rows={2} onChange={(event) => setReason(event.target.value)} />
          <label htmlFor={`${ids}-link`}>Link (optional)</label>
          <input id={`${ids}-link`} type="url" value={link} placeholder="https://…" onChange={(event) => setLink(event.target.value)} />
          <div className="form-row">
            <button type="submit" className="primary" disabled={change.isPending}>
              Deprecate
            </button>
            <button type="button" onClick={() => setAsking(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <button type="button" onClick={() => setAsking(true)}>
          Deprecate {number}
        </button>
      )}
      <ErrorMessage error={change.error} action="Could not change it" />
    </>
  )
}
