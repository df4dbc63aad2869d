/**
 * Private providers, their signing keys and the public providers mirrored here, on the wire.
 * Upload and download locations are in each resource's `links` (`shasums-upload`,
 * `provider-binary-download`…), present only while they apply.
 */
import type { DeprecationAttributes, RegistryName } from './modules.js'

/** A `registry-providers` resource's attributes. */
export interface ProviderAttributes {
  name: string
  namespace: string
  'registry-name': RegistryName
  'created-at': string
  'updated-at': string
  permissions: { 'can-delete': boolean }
}

/** A `registry-provider-versions` resource's attributes. */
export interface ProviderVersionAttributes {
  version: string
  'created-at': string
  'updated-at': string
  /** The GPG key that signs its SHA256SUMS. */
  'key-id': string
  protocols: string[]
  /** HCP's, and `can-deprecate`, Homeport's own. */
  permissions: { 'can-delete': boolean; 'can-upload-asset': boolean; 'can-deprecate': boolean }
  'shasums-uploaded': boolean
  'shasums-sig-uploaded': boolean
  /** Homeport's own: set while the version is deprecated; Terraform and OpenTofu print its reason. */
  deprecation: DeprecationAttributes | null
}

/** A `registry-provider-platforms` resource's attributes. */
export interface ProviderPlatformAttributes {
  os: string
  arch: string
  filename: string
  shasum: string
  permissions: { 'can-delete': boolean; 'can-upload-asset': boolean }
  'provider-binary-uploaded': boolean
}

/** A `gpg-keys` resource's attributes. */
export interface GpgKeyAttributes {
  'ascii-armor': string
  'created-at': string
  'updated-at': string
  'key-id': string
  /** The organization the key signs for. */
  namespace: string
  source: string
  'source-url': string | null
  'trust-signature': string
}

/** Homeport's `mirrored-providers`: a public provider mirrored here, for use offline. */
export interface MirroredProviderAttributes {
  hostname: string
  namespace: string
  type: string
  'updated-at': string
  versions: Array<{
    version: string
    'key-ids': string[]
    /** `<os>_<arch>`. */
    platforms: string[]
    /** Imported without upstream's signature: the network mirror alone serves them. */
    'unsigned-platforms': string[]
  }>
}

/** Homeport's `provider-mirrors`: the answer to mirroring a public provider ahead of time. */
export interface ProviderMirrorAttributes {
  /** `<namespace>/<type>`, as asked. */
  source: string
  /** What was fetched: each version and `<os>_<arch>` platform. */
  mirrored: Array<{ version: string; platform: string }>
  /** Each version's docs, fetched from the upstream's docs API: how many it has, or why they could not be had (the next mirror tries again). */
  docs: Array<{ version: string; count: number; problem?: string }>
}

/** Homeport's `mirrored-provider-packages`: the answer to importing one provider zip into the mirror. */
export interface MirroredPackageAttributes {
  'already-present': boolean
  /** Whether upstream's signed SHA256SUMS, mirrored already, lists it: the registry protocol serves it then too. */
  signed: boolean
}

/** Homeport's `provider-releases`: the answer to importing a release folder's signed SHA256SUMS. */
export interface ProviderReleaseImportAttributes {
  'already-present': boolean
  /** The key that signed it, as the registry protocol names it. */
  'key-id': string
}
