import { queryOptions } from '@tanstack/react-query'
import type { ServerInfo } from '../../../../src-main/shared/server-info'
import type { ApiClient } from '../../lib/api-client'


export function serverInfoOptions(client: ApiClient) {
  return queryOptions({
    queryKey: ['server-info'],
    queryFn: () => client.getAbsolute<ServerInfo>('/api/homeport/v1/server-info'),
    staleTime: Infinity
  })
}
