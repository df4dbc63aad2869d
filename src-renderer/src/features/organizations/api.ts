import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import type { Document, ListDocument } from '../../lib/jsonapi'

export interface OrganizationAttributes {
  name: string
  email: string
  'created-at': string
  'external-id': string
  'default-execution-mode': string
  permissions: Record<string, boolean>
}

export const organizationKeys = {
  all: ['organizations'] as const,
  list: (search: string) => ['organizations', 'list', search] as const
}

export function organizationListOptions(client: ApiClient, search: string) {
  const query = search ? `?q=${encodeURIComponent(search)}` : ''
  return queryOptions({
    queryKey: organizationKeys.list(search),
    queryFn: () => client.get<ListDocument<OrganizationAttributes>>(`/organizations${query}`)
  })
}

export function useCreateOrganization(client: ApiClient) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { name: string; email: string }) =>
      client.request<Document<OrganizationAttributes>>('POST', '/organizations', {
        data: { type: 'organizations', attributes: input }
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.all })
  })
}
