import { queryOptions } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'

export interface ServerInfo {
  edition: string
  registryHostname: string
  serverUrl: string
}

export function serverInfoOptions(client: ApiClient) {
  return queryOptions({
    queryKey: ['server-info'],
    queryFn: () => client.getAbsolute<ServerInfo>('/api/homeport/v1/server-info'),
    staleTime: Infinity
  })
}
