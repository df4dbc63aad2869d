import { useEffect, useRef } from 'react'
import { useQuery } from '@tanstack/react-query'
import { accountOptions } from '../features/organizations/api'
import { Outlet } from '@tanstack/react-router'
import { useSession } from '../lib/session'
import { AppLink } from '../lib/link'
import { ToastProvider } from '../lib/toast'
import { GlobalSearch } from '../features/search/GlobalSearch'
import { hrefOf, ORG_TAB_LABELS, useRoute, type Route } from '../lib/router'
import { useTitleOverride } from '../lib/window-title'

/** The window's title for a route: what is shown first, Homeport last. */
function titleOf(route: Route): string {
  switch (route.page) {
    case 'organizations':
      return 'Organizations'
    case 'organization':
      return `${route.org} · ${ORG_TAB_LABELS[route.tab]}`
    case 'module':
      return `${route.namespace}/${route.name}/${route.provider}${route.version ? ` ${route.version}` : ''}`
    case 'provider':
      return `${route.org}/${route.name} · provider`
    case 'mirrored-provider':
      return `${route.hostname}/${route.namespace}/${route.type} · provider`
    case 'search':
      return route.query ? `Search: ${route.query}` : 'Search'
    case 'terraform':
      return 'Connect Terraform'
    case 'mirror':
      return 'Provider mirror'
    case 'gate':
      return 'Gate'
    case 'bundles':
      return 'Bundles'
    case 'app-settings':
      return 'Settings'
    case 'account':
      return 'Your account'
    case 'authorize':
      return 'Approve terraform login'
    case 'not-found':
      return 'Page not found'
  }
}

/** The shell every view opens in (the router's root): the top bar, and the view. */
export function App() {
  const { client, embedded, signOut } = useSession()
  // Who is signed in, in the top bar: the person's username, or the name HCP gives a token's account.
  const who = useQuery(accountOptions(client)).data?.data.attributes.username
  const route = useRoute()
  const title = useTitleOverride() ?? titleOf(route)
  // Another page, not another version, part or tab of the same module (whose controls keep the focus), nor other list filters or another doc of a provider.
  const page = route.page === 'module' ? hrefOf({ ...route, version: undefined, query: undefined }) : hrefOf({ ...route, ...(route.page === 'organization' || route.page === 'provider' || route.page === 'mirrored-provider' ? { query: undefined } : {}) })
  const first = useRef(true)
  useEffect(() => {
    document.title = `${title} · Homeport`
  }, [title])
  useEffect(() => {
    // After a navigation, focus goes to the new page (not left on the link that went away); not on the first load.
    if (first.current) first.current = false
    else document.getElementById('main')?.focus()
  }, [page])
  const section = route.page === 'organization' || route.page === 'module' || route.page === 'provider' ? 'organizations' : route.page === 'mirrored-provider' ? 'mirror' : route.page
  const link = (page: 'organizations' | 'terraform' | 'mirror' | 'gate' | 'bundles' | 'app-settings', label: string) => (
    <AppLink to={{ page }} aria-current={section === page ? 'page' : undefined}>
      {label}
    </AppLink>
  )
  return (
    <ToastProvider>
      <div className="shell" data-app-state="loaded">
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <nav className="topbar" aria-label="Homeport">
          <AppLink className="brand" to={{ page: 'organizations' }}>
            <img src="/favicon.svg" alt="" width={28} height={28} />
            Homeport
          </AppLink>
          <GlobalSearch query={route.page === 'search' ? route.query : ''} />
          <div className="nav-links">
            {link('organizations', 'Organizations')}
            {link('terraform', 'Connect Terraform')}
            {link('mirror', 'Mirror')}
            {link('gate', 'Gate')}
            {link('bundles', 'Bundles')}
            {link('app-settings', 'Settings')}
            {!embedded && who && (
              <AppLink className="who" to={{ page: 'account' }} aria-current={section === 'account' ? 'page' : undefined} title="Your account">
                {who}
              </AppLink>
            )}
            {!embedded && (
              <button type="button" className="link" onClick={signOut}>
                Sign out
              </button>
            )}
          </div>
        </nav>
        <main className="content" id="main" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </ToastProvider>
  )
}
