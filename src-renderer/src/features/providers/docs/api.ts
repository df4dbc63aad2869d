import { queryOptions } from '@tanstack/react-query'
import type { ApiClient } from '../../../lib/api-client'

/** A doc as the registry's v1 provider-version answer lists it. */
export interface DocOutline {
  id: string
  title: string
  path: string
  slug: string
  category: string
  subcategory: string | null
  language: string
}

/** registry.terraform.io's v1 provider-version answer, as Homeport gives it on each face. */
export interface ProviderVersionDocs {
  namespace: string
  name: string
  version: string
  versions: string[]
  docs: DocOutline[]
}

/**
 * Where a provider's docs are read: the face's base (`/api/registry` for private providers,
 * `/api/registry/public` for registry.terraform.io's mirror), under which the registry's own
 * `/v1/providers/…` and `/v2/provider-docs/…` answer, as on the public registry.
 */
export interface DocsSource {
  base: string
  namespace: string
  type: string
}

const docsKeys = {
  version: (source: DocsSource, version: string | undefined) => ['provider-docs', source.base, source.namespace, source.type, version ?? 'latest'] as const,
  doc: (source: DocsSource, id: string) => ['provider-docs', source.base, 'doc', id] as const
}

/** A version's doc outline (the newest version with docs, without one). */
export function versionDocsOptions(client: ApiClient, source: DocsSource, version: string | undefined) {
  const path = [source.namespace, source.type, ...(version ? [version] : [])].map(encodeURIComponent).join('/')
  return queryOptions({
    queryKey: docsKeys.version(source, version),
    queryFn: () => client.getAbsolute<ProviderVersionDocs>(`${source.base}/v1/providers/${path}`),
    staleTime: 60_000
  })
}

/** One doc's markdown, frontmatter included. */
export function docContentOptions(client: ApiClient, source: DocsSource, id: string) {
  return queryOptions({
    queryKey: docsKeys.doc(source, id),
    queryFn: async () => (await client.getAbsolute<{ data: { attributes: { content: string; truncated: boolean } } }>(`${source.base}/v2/provider-docs/${encodeURIComponent(id)}`)).data.attributes,
    // A doc of a version never changes but by a new upload, which is a new id.
    staleTime: Number.POSITIVE_INFINITY
  })
}
