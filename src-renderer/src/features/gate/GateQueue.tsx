import semver from 'semver'
import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import { formatDate, formatDateTime } from '../../lib/format'
import { ErrorMessage, Loading } from '../../lib/ui'
import { AppLink } from '../../lib/link'
import { gateRequestsOptions, useDecideRequest, type GateRequestAttributes, type GateScope } from './api'

const STATUS: Record<string, { words: string; tone: string }> = {
  pending: { words: 'waiting', tone: 'warn' },
  approved: { words: 'approved', tone: 'good' },
  denied: { words: 'denied', tone: 'bad' }
}

/**
 * For a curated module in an organization's queue: its Changes tab, comparing the version with the last
 * one approved before it (the interface diff and the changelog, where Homeport has both mirrored).
 */
function ChangesLink({ scope, request, approved }: { scope: GateScope; request: GateRequestAttributes; approved: GateRequestAttributes[] }) {
  if (scope === undefined || request.kind !== 'module') return null
  const [, namespace = '', name = '', provider = ''] = request.package.split('/')
  const previous = approved
    .filter((other) => other.package === request.package && other.status === 'approved' && semver.lt(other.version, request.version))
    .sort((a, b) => semver.rcompare(a.version, b.version))[0]
  const query = new URLSearchParams({ tab: 'changes', ...(previous ? { from: previous.version } : {}) }).toString()
  return (
    <div className="small">
      <AppLink to={{ page: 'module', org: scope, registry: 'public', namespace, name, provider, version: request.version, query }}>
        {previous ? `Changes since ${previous.version}, the last approved` : 'Its changes'}
      </AppLink>
    </div>
  )
}

/** The scope's approval queue: one row per version, who tried to install it, when it was published; approve or deny with a reason. */
export function GateQueue({ client, scope, canManage }: { client: ApiClient; scope: GateScope; canManage: boolean }) {
  const requests = useQuery(gateRequestsOptions(client, scope))
  const decide = useDecideRequest(client, scope)
  const [reasons, setReasons] = useState<Record<string, string>>({})
  const id = `gate-${scope ?? 'installation'}-queue`
  return (
    <section className="card padded stack-tight" aria-labelledby={id}>
      <h2 id={id}>Approvals</h2>
      {requests.isPending && <Loading what="the queue" />}
      {requests.isError && <p className="muted">Only those who decide this gate see its queue.</p>}
      {requests.data && requests.data.data.length === 0 && <p className="muted">Nothing waits for a decision. With approvals on, a version appears here when someone tries to install it.</p>}
      {requests.data && requests.data.data.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Approvals">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Published</th>
                <th scope="col">Asked for by</th>
                <th scope="col">Decision</th>
              </tr>
            </thead>
            <tbody>
              {requests.data.data.map(({ id: requestId, attributes: request }) => {
                const reasonId = `${id}-${requestId}-reason`
                return (
                  <tr key={requestId}>
                    <td>
                      <code>{request.package}</code> {request.version} <span className="muted">{request.kind}</span>
                      <ChangesLink scope={scope} request={request} approved={requests.data.data.map((entry) => entry.attributes)} />
                    </td>
                    <td>{request['published-at'] ? formatDate(request['published-at']) : <span className="muted">not said; first seen {formatDate(request['requested-at'])}</span>}</td>
                    <td>
                      {request.requesters.length === 0 ? (
                        <span className="muted">decided ahead of any request</span>
                      ) : (
                        request.requesters.map((requester) => (
                          <div key={`${requester.who}-${requester.at}`}>
                            {requester.who} <span className="muted">{formatDateTime(requester.at)}</span>
                          </div>
                        ))
                      )}
                    </td>
                    <td>
                      <span className={`badge ${STATUS[request.status]?.tone ?? 'neutral'}`}>{STATUS[request.status]?.words ?? request.status}</span>
                      {request['decided-by'] && (
                        <div className="muted small">
                          by {request['decided-by']} {formatDateTime(request['decided-at'])}
                          {request.reason && `: ${request.reason}`}
                        </div>
                      )}
                      {canManage && request.status === 'pending' && (
                        <div className="form-row">
                          <div className="field grow">
                            <label htmlFor={reasonId}>Reason</label>
                            <input id={reasonId} value={reasons[requestId] ?? ''} onChange={(event) => setReasons({ ...reasons, [requestId]: event.target.value })} />
                          </div>
                          <button type="button" disabled={decide.isPending} aria-label={`Approve ${request.package} ${request.version}`} onClick={() => decide.mutate({ id: requestId, status: 'approved', reason: reasons[requestId] ?? '' })}>
                            Approve
                          </button>
                          <button type="button" className="danger-outline" disabled={decide.isPending} aria-label={`Deny ${request.package} ${request.version}`} onClick={() => decide.mutate({ id: requestId, status: 'denied', reason: reasons[requestId] ?? '' })}>
                            Deny
                          </button>
                        </div>
                      )}
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
      <ErrorMessage error={decide.error} action="Not decided" />
    </section>
  )
}
