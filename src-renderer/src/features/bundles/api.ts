import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import { saveFile } from '../../lib/save-file'
import { upload } from '../../lib/upload'
import type { BundleAttributes, BundleImportAttributes, BundleRequestAttributes } from '@shared/wire/bundles'
import type { Document } from '@shared/wire/jsonapi'

const bundleKey = (id: string) => ['bundles', id] as const
const bundlePath = (id: string) => `/bundles/${encodeURIComponent(id)}`

/** Starts making a bundle; resolves with its id, to follow it by. */
export function useStartBundle(client: ApiClient) {
  return useMutation({
    mutationFn: (request: BundleRequestAttributes) =>
      client.request<Document<BundleAttributes>>('POST', '/bundles', { data: { type: 'bundles', attributes: request } }).then((document) => document.data.id)
  })
}

/** A bundle being made, polled until it is ready or failed. */
export function bundleOptions(client: ApiClient, id: string) {
  return queryOptions({
    queryKey: bundleKey(id),
    queryFn: () => client.get<Document<BundleAttributes>>(bundlePath(id)),
    refetchInterval: (query) => (['ready', 'failed'].includes(query.state.data?.data.attributes.status ?? '') ? false : 500)
  })
}

/** Saves a ready bundle where the browser (or the desktop app) saves downloads. */
export function useDownloadBundle(client: ApiClient, id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async () => {
      const { blob, filename } = await client.download(`${bundlePath(id)}/download`)
      saveFile(blob, filename)
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: bundleKey(id) })
  })
}

/**
 * Imports a bundle file (the site admin's), with the upload's progress; public modules are curated
 * by `organization`, or by the bundle's own organization when none is named. Everything may have
 * changed after, so every query is refetched.
 */
export function useImportBundle(client: ApiClient, onProgress: (share: number | undefined) => void) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ file, organization }: { file: File; organization: string }) => {
      onProgress(0)
      const query = organization ? `?organization=${encodeURIComponent(organization)}` : ''
      const answer = await upload<Document<BundleImportAttributes>>(`/api/v2/admin/bundle-imports${query}`, file, onProgress, { method: 'POST', token: client.token ?? undefined })
      if (!answer) throw new Error('Homeport took the bundle but did not say what it imported: look at the registry.')
      return answer.data.attributes
    },
    onSettled: () => {
      onProgress(undefined)
      void queryClient.invalidateQueries()
    }
  })
}
