import type { OrganizationRecord, ProviderPlatformRecord, ProviderRecord, StoredFile } from '../../store/records.js'
import { ORGANIZATION_NAME, PROVIDER_KEY, PROVIDER_PLATFORM_ID, PROVIDER_VERSION_ID, organizationNameKey, providerKey, type Store } from '../../store/port.js'
import { archiveFile, type ArchiveFile } from '../archives/archive-file.js'
import { type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { signDownload, verifyDownload, type DownloadToken } from '../archives/download-links.js'
import { NotFoundError } from '../core/errors.js'
import type { GpgKeyService } from './gpg-keys.js'
import { terminalSafe } from '../core/notice.js'
import { findProviderVersion, isPublished, providerFileId } from './providers.js'

/** A version as the protocol lists it. */
export interface ListedProviderVersion {
  version: string
  protocols: string[]
  platforms: Array<{ os: string; arch: string }>
}

/**
 * What the protocol's versions endpoint answers: the versions, and `warnings` Terraform and OpenTofu
 * print whenever they look the provider up (Homeport's say which versions are deprecated, and why).
 */
export interface ProviderVersionList {
  versions: ListedProviderVersion[]
  warnings: string[]
}

/** What the protocol's download endpoint answers: the package, and signed locations of its three files. */
export interface ProviderPackage {
  protocols: string[]
  os: string
  arch: string
  filename: string
  shasum: string
  /** The unpacked package's `h1:`, when it was computed as the zip arrived. */
  hash1?: string
  /** Signed tokens for the zip, SHA256SUMS and its signature (see download-links.ts). */
  tokens: { binary: string; shasums: string; signature: string }
  /** File names for the two sums files, as a release names them. */
  shasumsName: string
  /** The keys Terraform may verify the signature with (upstream's own, for a mirrored provider). */
  keys: Array<{ keyId: string; asciiArmor: string; trustSignature: string; source: string; sourceUrl: string | null }>
  /** Every platform's hashes and zip size, for OpenTofu's multi-platform lock (see packageHashes); undefined when unknown. */
  packages?: PackageHashes
}

/** OpenTofu's `packages` of a download answer (1.12): `<os>_<arch>` → its `h1:` and `zh:`, and the zip's size. */
export type PackageHashes = Record<string, { hashes: string[]; package_size: number }>

/** A version's zips as they are kept, for faces that serve the files themselves (OCI, domain/oci/). */
export interface StoredVersionZips {
  version: string
  zips: Array<{ os: string; arch: string; filename: string; file: StoredFile }>
}

/** A version's signed files, as a release publishes them: for bundles, which carry whole releases. */
export interface ProviderRelease {
  protocols: string[]
  shasumsName: string
  shasums: StoredFile
  signature: StoredFile
  keys: ProviderPackage['keys']
  packages: Array<{ os: string; arch: string; filename: string; binary: StoredFile }>
}

/**
 * The provider registry protocol (`providers.v1`) over private providers: the namespace is the
 * organization (matched without regard to case: Terraform lower-cases it). A version is offered
 * once its SHA256SUMS and signature are in, with the platforms whose zip is in. The three files
 * are fetched without a token (Terraform sends none), so their locations are signed, short-lived.
 */
export class ProviderRegistryService {
  constructor(
    private readonly store: Store,
    private readonly keys: GpgKeyService
  ) {}

  async versions(caller: Caller, namespace: string, type: string): Promise<ProviderVersionList> {
    const { provider } = await this.provider(caller, namespace, type)
    const published = provider.versions.filter(isPublished)
    return {
      versions: published.map((version) => ({
        version: version.version,
        protocols: version.protocols,
        platforms: version.platforms.filter((platform) => platform.binary).map(({ os, arch }) => ({ os, arch }))
      })),
      warnings: published.flatMap(({ version, deprecation }) =>
        // terminalSafe: a notice kept before control characters were refused is still printed to a terminal.
        deprecation ? [terminalSafe(`${namespace}/${type} ${version} is deprecated: ${deprecation.reason}${deprecation.link ? ` (${deprecation.link})` : ''}`)] : []
      )
    }
  }

  /** Every published version with the zips that are in, in the order the versions were made. */
  async storedZips(caller: Caller, namespace: string, type: string): Promise<StoredVersionZips[]> {
    const { provider } = await this.provider(caller, namespace, type)
    return provider.versions.filter(isPublished).map((version) => ({
      version: version.version,
      zips: version.platforms.flatMap(({ os, arch, filename, binary }) => (binary ? [{ os, arch, filename, file: binary }] : []))
    }))
  }

  async download(caller: Caller, namespace: string, type: string, version: string, os: string, arch: string): Promise<ProviderPackage> {
    const { org, provider } = await this.provider(caller, namespace, type)
    const target = findProviderVersion(provider, version)
    const platform = target && isPublished(target) ? target.platforms.find((candidate) => candidate.os === os && candidate.arch === arch && candidate.binary) : undefined
    if (!target || !platform) throw new NotFoundError(`${namespace}/${type} ${version} has no package for ${os}_${arch}`)
    const key = await this.keys.keyOf(org, target.keyId)
    if (!key) throw new NotFoundError(`the key that signs ${namespace}/${type} ${version} was removed`)
    return {
      protocols: target.protocols,
      os,
      arch,
      filename: platform.filename,
      shasum: platform.shasum,
      hash1: platform.hash1,
      tokens: packageTokens(this.store.installation().signingKey, { id: target.id, shasums: target.shasums!, shasumsSig: target.shasumsSig! }, { id: platform.id, binary: platform.binary! }),
      shasumsName: `terraform-provider-${provider.name}_${target.version}_SHA256SUMS`,
      keys: [{ keyId: key.keyId, asciiArmor: key.asciiArmor, trustSignature: '', source: 'Homeport', sourceUrl: null }],
      packages: packageHashes(target.platforms, platform)
    }
  }

  /** A published version's signed release for `platforms`: its SHA256SUMS, signature, key and each zip. */
  async release(caller: Caller, namespace: string, type: string, version: string, platforms: Array<{ os: string; arch: string }>): Promise<ProviderRelease> {
    const packages = []
    for (const { os, arch } of platforms) packages.push(await this.download(caller, namespace, type, version, os, arch))
    const { provider } = await this.provider(caller, namespace, type)
    const target = findProviderVersion(provider, version)
    const binaries = platforms.map(({ os, arch }) => target?.platforms.find((candidate) => candidate.os === os && candidate.arch === arch)?.binary)
    if (!target?.shasums || !target.shasumsSig || binaries.some((binary) => !binary)) throw new NotFoundError(`${namespace}/${type} ${version} changed meanwhile`)
    return {
      protocols: target.protocols,
      shasumsName: packages[0]?.shasumsName ?? `terraform-provider-${provider.name}_${target.version}_SHA256SUMS`,
      shasums: target.shasums,
      signature: target.shasumsSig,
      keys: packages[0]?.keys ?? [],
      packages: packages.map((found, index) => ({ os: found.os, arch: found.arch, filename: found.filename, binary: binaries[index]! }))
    }
  }

  /** The file a signed location names, while the location is valid. */
  async fileFor(token: DownloadToken): Promise<ArchiveFile | undefined> {
    const [id, file] = token.versionId.split('+')
    const provider = await this.store.providers.findBy(file === 'binary' ? PROVIDER_PLATFORM_ID : PROVIDER_VERSION_ID, id ?? '')
    const stored = provider && storedFile(provider, id!, file)
    if (!stored || !verifyDownload(this.store.installation().signingKey, token, stored.sha256)) return undefined
    return archiveFile(this.store.archives, stored)
  }

  private async provider(caller: Caller, namespace: string, type: string): Promise<{ org: OrganizationRecord; provider: ProviderRecord }> {
    const org = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(namespace))
    const provider =
      org && authorize(caller, 'download provider', org)
        ? await this.store.providers.findBy(PROVIDER_KEY, providerKey({ organizationId: org.id, registryName: 'private', namespace: null, name: type }))
        : undefined
    if (!org || !provider) throw new NotFoundError(`no provider ${namespace}/${type}`)
    return { org, provider }
  }
}

