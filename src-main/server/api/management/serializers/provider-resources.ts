import type { Caller } from '../../../domain/core/access.js'
import type { GpgKeyView } from '../../../domain/providers/gpg-keys.js'
import { providerNamespace, type ProviderFile, type ProviderService, type ProviderView } from '../../../domain/providers/providers.js'
import type { MirroredProviderRecord, ProviderPlatformRecord, ProviderVersionRecord, StoredFile } from '../../../store/records.js'
import { deprecationAttributes } from './deprecation.js'
import { organizationPath } from './organization-resources.js'
import type { Resource } from '../../../../shared/wire/jsonapi.js'
import type { GpgKeyAttributes, MirroredProviderAttributes, ProviderAttributes, ProviderPlatformAttributes, ProviderVersionAttributes } from '../../../../shared/wire/providers.js'

/** How a resource's links are made: upload links for the caller, download links for uploaded files. */
export interface ProviderLinks {
  caller: Caller
  providers: ProviderService
  baseUrl: string
  /** A signed download location for a stored file: its version's or platform's id, which file, and the name to save it as. */
  download: (targetId: string, file: ProviderFile, stored: StoredFile, name: string) => string
}

export function providerPath(view: ProviderView): string {
  const segments = [view.provider.registryName, providerNamespace(view), view.provider.name].map(encodeURIComponent)
  return `${organizationPath(view.org.name)}/registry-providers/${segments.join('/')}`
}

const versionIdentifier = (version: ProviderVersionRecord) => ({ id: version.id, type: 'registry-provider-versions' })

/** A `registry-providers` resource. go-tfe reads the versions as `registry-provider-versions`, HCP's docs as `versions`: both are sent. */
export function providerResource(view: ProviderView, links: ProviderLinks): Resource<ProviderAttributes, 'registry-providers'> {
  const versions = { data: view.provider.versions.map(versionIdentifier) }
  return {
    id: view.provider.id,
    type: 'registry-providers',
    attributes: {
      name: view.provider.name,
      namespace: providerNamespace(view),
      'registry-name': view.provider.registryName,
      'created-at': view.provider.createdAt,
      'updated-at': view.provider.updatedAt,
      permissions: { 'can-delete': links.providers.mayManage(links.caller, view) }
    },
    relationships: {
      organization: { data: { id: view.org.name, type: 'organizations' } },
      versions,
      'registry-provider-versions': versions
    },
    links: { self: providerPath(view) }
  }
}

export function providerVersionResource(view: ProviderView, version: ProviderVersionRecord, links: ProviderLinks): Resource<ProviderVersionAttributes, 'registry-provider-versions'> {
  const manage = links.providers.mayManage(links.caller, view)
  const upload = (file: 'shasums' | 'shasums-sig' | 'docs', uploaded: boolean) => {
    const objectId = links.providers.uploadObjectId(links.caller, view, version.id, file, uploaded)
    return objectId && `${links.baseUrl}/archivist/v1/object/${objectId}`
  }
  const name = `terraform-provider-${view.provider.name}_${version.version}_SHA256SUMS`
  const fileLinks: Record<string, string> = {}
  if (version.shasums) fileLinks['shasums-download'] = links.download(version.id, 'shasums', version.shasums, name)
  else if (manage) fileLinks['shasums-upload'] = upload('shasums', false)!
  if (version.shasumsSig) fileLinks['shasums-sig-download'] = links.download(version.id, 'shasums-sig', version.shasumsSig, `${name}.sig`)
  else if (manage) fileLinks['shasums-sig-upload'] = upload('shasums-sig', false)!
  // Homeport's own: a .tar.gz of the repository's docs tree, taken again to correct them (HCP keeps no provider docs).
  if (manage) fileLinks['docs-upload'] = upload('docs', false)!
  return {
    id: version.id,
    type: 'registry-provider-versions',
    attributes: {
      version: version.version,
      'created-at': version.createdAt,
      'updated-at': version.updatedAt,
      'key-id': version.keyId,
      protocols: version.protocols,
      permissions: { 'can-delete': manage, 'can-upload-asset': manage, 'can-deprecate': links.providers.mayDeprecate(links.caller, view) },
      'shasums-uploaded': version.shasums !== null,
      'shasums-sig-uploaded': version.shasumsSig !== null,
      deprecation: deprecationAttributes(version.deprecation)
    },
    relationships: {
      'registry-provider': { data: { id: view.provider.id, type: 'registry-providers' } },
      platforms: {
        data: version.platforms.map((platform) => ({ id: platform.id, type: 'registry-provider-platforms' })),
        links: { related: `${providerPath(view)}/versions/${encodeURIComponent(version.version)}/platforms` }
      }
    },
    links: fileLinks
  }
}

export function providerPlatformResource(
  view: ProviderView,
  version: ProviderVersionRecord,
  platform: ProviderPlatformRecord,
  links: ProviderLinks
): Resource<ProviderPlatformAttributes, 'registry-provider-platforms'> {
  const manage = links.providers.mayManage(links.caller, view)
  const objectId = links.providers.uploadObjectId(links.caller, view, platform.id, 'binary', platform.binary !== null)
  return {
    id: platform.id,
    type: 'registry-provider-platforms',
    attributes: {
      os: platform.os,
      arch: platform.arch,
      filename: platform.filename,
      shasum: platform.shasum,
      permissions: { 'can-delete': manage, 'can-upload-asset': manage },
      'provider-binary-uploaded': platform.binary !== null
    },
    relationships: { 'registry-provider-version': { data: versionIdentifier(version) } },
    links: platform.binary
      ? { 'provider-binary-download': links.download(platform.id, 'binary', platform.binary, platform.filename) }
      : objectId
        ? { 'provider-binary-upload': `${links.baseUrl}/archivist/v1/object/${objectId}` }
        : {}
  }
}

export function gpgKeyResource({ org, key }: GpgKeyView): Resource<GpgKeyAttributes, 'gpg-keys'> {
  return {
    id: key.id,
    type: 'gpg-keys',
    attributes: {
      'ascii-armor': key.asciiArmor,
      'created-at': key.createdAt,
      'updated-at': key.updatedAt,
      'key-id': key.keyId,
      namespace: org.name,
      source: '',
      'source-url': null,
      'trust-signature': ''
    },
    links: { self: `/v2/gpg-keys/${encodeURIComponent(org.name)}/${key.keyId}` }
  }
}

/** Homeport's own `mirrored-providers` resource: a public provider mirrored here, under the public registry's name it is served as. */
export function mirroredProviderResource(provider: MirroredProviderRecord, hostname: string): Resource<MirroredProviderAttributes, 'mirrored-providers'> {
  const platform = ({ os, arch }: { os: string; arch: string }) => `${os}_${arch}`
  return {
    type: 'mirrored-providers',
    id: provider.id,
    attributes: {
      hostname,
      namespace: provider.namespace,
      type: provider.type,
      'updated-at': provider.updatedAt,
      versions: provider.versions.map((version) => ({
        version: version.version,
        'key-ids': version.keys.map((key) => key.keyId),
        platforms: version.platforms.map(platform),
        // Imported without upstream's signature: the network mirror alone serves them.
        'unsigned-platforms': version.platforms.filter((entry) => entry.unsigned).map(platform)
      }))
    }
  }
}
