import { useState } from 'react'
import { useSession } from '../lib/session'
import { OrganizationsPage } from '../features/organizations/OrganizationsPage'
import { ConnectTerraform } from '../features/terraform/ConnectTerraform'

type Page = 'organizations' | 'terraform'

export function App() {
  const { embedded, signOut } = useSession()
  const [page, setPage] = useState<Page>('organizations')
  return (
    <div className="shell" data-app-state="loaded">
      <nav className="topbar" aria-label="Homeport">
        <a className="brand" href="/">
          <img src="/favicon.svg" alt="" width={28} height={28} />
          Homeport
        </a>
        <div className="nav-links">
          <button type="button" className="link" aria-current={page === 'organizations' ? 'page' : undefined} onClick={() => setPage('organizations')}>
            Organizations
          </button>
          <button type="button" className="link" aria-current={page === 'terraform' ? 'page' : undefined} onClick={() => setPage('terraform')}>
            Connect Terraform
          </button>
          {!embedded && (
            <button type="button" className="link" onClick={signOut}>
              Sign out
            </button>
          )}
        </div>
      </nav>
      <main className="content">{page === 'organizations' ? <OrganizationsPage /> : <ConnectTerraform />}</main>
    </div>
  )
}
