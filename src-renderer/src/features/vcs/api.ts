import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import type { Document, ListDocument, Resource } from '@shared/wire/jsonapi'
import type { OAuthClientAttributes, VcsRepositoriesMeta, VcsRepositoryAttributes } from '@shared/wire/vcs'
import { moduleKeys, type ModuleAttributes } from '../modules/api'

/** A git connection as the publish form needs it: its id (to list repositories), name and token. */
export interface Connection {
  id: string
  name: string
  token: string
}

const connectionKeys = {
  list: (org: string) => ['oauth-clients', org] as const,
  repositories: (org: string, id: string) => ['oauth-clients', org, id, 'repositories'] as const
}

const orgPath = (org: string) => `/organizations/${encodeURIComponent(org)}`

export function connectionsOptions(client: ApiClient, org: string) {
  return queryOptions({
    queryKey: connectionKeys.list(org),
    queryFn: () => client.get<ListDocument<OAuthClientAttributes>>(`${orgPath(org)}/oauth-clients`)
  })
}

/** A connection's token (`ot-…`), which a module's vcs-repo names. */
export function connectionOf(resource: Resource<OAuthClientAttributes>): Connection {
  const token = (resource.relationships?.['oauth-tokens'] as { data: Array<{ id: string }> }).data[0]!.id
  return { id: resource.id, name: resource.attributes.name, token }
}

/** The repositories of a folder connection (Homeport's own endpoint); `listable` is false for a remote URL. */
export function repositoriesOptions(client: ApiClient, org: string, id: string) {
  return queryOptions({
    queryKey: connectionKeys.repositories(org, id),
    queryFn: async () => {
      const document = await client.get<ListDocument<VcsRepositoryAttributes, VcsRepositoriesMeta>>(`/oauth-clients/${encodeURIComponent(id)}/repositories`)
      return { listable: document.meta?.listable === true, identifiers: document.data.map((entry) => entry.attributes.identifier) }
    }
  })
}

export function useCreateConnection(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (httpUrl: string) =>
      client.request('POST', `${orgPath(org)}/oauth-clients`, { data: { type: 'oauth-clients', attributes: { 'service-provider': 'git', 'http-url': httpUrl } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: connectionKeys.list(org) })
  })
}

export function useDeleteConnection(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => client.request<void>('DELETE', `/oauth-clients/${encodeURIComponent(id)}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: connectionKeys.list(org) })
  })
}

export interface GitPublishInput {
  token: string
  identifier: string
  name: string
  provider: string
  branch: string
  sourceDirectory: string
  tagPrefix: string
}

/** Endpoint 2: a module published from a repository; empty fields are left to the server. */
export function usePublishFromGit(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: GitPublishInput) =>
      client.request<Document<ModuleAttributes>>('POST', `${orgPath(org)}/registry-modules/vcs`, {
        data: {
          type: 'registry-modules',
          attributes: {
            ...(input.name ? { name: input.name } : {}),
            ...(input.provider ? { provider: input.provider } : {}),
            'vcs-repo': {
              identifier: input.identifier,
              'oauth-token-id': input.token,
              'display-identifier': input.identifier,
              ...(input.branch ? { branch: input.branch } : {}),
              ...(input.sourceDirectory ? { 'source-directory': input.sourceDirectory } : {}),
              ...(input.tagPrefix ? { 'tag-prefix': input.tagPrefix } : {})
            }
          }
        }
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: moduleKeys.all(org) })
  })
}
