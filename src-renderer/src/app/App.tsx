import { useSession } from '../lib/session'
import { OrganizationsPage } from '../features/organizations/OrganizationsPage'

export function App() {
  const { embedded, signOut } = useSession()
  return (
    <div className="shell" data-app-state="loaded">
      <nav className="topbar" aria-label="Homeport">
        <a className="brand" href="/">
          <img src="/favicon.svg" alt="" width={28} height={28} />
          Homeport
        </a>
        {!embedded && (
          <button type="button" className="link" onClick={signOut}>
            Sign out
          </button>
        )}
      </nav>
      <main className="content">
        <OrganizationsPage />
      </main>
    </div>
  )
}
