import { queryOptions } from '@tanstack/react-query'
import { ApiError, type ApiClient } from '../../lib/api-client'
import type { Document, ListDocument, Resource } from '@shared/wire/jsonapi'
import type { GpgKeyAttributes, ProviderAttributes, ProviderPlatformAttributes, ProviderVersionAttributes } from '@shared/wire/providers'
import { findReleases, manifestProtocols, type ProviderReleaseFiles } from '@shared/provider-release'

export type VersionResource = Resource<ProviderVersionAttributes>

const encode = (parts: string[]) => parts.map(encodeURIComponent).join('/')
const providerPath = (org: string, name: string) => `/organizations/${encode([org])}/registry-providers/private/${encode([org, name])}`
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
    queryFn: () => client.get<ListDocument<ProviderPlatformAttributes>>(`${providerPath(org, name)}/versions/${encodeURIComponent(version)}/platforms`)
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

/** Deprecates a version (Terraform then prints the reason at every init), or takes the deprecation back. */
export function changeProviderDeprecation(
  client: ApiClient,
  org: string,
  name: string,
  version: string,
  deprecation: { 'deprecated-status': 'Deprecated'; reason: string; link: string | null } | { 'deprecated-status': 'Undeprecated' }
) {
  return client.request<Document<ProviderVersionAttributes>>('PATCH', `${providerPath(org, name)}/versions/${encodeURIComponent(version)}`, {
    data: { type: 'registry-provider-versions', attributes: { deprecation } }
  })
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
async function releaseProtocols(release: ReleaseFiles): Promise<string[]> {
  if (!release.manifest) return []
  try {
    return manifestProtocols(await release.manifest.text())
  } catch (error) {
    throw new Error(`${release.manifest.name}: ${(error as Error).message}`, { cause: error })
  }
}

/** The SHA-256 of a file, hex (the platform's shasum). */
async function sha256Of(file: Blob): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer())
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}

/** A link the server gives with a resource it just made, for a file it still takes. */
function uploadLink(resource: Resource<unknown>, name: string): string {
  const link = resource.links?.[name]
  if (!link) throw new Error(`Homeport gave no ${name} link: the file was uploaded already, or you may not upload it.`)
  return link
}

/** Creates the provider when it is new, then the release's version; where its SHA256SUMS and signature go. */
export async function createProviderVersion(client: ApiClient, org: string, release: ReleaseFiles, keyId: string): Promise<{ shasums: string; signature: string }> {
  const path = providerPath(org, release.type)
  await client.get(path).catch(async (error: unknown) => {
    if (!(error instanceof ApiError) || error.status !== 404) throw error
    await client.request('POST', `/organizations/${encode([org])}/registry-providers`, {
      data: { type: 'registry-providers', attributes: { name: release.type, namespace: org, 'registry-name': 'private' } }
    })
  })
  const version = await client.request<Document<ProviderVersionAttributes>>('POST', `${path}/versions`, {
    data: { type: 'registry-provider-versions', attributes: { version: release.version, 'key-id': keyId, protocols: await releaseProtocols(release) } }
  })
  return { shasums: uploadLink(version.data, 'shasums-upload'), signature: uploadLink(version.data, 'shasums-sig-upload') }
}

/** Creates one platform of the release's version; where its zip goes. */
export async function createProviderPlatform(client: ApiClient, org: string, release: ReleaseFiles, zip: ReleaseFiles['zips'][number]): Promise<string> {
  const platform = await client.request<Document<ProviderPlatformAttributes>>('POST', `${providerPath(org, release.type)}/versions/${encodeURIComponent(release.version)}/platforms`, {
    data: { type: 'registry-provider-platforms', attributes: { os: zip.os, arch: zip.arch, filename: zip.file.name, shasum: await sha256Of(zip.file) } }
  })
  return uploadLink(platform.data, 'provider-binary-upload')
}
