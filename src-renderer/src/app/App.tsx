import { useEffect, useRef } from 'react'
import { useSession } from '../lib/session'
import { OrganizationsPage } from '../features/organizations/OrganizationsPage'
import { OrganizationPage } from '../features/organizations/OrganizationPage'
import { ModulePage } from '../features/modules/ModulePage'
import { ConnectTerraform } from '../features/terraform/ConnectTerraform'
import { AppSettings } from '../features/settings/AppSettings'
import { MirrorPage } from '../features/mirror/MirrorPage'
import { BundlesPage } from '../features/bundles/BundlesPage'
import { AuthorizeLogin } from '../features/terraform/AuthorizeLogin'
import { hrefOf, useRoute, type Route } from './router'

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'organizations':
      return <OrganizationsPage />
    case 'organization':
      return <OrganizationPage key={route.org} org={route.org} tab={route.tab} query={route.query} />
    case 'module':
      return (
        <ModulePage
          key={`${route.registry}/${route.namespace}/${route.name}/${route.provider}`}
          address={{ org: route.org, registry: route.registry, namespace: route.namespace, name: route.name, provider: route.provider }}
          version={route.version}
          query={route.query ?? ''}
        />
      )
    case 'terraform':
      return <ConnectTerraform />
    case 'mirror':
      return <MirrorPage />
    case 'bundles':
      return <BundlesPage />
    case 'app-settings':
      return <AppSettings />
    case 'authorize':
      return <AuthorizeLogin query={route.query} />
  }
}

/** The window's title for a route: what is shown first, Homeport last. */
function titleOf(route: Route): string {
  switch (route.page) {
    case 'organizations':
      return 'Organizations'
    case 'organization':
      return `${route.org} · ${route.tab}`
    case 'module':
      return `${route.namespace}/${route.name}/${route.provider}${route.version ? ` ${route.version}` : ''}`
    case 'terraform':
      return 'Connect Terraform'
    case 'mirror':
      return 'Provider mirror'
    case 'bundles':
      return 'Bundles'
    case 'app-settings':
      return 'Settings'
    case 'authorize':
      return 'Approve terraform login'
  }
}

export function App() {
  const { embedded, signOut } = useSession()
  const route = useRoute()
  const title = titleOf(route)
  // Another page, not another version, part or tab of the same module (whose controls keep the focus), nor other list filters.
  const page = route.page === 'module' ? hrefOf({ ...route, version: undefined, query: undefined }) : hrefOf({ ...route, ...(route.page === 'organization' ? { query: undefined } : {}) })
  const first = useRef(true)
  useEffect(() => {
    document.title = `${title} · Homeport`
  }, [title])
  useEffect(() => {
    // After a navigation, focus goes to the new page (not left on the link that went away); not on the first load.
    if (first.current) first.current = false
    else document.getElementById('main')?.focus()
  }, [page])
  const section = route.page === 'organization' || route.page === 'module' ? 'organizations' : route.page
  const link = (page: 'organizations' | 'terraform' | 'mirror' | 'bundles' | 'app-settings', label: string) => (
    <a href={hrefOf({ page })} aria-current={section === page ? 'page' : undefined}>
      {label}
    </a>
  )
  return (
    <div className="shell" data-app-state="loaded">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <nav className="topbar" aria-label="Homeport">
        <a className="brand" href="#/">
          <img src="/favicon.svg" alt="" width={28} height={28} />
          Homeport
        </a>
        <div className="nav-links">
          {link('organizations', 'Organizations')}
          {link('terraform', 'Connect Terraform')}
          {link('mirror', 'Mirror')}
          {link('bundles', 'Bundles')}
          {link('app-settings', 'Settings')}
          {!embedded && (
            <button type="button" className="link" onClick={signOut}>
              Sign out
            </button>
          )}
        </div>
      </nav>
      <main className="content" id="main" tabIndex={-1}>
        <Page route={route} />
      </main>
    </div>
  )
}
