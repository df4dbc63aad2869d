import { infiniteQueryOptions, keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { ApiError, type ApiClient } from '../../lib/api-client'
import type { Document, ListDocument } from '@shared/wire/jsonapi'
import type {
  DailyDownloadsAttributes,
  DownloadsSummaryAttributes,
  InterfaceDiffAttributes,
  ModuleFileAttributes,
  ModuleAttributes,
  ModuleListMeta,
  ModuleVersionAttributes,
  ProtocolModuleDetail,
  ProtocolPart
} from '@shared/wire/modules'

export type { InterfaceDiffAttributes, ModuleAttributes, ProtocolPart }

/** A version's parts in the order the GUI offers them: the root, its submodules, its examples. */
export function partsOf(detail: ProtocolModuleDetail): ProtocolPart[] {
  return [detail.root, ...detail.submodules, ...detail.examples]
}

export interface ModuleAddress {
  org: string
  registry: string
  namespace: string
  name: string
  provider: string
}

export interface ModuleFilters {
  q: string
  registry: '' | 'private' | 'public'
  provider: string
  /** "" (by name), `-downloads` or `-published`: Homeport's own `sort`. */
  sort: '' | '-downloads' | '-published'
}

const PAGE_SIZE = 100
const encode = (parts: string[]) => parts.map(encodeURIComponent).join('/')

export const moduleKeys = {
  all: (org: string) => ['registry-modules', org] as const,
  list: (org: string, filters: ModuleFilters) => ['registry-modules', org, 'list', filters] as const,
  detail: (address: ModuleAddress) => ['registry-modules', address.org, 'detail', address] as const,
  version: (address: ModuleAddress, version: string) => ['registry-modules', address.org, 'detail', address, 'version', version] as const,
  docs: (address: ModuleAddress, version: string) => ['registry-modules', address.org, 'detail', address, 'docs', version] as const,
  downloads: (address: ModuleAddress) => ['registry-modules', address.org, 'detail', address, 'downloads'] as const
}

export function modulePath({ org, registry, namespace, name, provider }: ModuleAddress): string {
  return `/organizations/${encode([org])}/registry-modules/${encode([registry, namespace, name, provider])}`
}

/** Pages of 100 modules, fetched as the list scrolls. */
export function moduleListOptions(client: ApiClient, org: string, filters: ModuleFilters) {
  return infiniteQueryOptions({
    queryKey: moduleKeys.list(org, filters),
    // Other filters: the last answer stays shown until theirs comes (the list and its provider counts do not blink away).
    placeholderData: keepPreviousData,
    initialPageParam: 1,
    queryFn: ({ pageParam }) => {
      const query = new URLSearchParams({ 'page[number]': String(pageParam), 'page[size]': String(PAGE_SIZE) })
      if (filters.q) query.set('q', filters.q)
      if (filters.registry) query.set('filter[registry_name]', filters.registry)
      if (filters.provider) query.set('filter[provider]', filters.provider)
      if (filters.sort) query.set('sort', filters.sort)
      return client.get<ListDocument<ModuleAttributes, ModuleListMeta>>(`/organizations/${encode([org])}/registry-modules?${query.toString()}`)
    },
    getNextPageParam: (last) => last.meta?.pagination?.['next-page'] ?? undefined
  })
}

/** The module, polled while any version is still being published. */
export function moduleOptions(client: ApiClient, address: ModuleAddress) {
  return queryOptions({
    queryKey: moduleKeys.detail(address),
    queryFn: () => client.get<Document<ModuleAttributes>>(modulePath(address)),
    refetchInterval: (query) => {
      const attributes = query.state.data?.data.attributes
      const statuses = attributes?.['version-statuses'] ?? []
      const working = statuses.some((entry) => ['pending', 'cloning', 'reg_ingressing'].includes(entry.status))
      // A module just published from git has no versions until its tags are first read.
      const reading = attributes?.['vcs-repo'] !== undefined && attributes['vcs-repo']['synced-at'] === null
      return working || reading ? 1000 : false
    }
  })
}

export function versionOptions(client: ApiClient, address: ModuleAddress, version: string) {
  return queryOptions({
    queryKey: moduleKeys.version(address, version),
    queryFn: () => client.get<Document<ModuleVersionAttributes>>(
      `${modulePath(address)}/version?module_version=${encodeURIComponent(version)}`
    )
  })
}

/** The documentation of a published version, from the registry protocol. */
/** A published version's files, as its archive holds them. */
export function filesOptions(client: ApiClient, address: ModuleAddress, version: string) {
  return queryOptions({
    queryKey: [...moduleKeys.version(address, version), 'files'],
    queryFn: () => client.get<ListDocument<ModuleFileAttributes>>(`${modulePath(address)}/${encodeURIComponent(version)}/files`),
    staleTime: Infinity
  })
}

/** One file's text (a published version never changes). */
export function fileOptions(client: ApiClient, address: ModuleAddress, version: string, path: string) {
  return queryOptions({
    queryKey: [...moduleKeys.version(address, version), 'files', path],
    queryFn: () => client.get<Document<ModuleFileAttributes>>(`${modulePath(address)}/${encodeURIComponent(version)}/files/${path.split('/').map(encodeURIComponent).join('/')}`),
    staleTime: Infinity
  })
}

export function docsOptions(client: ApiClient, address: ModuleAddress, version: string) {
  const prefix = address.registry === 'public' ? '/api/registry/public/v1/modules' : '/api/registry/v1/modules'
  return queryOptions({
    queryKey: moduleKeys.docs(address, version),
    queryFn: () => client.getAbsolute<ProtocolModuleDetail>(`${prefix}/${encode([address.namespace, address.name, address.provider, version])}`),
    staleTime: Infinity
  })
}

/** Downloads per day over the last 30 days, oldest first. */
export function dailyDownloadsOptions(client: ApiClient, address: ModuleAddress) {
  return queryOptions({
    queryKey: [...moduleKeys.downloads(address), 'daily'] as const,
    queryFn: () =>
      client.getAbsolute<Document<DailyDownloadsAttributes>>(
        `/api/registry/v2/modules/${encode([address.namespace, address.name, address.provider])}/downloads/daily`
      )
  })
}

export function downloadsOptions(client: ApiClient, address: ModuleAddress) {
  return queryOptions({
    queryKey: moduleKeys.downloads(address),
    queryFn: () =>
      client.getAbsolute<Document<DownloadsSummaryAttributes>>(
        `/api/registry/v2/modules/${encode([address.namespace, address.name, address.provider])}/downloads/summary`
      )
  })
}

export function useDeleteAt(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    /** `path` is a module, provider or version path. */
    mutationFn: (path: string) => client.request<void>('DELETE', path),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: moduleKeys.all(org) })
  })
}

