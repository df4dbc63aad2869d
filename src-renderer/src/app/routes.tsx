import { useMemo } from 'react'
import { createRootRoute, createRoute, createRouter } from '@tanstack/react-router'
import { OrganizationsPage } from '../features/organizations/OrganizationsPage'
import { OrganizationPage } from '../pages/OrganizationPage'
import { ModulePage } from '../pages/module/ModulePage'
import { ConnectTerraform } from '../features/terraform/ConnectTerraform'
import { SettingsPage } from '../pages/SettingsPage'
import { MirrorPage } from '../features/mirror/MirrorPage'
import { GatePage } from '../features/gate/GatePage'
import { ProviderPage } from '../features/providers/ProviderPage'
import { MirroredProviderPage } from '../features/providers/docs/MirroredProviderPage'
import { SearchPage } from '../features/search/SearchPage'
import { BundlesPage } from '../features/bundles/BundlesPage'
import { AuthorizeLogin } from '../features/terraform/AuthorizeLogin'
import { AccountPage } from '../features/people/AccountPage'
import { NotFound } from '../lib/not-found'
import { App } from './App'
import { bindRouter, MODULE_SEARCH, ORG_SEARCH, ORG_TABS, PROVIDER_SEARCH, queryOf, type OrgTab } from '../lib/router'

/** Search parameters kept as the strings they are (the router's default would read `1.0` as a number). */
type Search = Record<string, string>
const strings = (search: Record<string, unknown>, names: readonly string[]): Search =>
  Object.fromEntries(names.flatMap((name) => (typeof search[name] === 'string' && search[name] !== '' ? [[name, search[name]]] : [])))

const rootRoute = createRootRoute({ component: App })

const organizationsRoute = createRoute({ getParentRoute: () => rootRoute, path: '/', component: OrganizationsPage })
const terraformRoute = createRoute({ getParentRoute: () => rootRoute, path: '/terraform', component: ConnectTerraform })
const mirrorRoute = createRoute({ getParentRoute: () => rootRoute, path: '/mirror', component: MirrorPage })
const gateRoute = createRoute({ getParentRoute: () => rootRoute, path: '/gate', component: GatePage })
const bundlesRoute = createRoute({ getParentRoute: () => rootRoute, path: '/bundles', component: BundlesPage })
const settingsRoute = createRoute({ getParentRoute: () => rootRoute, path: '/settings', component: SettingsPage })
const accountRoute = createRoute({ getParentRoute: () => rootRoute, path: '/account', component: AccountPage })

/** What Terraform sent to /oauth/authorize, passed on whole. */
const authorizeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/authorize',
  validateSearch: (search: Record<string, unknown>): Search => strings(search, Object.keys(search)),
  component: function Authorize() {
    return <AuthorizeLogin query={new URLSearchParams(authorizeRoute.useSearch()).toString()} />
  }
})

/** An organization's section; the module list's search and filters are search parameters. */
const organizationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/orgs/$org/$tab',
  params: {
    // An unknown section shows the modules, as a mistyped tab in an old link should.
    parse: ({ org, tab }: { org: string; tab: string }) => ({ org, tab: ((ORG_TABS as readonly string[]).includes(tab) ? tab : 'modules') as OrgTab }),
    stringify: ({ org, tab }: { org: string; tab: OrgTab }) => ({ org, tab })
  },
  validateSearch: (search: Record<string, unknown>): Search => strings(search, ORG_SEARCH),
  component: function Organization() {
    const { org, tab } = organizationRoute.useParams()
    const query = queryOf(organizationRoute.useSearch(), ORG_SEARCH)
    return <OrganizationPage key={org} org={org} tab={tab} query={query} />
  }
})

/** `/orgs/acme` alone is its module list. */
const organizationHomeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/orgs/$org',
  component: function OrganizationHome() {
    const { org } = organizationHomeRoute.useParams()
    return <OrganizationPage key={org} org={org} tab="modules" />
  }
})

