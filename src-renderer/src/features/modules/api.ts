import { infiniteQueryOptions, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { ApiError, type ApiClient } from '../../lib/api-client'
import type { Document, ListDocument } from '../../lib/jsonapi'

export interface ModuleAttributes {
  name: string
  namespace: string
  provider: string
  'registry-name': 'private' | 'public'
  status: string
  'version-statuses': Array<{ version: string; status: string; error?: string }>
  'revoked-versions': string[]
  'deprecated-versions': string[]
  /** Homeport's own, on list entries: the latest version's README's first paragraph. */
  description?: string
  /** Homeport's own: each published version's date, and the tag or commit it came from. */
  'published-versions': Array<{ version: string; 'published-at': string | null; tag: string | null; 'commit-sha': string | null }>
  'created-at': string
  'updated-at': string
  'no-code': boolean
  permissions: { 'can-delete': boolean; 'can-resync': boolean; 'can-retry': boolean }
  'publishing-mechanism'?: 'git_tag' | 'branch'
  'vcs-repo'?: {
    branch: string
    identifier: string
    'repository-http-url': string
    'webhook-url': string
    'source-directory': string
    'tag-prefix': string
    'synced-at': string | null
    'sync-error': string
  }
}

export interface VersionAttributes {
  version: string
  status: string
  source: string
  error: string
  warnings: string[]
  'commit-sha': string | null
  'created-at': string
  deprecation: { reason: string; link: string | null; 'deprecated-by': string; 'deprecated-at': string } | null
  revocation: { message: string; link: string | null; 'revoked-by': string; 'revoked-at': string; 'existing-consumers': number } | null
}

export interface ModulePart {
  path: string
  name: string
  readme: string
  empty: boolean
  inputs: Array<{ name: string; type: string; description: string; default: string; required: boolean }>
  outputs: Array<{ name: string; description: string }>
  dependencies: Array<{ name: string; source: string; version: string }>
  provider_dependencies: Array<{ name: string; namespace: string; source: string; version: string }>
  resources: Array<{ name: string; type: string }>
  /** Homeport's own: the part's `required_version` constraints (absent from other registries' answers). */
  required_core?: string[]
}

export interface ModuleDetail {
  id: string
  version: string
  description: string
  source: string
  published_at: string
  downloads: number
  root: ModulePart
  submodules: ModulePart[]
  examples: ModulePart[]
  providers: string[]
  versions: string[]
  /** Homeport's own: the root's change log ("" when none). */
  changelog?: string
}

/** A version's parts in the order the GUI offers them: the root, its submodules, its examples. */
export function partsOf(detail: ModuleDetail): ModulePart[] {
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
    initialPageParam: 1,
    queryFn: ({ pageParam }) => {
      const query = new URLSearchParams({ 'page[number]': String(pageParam), 'page[size]': String(PAGE_SIZE) })
      if (filters.q) query.set('q', filters.q)
      if (filters.registry) query.set('filter[registry_name]', filters.registry)
      if (filters.provider) query.set('filter[provider]', filters.provider)
      return client.get<ListDocument<ModuleAttributes>>(`/organizations/${encode([org])}/registry-modules?${query.toString()}`)
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
    queryFn: () => client.get<Document<VersionAttributes> & { data: { links?: { upload?: string } } }>(
      `${modulePath(address)}/version?module_version=${encodeURIComponent(version)}`
    )
  })
}

/** The documentation of a published version, from the registry protocol. */
export function docsOptions(client: ApiClient, address: ModuleAddress, version: string) {
  const prefix = address.registry === 'public' ? '/api/registry/public/v1/modules' : '/api/registry/v1/modules'
  return queryOptions({
    queryKey: moduleKeys.docs(address, version),
    queryFn: () => client.getAbsolute<ModuleDetail>(`${prefix}/${encode([address.namespace, address.name, address.provider, version])}`),
    staleTime: Infinity
  })
}

/** Downloads per day over the last 30 days, oldest first. */
export function dailyDownloadsOptions(client: ApiClient, address: ModuleAddress) {
  return queryOptions({
    queryKey: [...moduleKeys.downloads(address), 'daily'] as const,
    queryFn: () =>
      client.getAbsolute<{ data: { attributes: { days: Array<{ date: string; count: number }> } } }>(
        `/api/registry/v2/modules/${encode([address.namespace, address.name, address.provider])}/downloads/daily`
      )
  })
}

export function downloadsOptions(client: ApiClient, address: ModuleAddress) {
  return queryOptions({
    queryKey: moduleKeys.downloads(address),
    queryFn: () =>
      client.getAbsolute<{ data: { attributes: { week: number; month: number; year: number; total: number } } }>(
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

/** What a publisher asks of a version, in HCP's shape (see the README's "Deprecating and revoking a version"). */
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

/** The interface change between two versions (Homeport's `interface-diffs`: see the README). */
export interface InterfaceDiff {
  from: string | null
  to: string
  impact: 'breaking' | 'additive' | 'none'
  step: string
  verdict: string | null
  changes: Array<{ impact: 'breaking' | 'additive' | 'none'; kind: string; part: string; detail: string }>
  /** For a preview: what ingest would warn about. */
  warnings?: string[]
}

export function compareOptions(client: ApiClient, address: ModuleAddress, from: string | undefined, to: string | undefined) {
  const query = new URLSearchParams({ ...(from ? { from } : {}), ...(to ? { to } : {}) })
  return queryOptions({
    queryKey: [...moduleKeys.all(address.org), 'compare', address.name, address.provider, from ?? '', to ?? ''] as const,
    queryFn: () => client.get<Document<InterfaceDiff>>(`${modulePath(address)}/compare?${query}`)
  })
}

/** Before a publish: the interface change `archive` would make as `version`; nothing is kept. */
export function previewInterface(client: ApiClient, address: ModuleAddress, version: string, archive: Blob) {
  return client.request<Document<InterfaceDiff>>('POST', `${modulePath(address)}/compare?version=${encodeURIComponent(version)}`, archive)
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
  const created = await client.request<Document<VersionAttributes> & { data: { links: { upload: string } } }>('POST', `${modulePath(address)}/versions`, {
    data: { type: 'registry-module-versions', attributes: { version } }
  })
  return { version: created.data.attributes.version, upload: created.data.links.upload }
}
