import { useSyncExternalStore } from 'react'

/**
 * The GUI's routes live in the URL's hash (`#/orgs/acme/modules`), so a reload, the back button
 * and a bookmark work the same in Electron and in a browser, and the server needs no routes.
 */
export type Route =
  | { page: 'organizations' }
  /** `query`: the module list's search and filters (`q=vpc&provider=aws`), so Back and a bookmark keep them. */
  | { page: 'organization'; org: string; tab: 'modules' | 'providers' | 'publish' | 'teams' | 'settings' | 'vcs'; query?: string }
  /** `query`: the part shown and the documentation tab (`part=modules/subnet&tab=inputs`), so every view of a module is a link. */
  | { page: 'module'; org: string; registry: string; namespace: string; name: string; provider: string; version?: string; query?: string }
  | { page: 'terraform' }
  | { page: 'mirror' }
  | { page: 'bundles' }
  | { page: 'app-settings' }
  /** `terraform login`'s authorization page; `query` is what Terraform sent to /oauth/authorize. */
  | { page: 'authorize'; query: string }

const ORG_TABS = ['modules', 'providers', 'publish', 'teams', 'settings', 'vcs'] as const

function parseRoute(hash: string): Route {
  const login = /^#\/?authorize\?(.*)$/.exec(hash)
  if (login) return { page: 'authorize', query: login[1]! }
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2)
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
  if (parts[0] === 'terraform') return { page: 'terraform' }
  if (parts[0] === 'mirror') return { page: 'mirror' }
  if (parts[0] === 'bundles') return { page: 'bundles' }
  if (parts[0] === 'settings') return { page: 'app-settings' }
  if (parts[0] === 'orgs' && parts[1]) {
    const org = parts[1]
    if (parts[2] === 'modules' && parts.length >= 7) {
      const [, , , registry, namespace, name, provider, version] = parts as [string, string, string, string, string, string, string, string?]
      return { page: 'module', org, registry, namespace, name, provider, version, ...(query ? { query } : {}) }
    }
    const tab = (ORG_TABS as readonly string[]).includes(parts[2] ?? '') ? (parts[2] as (typeof ORG_TABS)[number]) : 'modules'
    return { page: 'organization', org, tab, ...(query ? { query } : {}) }
  }
  return { page: 'organizations' }
}

export function hrefOf(route: Route): string {
  const join = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`
  switch (route.page) {
    case 'organizations':
      return '#/'
    case 'terraform':
      return '#/terraform'
    case 'mirror':
      return '#/mirror'
    case 'bundles':
      return '#/bundles'
    case 'app-settings':
      return '#/settings'
    case 'authorize':
      return `#/authorize?${route.query}`
    case 'organization':
      return `${join('orgs', route.org, route.tab)}${route.query ? `?${route.query}` : ''}`
    case 'module':
      return `${join('orgs', route.org, 'modules', route.registry, route.namespace, route.name, route.provider, ...(route.version ? [route.version] : []))}${route.query ? `?${route.query}` : ''}`
  }
}

export function navigate(route: Route): void {
  window.location.hash = hrefOf(route)
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange)
  return () => window.removeEventListener('hashchange', onChange)
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash)
  return parseRoute(hash)
}
