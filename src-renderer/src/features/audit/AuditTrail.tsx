import { useDeferredValue, useEffect, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { queryOf, replaceAddress } from '../../lib/router'
import { formatDateTime } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ClearFilters, Empty, ErrorMessage, Loading } from '../../lib/ui'
import { AppLink } from '../../lib/link'
import { auditTrailOptions, type AuditFilters, type AuditTrailEvent } from './api'
import { eventWords } from './event-words'

/** The actions the trail names most; any other is searched by its words. */
const ACTIONS = ['create', 'update', 'destroy', 'upload', 'deprecate', 'undeprecate', 'revoke', 'unrevoke', 'approve', 'mirror', 'import', 'resync', 'retry']

const CREDENTIALS: Record<AuditTrailEvent['auth']['credential'], string> = {
  'site-admin': 'site admin',
  team: 'team token',
  user: 'a person (single sign-on)',
  'organization-token': 'organization token',
  link: 'a signed link Homeport gave out',
  anonymous: 'no valid token',
  system: 'Homeport'
}

/**
 * An organization's audit trail, for its owners: every change, and every write refused, newest
 * first, with who (and with which kind of credential), what it did to which resource, when, and
 * from where; narrowed by action, kind of resource and words, the filters kept in the address.
 */
export function AuditTrail({ org, query }: { org: string; query?: string }) {
  const { client } = useSession()
  const initial = new URLSearchParams(query)
  const [action, setAction] = useState(initial.get('action') ?? '')
  const [type, setType] = useState(initial.get('type') ?? '')
  const [search, setSearch] = useState(initial.get('q') ?? '')
  const filters: AuditFilters = { action, type: useDeferredValue(type.trim()), q: useDeferredValue(search.trim()) }
  const filterKey = JSON.stringify(filters)
  // The page chosen under these filters; other filters start again from the newest.
  const [paging, setPaging] = useState({ filterKey, page: 1 })
  const page = paging.filterKey === filterKey ? paging.page : 1
  const setPage = (next: number) => setPaging({ filterKey, page: next })
  useEffect(() => {
    replaceAddress({ page: 'organization', org, tab: 'audit', query: queryOf({ action: filters.action, type: filters.type, q: filters.q }, ['action', 'type', 'q']) })
  }, [org, filters.action, filters.type, filters.q])
  const trail = useQuery(auditTrailOptions(client, org, filters, page))
  const pagination = trail.data?.pagination
  const filtered = Boolean(filters.action || filters.type || filters.q)

  return (
    <section className="stack" aria-labelledby="audit-title">
      <div>
        <h2 id="audit-title">Audit trail</h2>
        <p className="muted">
          Every change made in this organization, through the GUI, the API, Terraform or a pipeline, and every change refused: who, what, when and from where. Homeport keeps it for as long
          as the site admin’s retention says (forever unless set). A pipeline reads it as on HCP Terraform, with the organization’s audit-trails token.
        </p>
      </div>
      <div className="filters" role="search">
        <input type="search" aria-label="Search the audit trail by who or what" placeholder="Search who or what" value={search} onChange={(event) => setSearch(event.target.value)} />
        <select aria-label="Action" value={action} onChange={(event) => setAction(event.target.value)}>
          <option value="">All actions</option>
          {ACTIONS.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <input aria-label="Kind of resource" placeholder="Kind of resource" value={type} onChange={(event) => setType(event.target.value)} />
      </div>
      {trail.isPending && <Loading what="the audit trail" />}
      <ErrorMessage error={trail.error} action="Could not read the audit trail" />
      {trail.isSuccess && trail.data.data.length === 0 && (
        <Empty title={filtered ? 'No change matches these filters' : 'No change recorded yet'}>
          {filtered ? (
            <ClearFilters
              onClear={() => {
                setAction('')
                setType('')
                setSearch('')
              }}
            />
          ) : (
            'Changes appear here as they are made.'
          )}
        </Empty>
      )}
      {trail.isSuccess && trail.data.data.length > 0 && (
        <div className="card table-scroll" tabIndex={0} role="region" aria-label="Audit events">
          <table className="audit-table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {trail.data.data.map((event) => (
                <tr key={event.id}>
                  <td>
                    <time dateTime={event.timestamp}>{formatDateTime(event.timestamp)}</time>
                  </td>
                  <td>
                    {event.auth.description}
                    {event.auth.credential !== 'site-admin' && <div className="muted small">{CREDENTIALS[event.auth.credential]}</div>}
                  </td>
                  <td className="audit-resource">
                    <EventSentence event={event} org={org} />
                  </td>
                  <td>{event.request ? event.request.ip : <span className="muted">the command line</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pagination && pagination.total_pages > 1 && (
        <nav className="form-row" aria-label="Audit trail pages">
          <button type="button" disabled={pagination.prev_page === null} onClick={() => setPage(pagination.prev_page ?? 1)}>
            Newer
          </button>
          <span className="muted">
            Page {pagination.current_page} of {pagination.total_pages} ({pagination.total_count} changes)
          </span>
          <button type="button" disabled={pagination.next_page === null} onClick={() => setPage(pagination.next_page ?? pagination.current_page)}>
            Older
          </button>
        </nav>
      )}
    </section>
  )
}

/** What happened, in words, with a link to the resource where it has a page; its id for the record. */
function EventSentence({ event, org }: { event: AuditTrailEvent; org: string }) {
  const words = eventWords(event, org)
  return (
    <>
      <span className={event.resource.meta.outcome === 'refused' ? 'refused' : undefined}>{words.verb}</span> {words.kind && `${words.kind} `}
      {words.to ? <AppLink to={words.to}>{words.name}</AppLink> : <strong>{words.name}</strong>}
      {event.resource.meta.outcome === 'refused' && <span className="small refused"> (refused: nothing changed)</span>}
      <div className="muted small" title={`${event.resource.type} ${event.resource.id}`}>
        under “{event.resource.meta.permission}”
      </div>
    </>
  )
}
