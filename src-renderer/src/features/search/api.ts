import { queryOptions } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import type { ListDocument, Resource } from '@shared/wire/jsonapi'
import type { Route } from '../../lib/router'
import type { SearchHitAttributes } from '@shared/wire/search'

/** The organizations, modules and providers the caller may read that hold every word of `query`. */
export function searchOptions(client: ApiClient, query: string) {
  return queryOptions({
    queryKey: ['search', query],
    queryFn: () => client.get<ListDocument<SearchHitAttributes>>(`/search?q=${encodeURIComponent(query)}`),
    enabled: query.trim() !== ''
  })
}

/** The page a hit opens: the organization's modules, the module's page, the provider's page, or a doc on it. */
export function hitRoute({ attributes }: Resource<SearchHitAttributes>): Route {
  if (attributes.kind === 'organization') return { page: 'organization', org: attributes.organization, tab: 'modules' }
  if (attributes.kind === 'module' && attributes.module) return { page: 'module', org: attributes.organization, registry: attributes.registry ?? 'private', ...attributes.module }
  if (attributes.kind === 'provider-doc' && attributes.doc) {
    const { category, slug, version, hostname, namespace, type } = attributes.doc
    const query = new URLSearchParams({ version, doc: `${category}/${slug}` }).toString()
    return attributes.registry === 'private' ? { page: 'provider', org: attributes.organization, name: type, query } : { page: 'mirrored-provider', hostname, namespace, type, query }
  }
  const [hostname = '', namespace = '', type = ''] = attributes.address.split('/')
  if (attributes.registry === 'private') return { page: 'provider', org: attributes.organization, name: type }
  return { page: 'mirrored-provider', hostname, namespace, type }
}
