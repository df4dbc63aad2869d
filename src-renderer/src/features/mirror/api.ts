import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import type { Document, ListDocument } from '@shared/wire/jsonapi'
import type { MirroredProviderAttributes, ProviderMirrorAttributes } from '@shared/wire/providers'

const mirrorKey = ['provider-mirror'] as const

/** The public providers mirrored here, with their versions and platforms. */
export function mirrorOptions(client: ApiClient) {
  return queryOptions({ queryKey: mirrorKey, queryFn: () => client.get<ListDocument<MirroredProviderAttributes>>('/admin/provider-mirror') })
}

/** Mirrors a public provider's versions (a constraint; all when none) for the platforms; `source` may name the registry first. Resolves with what was fetched. */
export function useMirrorProvider(client: ApiClient) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (request: { source: string; versions: string; platforms: string[] }) =>
      client
        .request<Document<ProviderMirrorAttributes>>('POST', '/admin/provider-mirror', {
          data: { type: 'provider-mirrors', attributes: { source: request.source, ...(request.versions ? { versions: request.versions } : {}), platforms: request.platforms } }
        })
        .then((document) => document.data.attributes.mirrored),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: mirrorKey })
  })
}

/** Removes a mirrored version and its files, from the mirror of the public registry `hostname`. */
export function useRemoveMirrored(client: ApiClient) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ hostname, namespace, type, version }: { hostname: string; namespace: string; type: string; version: string }) =>
      client.request<void>('DELETE', `/admin/provider-mirror/${[namespace, type, version].map(encodeURIComponent).join('/')}?hostname=${encodeURIComponent(hostname)}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: mirrorKey })
  })
}