/**
 * OpenTofu's `packages` for a download answer: each platform whose zip is here, with the `h1:` of
 * its unpacked package (computed when the zip arrived) and its `zh:`, so that one `tofu init` locks
 * every platform. OpenTofu refuses the install when the list is there but wrong for the platform it
 * downloads, so it is sent only when the requested platform's hashes are known, and lists only
 * platforms whose both hashes are (records from before Homeport kept `h1:` have none).
 */
export function packageHashes(
  platforms: ReadonlyArray<{ os: string; arch: string; shasum: string; binary: StoredFile | null; hash1?: string; unsigned?: true }>,
  requested: { os: string; arch: string }
): PackageHashes | undefined {
  const known = platforms.filter((platform) => platform.binary && platform.hash1 && !platform.unsigned)
  if (!known.some((platform) => platform.os === requested.os && platform.arch === requested.arch)) return undefined
  return Object.fromEntries(known.map((platform) => [`${platform.os}_${platform.arch}`, { hashes: [platform.hash1!, `zh:${platform.shasum}`], package_size: platform.binary!.size }]))
}

/**
 * The signed locations of a package's three files: `<version id>+shasums`, `<version id>+shasums-sig`
 * and `<platform id>+binary`, each bound to the file its record holds (see download-links.ts).
 */
export function packageTokens(
  signingKey: string,
  version: { id: string; shasums: StoredFile; shasumsSig: StoredFile },
  platform: { id: string; binary: StoredFile }
): ProviderPackage['tokens'] {
  return {
    binary: binaryToken(signingKey, platform),
    shasums: signDownload(signingKey, providerFileId(version.id, 'shasums'), version.shasums.sha256),
    signature: signDownload(signingKey, providerFileId(version.id, 'shasums-sig'), version.shasumsSig.sha256)
  }
}

/** The signed location of a package's zip alone (the network mirror's archives). */
export function binaryToken(signingKey: string, platform: { id: string; binary: StoredFile }): string {
  return signDownload(signingKey, providerFileId(platform.id, 'binary'), platform.binary.sha256)
}

function storedFile(provider: ProviderRecord, id: string, file: string | undefined): StoredFile | null | undefined {
  for (const version of provider.versions) {
    if (version.id === id) return file === 'shasums' ? version.shasums : file === 'shasums-sig' ? version.shasumsSig : undefined
    const platform: ProviderPlatformRecord | undefined = version.platforms.find((candidate) => candidate.id === id)
    if (platform && file === 'binary') return platform.binary
  }
  return undefined
}
