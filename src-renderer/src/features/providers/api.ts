import { queryOptions } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import type { Document, ListDocument, Resource } from '../../lib/jsonapi'
import { findReleases, manifestProtocols, type ProviderReleaseFiles } from '../../../../src-main/shared/provider-release'

export interface ProviderAttributes {
  name: string
  namespace: string
  'registry-name': 'private' | 'public'
  'created-at': string
  permissions: { 'can-delete': boolean }
}

export interface ProviderVersionAttributes {
  version: string
  'key-id': string
  protocols: string[]
  'created-at': string
  'shasums-uploaded': boolean
  'shasums-sig-uploaded': boolean
  permissions: { 'can-delete': boolean; 'can-upload-asset': boolean }
}

export interface PlatformAttributes {
  os: string
  arch: string
  filename: string
  shasum: string
  'provider-binary-uploaded': boolean
}

export interface GpgKeyAttributes {
  'key-id': string
  namespace: string
  'ascii-armor': string
  'created-at': string
}

type Links = Record<string, string | undefined>
export type VersionResource = Resource<ProviderVersionAttributes> & { links?: Links }
export type PlatformResource = Resource<PlatformAttributes> & { links?: Links }

const encode = (parts: string[]) => parts.map(encodeURIComponent).join('/')
export const providerPath = (org: string, name: string) => `/organizations/${encode([org])}/registry-providers/private/${encode([org, name])}`
const KEYS = '/api/registry/private/v2/gpg-keys'

export const providerKeys = {
  all: (org: string) => ['registry-providers', org] as const,
  list: (org: string) => ['registry-providers', org, 'list'] as const,
  platforms: (org: string, name: string, version: string) => ['registry-providers', org, 'platforms', name, version] as const,
  keys: (org: string) => ['gpg-keys', org] as const
}

/** An organization's private providers, with their versions. */
export function providerListOptions(client: ApiClient, org: string) {
  return queryOptions({
    queryKey: providerKeys.list(org),
    queryFn: () =>
      client.get<ListDocument<ProviderAttributes> & { included?: VersionResource[] }>(
        `/organizations/${encode([org])}/registry-providers?filter[registry_name]=private&include=registry-provider-versions&page[size]=100`
      )
  })
}

export function platformListOptions(client: ApiClient, org: string, name: string, version: string) {
  return queryOptions({
    queryKey: providerKeys.platforms(org, name, version),
    queryFn: () => client.get<{ data: PlatformResource[] }>(`${providerPath(org, name)}/versions/${encodeURIComponent(version)}/platforms`)
  })
}

export function gpgKeysOptions(client: ApiClient, org: string) {
  return queryOptions({
    queryKey: providerKeys.keys(org),
    queryFn: () => client.getAbsolute<ListDocument<GpgKeyAttributes>>(`${KEYS}?filter[namespace]=${encodeURIComponent(org)}`)
  })
}

export function addGpgKey(client: ApiClient, org: string, asciiArmor: string) {
  return client.requestAbsolute<Document<GpgKeyAttributes>>('POST', KEYS, { data: { type: 'gpg-keys', attributes: { namespace: org, 'ascii-armor': asciiArmor } } })
}

export function deleteGpgKey(client: ApiClient, org: string, keyId: string) {
  return client.requestAbsolute<void>('DELETE', `${KEYS}/${encode([org, keyId])}`)
}

export function deleteProvider(client: ApiClient, org: string, name: string) {
  return client.request<void>('DELETE', providerPath(org, name))
}

export function deleteProviderVersion(client: ApiClient, org: string, name: string, version: string) {
  return client.request<void>('DELETE', `${providerPath(org, name)}/versions/${encodeURIComponent(version)}`)
}

/** The files of one release, as goreleaser names them, read from what the user picked. */
export type ReleaseFiles = ProviderReleaseFiles<File>

/** The one release among the files the user picked; says what is missing, or that there are several. */
export function findRelease(files: File[]): ReleaseFiles {
  const [release, ...others] = findReleases(files)
  if (others.length > 0) {
    throw new Error(`The files hold ${others.length + 1} releases (${[release!, ...others].map((found) => found.version).join(', ')}): pick the files of one.`)
  }
  return release!
}

/** The plugin protocols the release declares in its manifest; without one, none (Terraform then checks none). */
export async function releaseProtocols(release: ReleaseFiles): Promise<string[]> {
  if (!release.manifest) return []
  try {
    return manifestProtocols(await release.manifest.text())
  } catch (error) {
    throw new Error(`${release.manifest.name}: ${(error as Error).message}`, { cause: error })
  }
}

/** The SHA-256 of a file, hex (the platform's shasum). */
export async function sha256Of(file: Blob): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer())
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}