/** What a search finds; its words are the `q` search parameter. */
const searchRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/search',
  validateSearch: (search: Record<string, unknown>): Search => strings(search, ['q']),
  component: function Search() {
    return <SearchPage query={searchRoute.useSearch().q ?? ''} />
  }
})

const providerSearch = (search: Record<string, unknown>): Search => strings(search, PROVIDER_SEARCH)

/** A private provider of an organization; the docs' version and doc are search parameters. */
const providerRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/orgs/$org/providers/$name',
  validateSearch: providerSearch,
  component: function Provider() {
    const { org, name } = providerRoute.useParams()
    const { version, doc } = providerRoute.useSearch()
    return <ProviderPage key={`${org}/${name}`} org={org} name={name} place={{ version, doc }} />
  }
})

/** A public provider mirrored here, with its docs. */
const mirroredProviderRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/mirror/$hostname/$namespace/$type',
  validateSearch: providerSearch,
  component: function MirroredProvider() {
    const { hostname, namespace, type } = mirroredProviderRoute.useParams()
    const { version, doc } = mirroredProviderRoute.useSearch()
    return <MirroredProviderPage key={`${hostname}/${namespace}/${type}`} hostname={hostname} namespace={namespace} type={type} place={{ version, doc }} />
  }
})

const moduleSearch = (search: Record<string, unknown>): Search => strings(search, MODULE_SEARCH)

interface ModuleParams {
  org: string
  registry: string
  namespace: string
  name: string
  provider: string
  version?: string
}

function ModuleView({ params, search }: { params: ModuleParams; search: Search }) {
  const { org, registry, namespace, name, provider, version } = params
  // One object while the module is the same: the page's effects (its address kept current) depend on it.
  const address = useMemo(() => ({ org, registry, namespace, name, provider }), [org, registry, namespace, name, provider])
  return (
    <ModulePage
      key={`${registry}/${namespace}/${name}/${provider}`}
      address={address}
      version={version}
      query={queryOf(search, MODULE_SEARCH) ?? ''}
    />
  )
}

/** A module at its latest version, and at a version; the part shown and the tab are search parameters. */
const moduleRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/orgs/$org/modules/$registry/$namespace/$name/$provider',
  validateSearch: moduleSearch,
  component: function Module() {
    return <ModuleView params={moduleRoute.useParams()} search={moduleRoute.useSearch()} />
  }
})
const moduleVersionRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/orgs/$org/modules/$registry/$namespace/$name/$provider/$version',
  validateSearch: moduleSearch,
  component: function ModuleVersion() {
    return <ModuleView params={moduleVersionRoute.useParams()} search={moduleVersionRoute.useSearch()} />
  }
})

const routeTree = rootRoute.addChildren([
  organizationsRoute,
  searchRoute,
  terraformRoute,
  mirrorRoute,
  gateRoute,
  bundlesRoute,
  accountRoute,
  settingsRoute,
  authorizeRoute,
  organizationHomeRoute,
  organizationRoute,
  providerRoute,
  mirroredProviderRoute,
  moduleRoute,
  moduleVersionRoute
])

export const router = createRouter({
  routeTree,
  // Plain strings both ways: a search for `1.0` stays the text "1.0".
  parseSearch: (text) => Object.fromEntries(new URLSearchParams(text)),
  stringifySearch: (search) => {
    const params = new URLSearchParams(Object.entries(search).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''))
    return params.size > 0 ? `?${params.toString()}` : ''
  },
  // The app moves focus to the page it opens (App.tsx); the router restores nothing by itself.
  scrollRestoration: false,
  defaultNotFoundComponent: () => (
    <NotFound title="Page not found" back={{ to: { page: 'organizations' }, label: 'Back to the organizations' }}>
      Homeport has no page at this address: it may be mistyped, or from another version of Homeport.
    </NotFound>
  )
})
bindRouter(router)

// Registered, so every route's params and search are typed, and so is every link (lib/link.tsx).
declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router
  }
}
