import { useDeferredValue, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ErrorMessage } from '../../lib/ui'
import { accountOptions, organizationListOptions } from './api'
import { CreateOrganizationForm } from './CreateOrganizationForm'
import { SampleModule } from './SampleModule'
import { AppLink } from '../../lib/link'

/** The first screen: every organization the signed-in token can see. */
export function OrganizationsPage() {
  const { client } = useSession()
  const [search, setSearch] = useState('')
  const deferredSearch = useDeferredValue(search.trim())
  const [creating, setCreating] = useState(false)
  const organizations = useQuery(organizationListOptions(client, deferredSearch))
  const items = organizations.data?.data ?? []
  // Only the site admin creates organizations: a team's token is not offered what it would be refused.
  const siteAdmin = useQuery(accountOptions(client)).data?.data.attributes['is-site-admin'] === true

  return (
    <section aria-labelledby="organizations-heading">
      <header className="page-header">
        <div>
          <h1 id="organizations-heading">Organizations</h1>
          <p className="muted">Each organization has its own private modules, teams and tokens.</p>
        </div>
        {siteAdmin && (
          <button type="button" className="primary" onClick={() => setCreating(true)} disabled={creating}>
            New organization
          </button>
        )}
      </header>

      {creating && <CreateOrganizationForm onDone={() => setCreating(false)} />}

      <input
        type="search"
        className="search"
        aria-label="Search organizations by name or e-mail"
        placeholder="Search by name or e-mail"
        value={search}
        onChange={(event) => setSearch(event.target.value)}
      />

      {organizations.isPending && <p className="muted">Loading organizations…</p>}
      <ErrorMessage error={organizations.error} action="Could not load organizations" />
      {organizations.isSuccess && items.length === 0 && (
        <div className="empty">
          {deferredSearch ? (
            <p>No organization matches “{deferredSearch}”.</p>
          ) : (
            <>
              <h2>No organizations yet</h2>
              <p className="muted">{siteAdmin ? 'Create one to start publishing modules.' : 'Your token belongs to no organization it can see; the site admin creates organizations.'}</p>
              {siteAdmin && <SampleModule />}
              {siteAdmin && (
                <p className="hint">
                  Homeport also mirrors the public registries. A new public version can be held until it is a week old, which keeps a hijacked release out until
                  it has been noticed: set a 7-day cooldown on the <AppLink to={{ page: 'gate' }}>Gate</AppLink> page (or start with <code>--cooldown 7d</code>).
                </p>
              )}
            </>
          )}
        </div>
      )}
      {items.length > 0 && (
        <ul className="card-list" aria-label="Organizations">
          {items.map((org) => (
            <li key={org.id}>
              <AppLink className="card org-card" to={{ page: 'organization', org: org.id, tab: 'modules' }}>
                <div className="org-avatar" aria-hidden="true">
                  {org.attributes.name.slice(0, 1).toUpperCase()}
                </div>
                <div>
                  <h2>{org.attributes.name}</h2>
                  <p className="muted">{org.attributes.email}</p>
                  {org.attributes['module-count'] !== undefined && (
                    <p className="muted">
                      {org.attributes['module-count'].toLocaleString()} module{org.attributes['module-count'] === 1 ? '' : 's'}
                    </p>
                  )}
                </div>
                <p className="muted org-created">Created {formatDate(org.attributes['created-at'])}</p>
              </AppLink>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
