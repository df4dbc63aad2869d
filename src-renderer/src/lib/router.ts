import { useMatches, type AnyRouter } from '@tanstack/react-router'

/**
 * The GUI's views, as the rest of the app names them. The routing itself is TanStack Router's
 * (app/routes.tsx: real paths, which the server answers with the app; search parameters for the
 * list's filters and the module's part and tab); this is the app's vocabulary over it, so a
 * feature links to "the organization's settings" without spelling a path.
 */
export type Route =
  | { page: 'organizations' }
  /** `query`: the module list's search and filters (`q=vpc&provider=aws`), so Back and a bookmark keep them. */
  | { page: 'organization'; org: string; tab: OrgTab; query?: string }
  /** `query`: the part shown and the documentation tab (`part=modules/subnet&tab=inputs`), so every view of a module is a link. */
  | { page: 'module'; org: string; registry: string; namespace: string; name: string; provider: string; version?: string; query?: string }
  /** A private provider's page: its versions, platforms, keys, the `required_providers` block and its docs; `query`: the docs' version and doc shown. */
  | { page: 'provider'; org: string; name: string; query?: string }
  /** A public provider mirrored here (`registry.terraform.io`, `hashicorp`, `null`): its docs; `query` as a private provider's. */
  | { page: 'mirrored-provider'; hostname: string; namespace: string; type: string; query?: string }
  /** Everything the signed-in caller may read that a search finds; `query` is its words. */
  | { page: 'search'; query: string }
  | { page: 'terraform' }
  | { page: 'mirror' }
  /** The installation's gate over what comes in from the public registries. */
  | { page: 'gate' }
  | { page: 'bundles' }
  | { page: 'app-settings' }
  /** Who is signed in: a person's teams and tokens. */
  | { page: 'account' }
  /** `terraform login`'s authorization page; `query` is what Terraform sent to /oauth/authorize. */
  | { page: 'authorize'; query: string }
  /** An address the app has no page for. */
  | { page: 'not-found' }

export const ORG_TABS = ['modules', 'providers', 'publish', 'teams', 'settings', 'vcs', 'audit', 'gate'] as const
export type OrgTab = (typeof ORG_TABS)[number]
/** What each section of an organization is called, in its tab and the window's title. */
export const ORG_TAB_LABELS: Record<OrgTab, string> = {
  modules: 'Modules',
  providers: 'Providers',
  publish: 'Publish',
  teams: 'Teams',
  settings: 'Settings',
  vcs: 'Git',
  audit: 'Audit trail',
  gate: 'Gate'
}
/** A module page's search parameters: the part and tab shown, the version the Changes tab compares with, the file the Files tab shows. */
export const MODULE_SEARCH = ['part', 'tab', 'from', 'file'] as const
/** A provider page's search parameters: the docs' version and doc (`resources/server`). */
export const PROVIDER_SEARCH = ['version', 'doc'] as const
/** An organization's search parameters: the module list's filters and the audit trail's. */
export const ORG_SEARCH = ['q', 'registry', 'provider', 'sort', 'action', 'type'] as const

/** Path segments encoded, but for `+` (a version's build metadata), which a path may hold as it is. */
const path = (...segments: string[]) => `/${segments.map((segment) => encodeURIComponent(segment).replace(/%2B/g, '+')).join('/')}`
const withQuery = (href: string, query?: string) => (query ? `${href}?${query}` : href)

/** The address of a view: a real path, and its search parameters. */
export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'organizations':
      return '/'
    case 'search':
      return withQuery('/search', route.query ? new URLSearchParams({ q: route.query }).toString() : undefined)
    case 'terraform':
      return '/terraform'
    case 'mirror':
      return '/mirror'
    case 'gate':
      return '/gate'
    case 'bundles':
      return '/bundles'
    case 'app-settings':
      return '/settings'
    case 'account':
      return '/account'
    case 'authorize':
      return withQuery('/authorize', route.query)
    case 'not-found':
      return window.location.pathname
    case 'organization':
      return withQuery(path('orgs', route.org, route.tab), route.query)
    case 'provider':
      return withQuery(path('orgs', route.org, 'providers', route.name), route.query)
    case 'mirrored-provider':
      return withQuery(path('mirror', route.hostname, route.namespace, route.type), route.query)
    case 'module':
      return withQuery(path('orgs', route.org, 'modules', route.registry, route.namespace, route.name, route.provider, ...(route.version ? [route.version] : [])), route.query)
  }
}

let router: AnyRouter | undefined

/** Called once by app/routes.tsx with the router it made, for `navigate` and `replaceAddress`. */
export function bindRouter(made: AnyRouter): void {
  router = made
}

/** Goes to a view, as a link does (a new history entry). */
export function navigate(route: Route): void {
  void router?.navigate({ href: hrefOf(route) })
}

/**
 * Puts the view's current state (filters typed, a tab chosen) in the address without a history
 * entry: only its search parameters, and only while the address is still this view's (a view that
 * is being left must not pull the address back).
 */
export function replaceAddress(route: Route): void {
  const href = hrefOf(route)
  const [path] = href.split('?', 1)
  if (window.location.pathname !== path) return
  if (`${window.location.pathname}${window.location.search}` !== href) void router?.navigate({ href, replace: true })
}

/** Search parameters as the app writes them: plain strings, the empty ones left out. */
export function queryOf(search: Record<string, unknown>, names: readonly string[]): string | undefined {
  const params = new URLSearchParams()
  for (const name of names) {
    const value = search[name]
    if (typeof value === 'string' && value !== '') params.set(name, value)
  }
  return params.size > 0 ? params.toString() : undefined
}

/** The view shown, read from the router's deepest match. */
export function useRoute(): Route {
  const match = useMatches({ select: (matches) => matches.at(-1) })
  const params = (match?.params ?? {}) as Record<string, string>
  const search = (match?.search ?? {}) as Record<string, unknown>
  switch (match?.routeId) {
    case '/search':
      return { page: 'search', query: typeof search.q === 'string' ? search.q : '' }
    case '/terraform':
      return { page: 'terraform' }
    case '/mirror':
      return { page: 'mirror' }
    case '/gate':
      return { page: 'gate' }
    case '/bundles':
      return { page: 'bundles' }
    case '/settings':
      return { page: 'app-settings' }
    case '/account':
      return { page: 'account' }
    case '/authorize':
      return { page: 'authorize', query: queryOf(search, Object.keys(search)) ?? '' }
    case '/orgs/$org/$tab':
      return { page: 'organization', org: params.org!, tab: params.tab as OrgTab, query: queryOf(search, ORG_SEARCH) }
    case '/orgs/$org/providers/$name':
      return { page: 'provider', org: params.org!, name: params.name!, query: queryOf(search, PROVIDER_SEARCH) }
    case '/mirror/$hostname/$namespace/$type':
      return { page: 'mirrored-provider', hostname: params.hostname!, namespace: params.namespace!, type: params.type!, query: queryOf(search, PROVIDER_SEARCH) }
    case '/orgs/$org/modules/$registry/$namespace/$name/$provider':
    case '/orgs/$org/modules/$registry/$namespace/$name/$provider/$version': {
      const { org = '', registry = '', namespace = '', name = '', provider = '', version } = params
      return { page: 'module', org, registry, namespace, name, provider, version, query: queryOf(search, MODULE_SEARCH) }
    }
    case '/':
      return { page: 'organizations' }
    default:
      return { page: 'not-found' }
  }
}