/** A POST to one of a module's actions (retry, resync, mirror), with a JSON:API body when it takes one. */
export function useModuleAction(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (action: string | { path: string; body: unknown }) =>
      typeof action === 'string' ? client.request<unknown>('POST', action) : client.request<unknown>('POST', action.path, action.body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: moduleKeys.all(org) })
  })
}

/** What a publisher asks of a version, in HCP's shape (see "Deprecating and revoking a version" in docs/guide/publishing.md). */
export type LifecycleChange =
  | { deprecation: { 'deprecated-status': 'Deprecated'; reason: string; link: string | null } | { 'deprecated-status': 'Undeprecated' } }
  | { revocation: { status: 'Revoked'; message: string; link: string | null } | { status: 'Unrevoked' } }

export function useVersionLifecycle(client: ApiClient, address: ModuleAddress, version: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (change: LifecycleChange) =>
      client.request<unknown>('PATCH', `${modulePath(address)}/${encodeURIComponent(version)}`, { data: { type: 'module-versions', attributes: change } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: moduleKeys.all(address.org) })
  })
}

export function compareOptions(client: ApiClient, address: ModuleAddress, from: string | undefined, to: string | undefined) {
  const query = new URLSearchParams({ ...(from ? { from } : {}), ...(to ? { to } : {}) })
  return queryOptions({
    queryKey: [...moduleKeys.all(address.org), 'compare', address.name, address.provider, from ?? '', to ?? ''] as const,
    queryFn: () => client.get<Document<InterfaceDiffAttributes>>(`${modulePath(address)}/compare?${query}`)
  })
}

/** Before a publish: the interface change `archive` would make as `version`; nothing is kept. */
export function previewInterface(client: ApiClient, address: ModuleAddress, version: string, archive: Blob) {
  return client.request<Document<InterfaceDiffAttributes>>('POST', `${modulePath(address)}/compare?version=${encodeURIComponent(version)}`, archive)
}

/**
 * The first half of publishing through the API: the module made if it is new, then the version;
 * resolves with the version as the server normalized it and the link its archive goes to.
 */
export async function createVersionToUpload(client: ApiClient, address: ModuleAddress, version: string): Promise<{ version: string; upload: string }> {
  const existing = await client.get(modulePath(address)).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 404) return undefined
    throw error
  })
  if (!existing) {
    await client.request('POST', `/organizations/${encode([address.org])}/registry-modules`, {
      data: { type: 'registry-modules', attributes: { name: address.name, provider: address.provider } }
    })
  }
  const created = await client.request<Document<ModuleVersionAttributes>>('POST', `${modulePath(address)}/versions`, {
    data: { type: 'registry-module-versions', attributes: { version } }
  })
  const upload = created.data.links?.upload
  // The server gives the link with every version it makes; a version without one cannot take an archive.
  if (!upload) throw new Error(`Version ${created.data.attributes.version} was made but takes no archive: publish it again.`)
  return { version: created.data.attributes.version, upload }
}
