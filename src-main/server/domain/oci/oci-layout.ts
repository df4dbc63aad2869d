import { createHash } from 'node:crypto'

/**
 * The OCI artifacts OpenTofu installs from (shared/research/opentofu.md §1b), built from what
 * Homeport keeps: a provider version is an image index with one manifest per platform, a module
 * version one manifest; each manifest has exactly one `archive/zip` layer. The JSON is written
 * canonically (fixed key order, no spaces), so the same version always has the same digest, and a
 * test pins the digests of a known input: a change here that moved them would break every lock
 * and every `?digest=` source that names one.
 */

export const INDEX_MEDIA_TYPE = 'application/vnd.oci.image.index.v1+json'
export const MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json'
export const PROVIDER_ARTIFACT = 'application/vnd.opentofu.provider'
export const PROVIDER_TARGET_ARTIFACT = 'application/vnd.opentofu.provider-target'
export const MODULE_ARTIFACT = 'application/vnd.opentofu.modulepkg'
export const ZIP_LAYER = 'archive/zip'

/** OCI's empty config (image-spec "Guidance for an empty descriptor"): artifacts carry their type in artifactType instead. */
export const EMPTY_CONFIG = {
  mediaType: 'application/vnd.oci.empty.v1+json',
  digest: 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
  size: 2
} as const
export const EMPTY_CONFIG_BYTES = Buffer.from('{}')

/** A content-addressed piece of an artifact: its bytes, as served, and the descriptor that names them. */
export interface OciDocument {
  mediaType: string
  bytes: Buffer
  digest: string
}

/** A file kept in the archive store, as a layer names it. */
export interface ZipFile {
  sha256: string
  size: number
}

/** One platform's zip of a provider version. */
export interface PlatformZip extends ZipFile {
  os: string
  arch: string
}

export function digestOf(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

function document(mediaType: string, body: unknown): OciDocument {
  const bytes = Buffer.from(JSON.stringify(body))
  return { mediaType, bytes, digest: digestOf(bytes) }
}

function zipLayer(zip: ZipFile, title: string) {
  return { mediaType: ZIP_LAYER, digest: `sha256:${zip.sha256}`, size: zip.size, annotations: { 'org.opencontainers.image.title': title } }
}

/** A module version: a manifest whose one layer is the module as a zip (its root the module's root). */
export function moduleManifest(zip: ZipFile, version: string): OciDocument {
  return document(MANIFEST_MEDIA_TYPE, {
    schemaVersion: 2,
    mediaType: MANIFEST_MEDIA_TYPE,
    artifactType: MODULE_ARTIFACT,
    config: EMPTY_CONFIG,
    layers: [zipLayer(zip, 'module.zip')],
    annotations: { 'org.opencontainers.image.version': version }
  })
}

/** One platform of a provider version: a manifest whose one layer is the zip Homeport serves over providers.v1. */
export function providerTargetManifest(zip: PlatformZip, filename: string): OciDocument {
  return document(MANIFEST_MEDIA_TYPE, {
    schemaVersion: 2,
    mediaType: MANIFEST_MEDIA_TYPE,
    artifactType: PROVIDER_TARGET_ARTIFACT,
    config: EMPTY_CONFIG,
    layers: [zipLayer(zip, filename)]
  })
}

/** A provider version: an index of its platforms' manifests, in a stable order (by os, then arch). */
export function providerIndex(targets: Array<{ zip: PlatformZip; manifest: OciDocument }>, version: string): OciDocument {
  const sorted = [...targets].sort((a, b) => `${a.zip.os}_${a.zip.arch}`.localeCompare(`${b.zip.os}_${b.zip.arch}`))
  return document(INDEX_MEDIA_TYPE, {
    schemaVersion: 2,
    mediaType: INDEX_MEDIA_TYPE,
    artifactType: PROVIDER_ARTIFACT,
    manifests: sorted.map(({ zip, manifest }) => ({
      mediaType: manifest.mediaType,
      artifactType: PROVIDER_TARGET_ARTIFACT,
      digest: manifest.digest,
      size: manifest.bytes.length,
      platform: { architecture: zip.arch, os: zip.os }
    })),
    annotations: { 'org.opencontainers.image.version': version }
  })
}

/** A version as a tag: OCI tags cannot hold `+`, so OpenTofu reads `_` as the start of build metadata. */
export function versionTag(version: string): string {
  return version.replace(/\+/g, '_')
}
