import { queryOptions } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import type { ListDocument } from '@shared/wire/jsonapi'
import type { SearchHitAttributes } from '@shared/wire/search'

/** The organizations, modules and providers the caller may read that hold every word of `query`. */
export function searchOptions(client: ApiClient, query: string) {
  return queryOptions({
    queryKey: ['search', query],
    queryFn: () => client.get<ListDocument<SearchHitAttributes>>(`/search?q=${encodeURIComponent(query)}`),
    enabled: query.trim() !== ''
  })
}
