import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import semver from 'semver'
import type { MirroredProviderPlatform, MirroredProviderRecord, MirroredProviderVersion, StoredFile } from '../../store/records.js'
import { MIRRORED_FILE_ID, MIRRORED_PROVIDER, type Store } from '../../store/port.js'
import { UniqueConstraintError } from '../../store/errors.js'
import { archiveFile, type ArchiveFile } from '../archives/archive-file.js'
import type { ArchiveKeeper } from '../archives/archive-keeper.js'
import type { Caller } from '../core/access.js'
import { verifyDownload, type DownloadToken } from '../archives/download-links.js'
import { BadGatewayError, ConflictError, ForbiddenError, InvalidInputError, NotFoundError, UnavailableError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import { terraformConstraint } from '../modules/versions/constraints.js'
import { UpstreamUnavailableError, type UpstreamRegistry } from '../upstream/upstream.js'
import { archSegment, namespaceSegment, osSegment, typeSegment, upstreamPath, versionSegment } from '../upstream/upstream-path.js'
import { MAX_PROVIDER_ZIP_BYTES } from './provider-uploads.js'
import { binaryToken, packageHashes, packageTokens, type ListedProviderVersion, type ProviderPackage, type ProviderRelease, type ProviderVersionList, type StoredVersionZips } from './provider-registry.js'
import { checkPlatformPart, checkProtocols, checkProviderFilename, isTerraformProviderPart } from './providers.js'
import type { AuditTrailService } from '../organizations/audit-trail.js'
import { terminalSafe } from '../core/notice.js'
import { callerScope, type Gate } from '../gate/gate.js'
import { KEPT_OUT } from '../gate/decide.js'
import { packageKey, publicPackage, type PublicPackage } from '../gate/packages.js'
import type { PublishTimes, ReleaseDates, ReleaseFacts } from '../gate/release-dates.js'
import type { UpstreamDocs } from '../provider-docs/upstream-docs.js'
import { archiveHash1, binarySignature, checkProviderZip, checkSignature, parseShasums, publicKeyId } from './release-files.js'

interface UpstreamPackage {
  protocols?: string[]
  os: string
  arch: string
  filename: string
  download_url: string
  shasums_url: string
  shasums_signature_url: string
  shasum: string
  signing_keys?: { gpg_public_keys?: Array<{ key_id?: string; ascii_armor: string; trust_signature?: string; source?: string; source_url?: string | null }> }
}

/** The most of a SHA256SUMS or its signature read from the upstream (a real one lists a few dozen files). */
const MAX_SIGNED_FILE_BYTES = 1024 * 1024

/** A zip as the network mirror lists it. */
export interface MirrorArchive {
  filename: string
  shasum: string
  /** The unpacked package's `h1:`, when it was computed (OpenTofu's `trust_all_hashes` records it). */
  hash1?: string
  /** The signed token of its location (see download-links.ts). */
  token: string
}

/** What a mirror fetched: each version's platforms, and each version's docs (how many, or why none). */
export interface MirrorResult {
  mirrored: Array<{ version: string; platform: string }>
  docs: Array<{ version: string; count: number; problem?: string }>
}

/** Where an imported package or release belongs. */
export interface ImportedAddress {
  /** The registry the folder names it under (`registry.terraform.io`). */
  hostname: string
  namespace: string
  type: string
  version: string
}

/** One package of a `terraform providers mirror` folder: where it belongs, and the hashes the folder lists for it. */
export interface ImportedPackage extends ImportedAddress {
  os: string
  arch: string
  hashes: string[]
}

/** A provider release folder's signed files (goreleaser's, or releases.hashicorp.com's), vouched for by `signingKey`. */
export interface ImportedRelease extends ImportedAddress {
  shasums: Buffer
  signature: Buffer
  /** The ASCII-armored public key that signed SHA256SUMS; Terraform is given it to verify the signature. */
  signingKey: string
  protocols: string[]
  /** What the key's registry said of it (a partner's trust signature, its source), kept as it was: a bundle carries them. */
  keyDetails?: { trustSignature: string; source: string; sourceUrl: string | null }
}

/** The address in Terraform's terms, lower-cased as Terraform does, or the reason it cannot be. */
function checkAddress<T extends ImportedAddress>(target: T): T {
  const namespace = target.namespace.toLowerCase()
  const type = target.type.toLowerCase()
  const named = (part: string) => part.length <= 64 && isTerraformProviderPart(part)
  if (!named(namespace) || !named(type)) throw new InvalidInputError(`"${target.namespace}/${target.type}" is not a provider address Terraform accepts.`, 'source')
  if (semver.valid(target.version) !== target.version) throw new InvalidInputError(`"${target.version}" is not a version.`, 'version')
  return { ...target, hostname: target.hostname.toLowerCase(), namespace, type }
}

/** The package named in Terraform's terms, with the hashes it is checked by. */
function checkImport(target: ImportedPackage): ImportedPackage {
  checkPlatformPart(target.os, 'os')
  checkPlatformPart(target.arch, 'arch')
  const hashes = target.hashes.filter((hash) => /^h1:[A-Za-z0-9+/]{43}=$/.test(hash) || /^zh:[0-9a-f]{64}$/.test(hash))
  if (hashes.length === 0) throw new InvalidInputError('Give the zip\'s h1: or zh: hash, as the folder\'s <version>.json lists it: an import is checked by hash.', 'hashes')
  return { ...checkAddress(target), hashes }
}

/**
 * Public providers, mirrored from the upstream registry and served from here, online or not.
 * Terraform asks for them under their own names (`registry.terraform.io/hashicorp/null`, through
 * a `host` block that points that hostname at Homeport), so Homeport re-serves upstream's exact
 * SHA256SUMS, signature and keys: Terraform verifies upstream's own signature, says "signed by
 * HashiCorp" for HashiCorp's providers, and locks every platform.
 *
 * Pull-through: a package Homeport lacks is fetched from the upstream when Terraform asks for it,
 * checked as Terraform checks it (the checksums, then the signature by one of upstream's keys),
 * kept, and served; it is the one kind of read that writes, on purpose, like the upstream answer
 * cache. Offline, only what is mirrored is offered.
 */
export class ProviderMirror {
  /**
   * `publicNames`: the public registries' names this mirror answers for (`registry.terraform.io`),
   * the first being how it is shown; it answers for its upstream's own hostname too.
   */
  constructor(
    private readonly store: Store,
    private readonly upstream: UpstreamRegistry,
    private readonly archives: ArchiveKeeper,
    readonly publicNames: readonly string[],
    private readonly audit: AuditTrailService,
    private readonly gate: Gate,
    private readonly dates: ReleaseDates,
    private readonly docs: UpstreamDocs
  ) {}

  /** The upstream's hostname, which the providers mirrored from it are kept under. */
  get hostname(): string {
    return new URL(this.upstream.address).host
  }

  /** The public registry's name, as configurations and lock files write it (`registry.terraform.io`). */
  get publicName(): string {
    return this.publicNames[0] ?? this.hostname
  }

  /** Whether a provider address's hostname (`registry.opentofu.org/hashicorp/null`) is this mirror's. */
  answersFor(hostname: string): boolean {
    const host = hostname.toLowerCase()
    return host === this.hostname || this.publicNames.includes(host)
  }

  /** The provider as the gate names it (under the public registry's name). */
  private package(namespace: string, type: string): PublicPackage {
    return { ...publicPackage('provider', this.publicName, namespace, type), aliases: this.publicNames.slice(1) }
  }

  /**
   * What is known of versions the gate has not seen: their publish times from the upstream's v2 API
   * (`published-at`), where it has one (registry.terraform.io does; offline or OpenTofu's, none), and
   * since when each is mirrored here.
   */
  private publishTimes(namespace: string, type: string): PublishTimes {
    return async (versions) => {
      const facts = new Map<string, ReleaseFacts>()
      const kept = await this.mirrored(namespace, type)
      for (const version of kept?.versions ?? []) if (versions.includes(version.version)) facts.set(version.version, { keptSince: version.createdAt ?? kept!.createdAt })
      const answer = await this.upstream.get(upstreamPath('providers', namespaceSegment(namespace), typeSegment(type)), 'v2', { include: 'provider-versions' }).catch(() => undefined)
      if (answer?.status !== 200 || answer.stale) return facts
      const included = (answer.body as { included?: unknown }).included
      for (const item of Array.isArray(included) ? (included as Array<{ type?: unknown; attributes?: Record<string, unknown> }>) : []) {
        const version = item?.attributes?.version
        const published = item?.attributes?.['published-at']
        if (item?.type === 'provider-versions' && typeof version === 'string' && typeof published === 'string') facts.set(version, { ...facts.get(version), publishedAt: published })
      }
      return facts
    }
  }

  /** The versions of `entries` the gate offers the caller. */
  private async gated<T extends { version: string }>(caller: Caller, namespace: string, type: string, entries: readonly T[]): Promise<T[]> {
    return (await this.gate.offered(callerScope(caller), this.package(namespace, type), entries, (entry) => entry.version, this.publishTimes(namespace, type))).offered
  }

  /** What providers.v1 offers of `entries`, with warnings for the versions the gate holds and for the upstream's re-tags it refused. */
  private async listed(caller: Caller, namespace: string, type: string, entries: readonly ListedProviderVersion[]): Promise<ProviderVersionList> {
    const target = this.package(namespace, type)
    const { offered, held } = await this.gate.offered(callerScope(caller), target, entries, (entry) => entry.version, this.publishTimes(namespace, type))
    return { versions: offered, warnings: [...this.gate.warnings(target, held), ...(await this.gate.retagWarnings(target))] }
  }

  /** Refuses a version the gate does not offer the caller (HeldByGateError), before anything is fetched. */
  async admit(caller: Caller, namespace: string, type: string, version: string): Promise<void> {
    await this.gate.check(callerScope(caller), this.package(namespace, type), version, this.publishTimes(namespace, type))
  }

  async versions(caller: Caller, namespace: string, type: string): Promise<ProviderVersionList> {
    const answer = await this.upstream.get(upstreamPath(namespaceSegment(namespace), typeSegment(type), 'versions'), 'providers.v1', { live: true }).catch((error: unknown) => {
      // Out of reach is answered from what is here; a bad name or a bad answer is said as it is.
      if (error instanceof InvalidInputError || error instanceof BadGatewayError) throw error
      return undefined
    })
    // Online, what upstream offers (a missing package is pulled through); offline, only what is here.
    if (answer && !answer.stale && answer.status === 200) {
      const body = answer.body as { versions?: ListedProviderVersion[]; warnings?: unknown }
      // Terraform gives up on the whole list for one version it cannot parse: pass on only real ones.
      const listed = (body.versions ?? []).filter((entry) => typeof entry?.version === 'string' && semver.valid(entry.version) !== null)
      const { versions, warnings } = await this.listed(caller, namespace, type, listed)
      return {
        versions,
        // The upstream's own notices (a provider moved, archived), as it said them, then the gate's.
        warnings: [...(Array.isArray(body.warnings) ? body.warnings.filter((warning): warning is string => typeof warning === 'string').map(terminalSafe) : []), ...warnings]
      }
    }
    return this.listed(caller, namespace, type, await this.keptVersions(namespace, type))
  }

  /**
   * The versions and platforms mirrored here that the gate offers the caller, whatever the upstream
   * has: those upstream signed, or with `unsigned`, also those imported without upstream's signature
   * (for the network mirror).
   */
  async localVersions(caller: Caller, namespace: string, type: string, { unsigned = false } = {}): Promise<ListedProviderVersion[]> {
    return this.gated(caller, namespace, type, await this.keptVersions(namespace, type, { unsigned }))
  }

  /** The versions and platforms mirrored here, as localVersions, whatever the gate decides (for an import's own bookkeeping). */
  async keptVersions(namespace: string, type: string, { unsigned = false } = {}): Promise<ListedProviderVersion[]> {
    const mirrored = await this.mirrored(namespace, type)
    const versions = (mirrored?.versions ?? [])
      .map((version) => ({
        version: version.version,
        protocols: version.protocols,
        platforms: version.platforms.filter((platform) => unsigned || !platform.unsigned).map(({ os, arch }) => ({ os, arch }))
      }))
      .filter((version) => version.platforms.length > 0)
    if (versions.length === 0) {
      throw new NotFoundError(`${this.publicName}/${namespace}/${type} is not mirrored here, and the upstream registry cannot be reached`, false)
    }
    return versions
  }

  /** Every version mirrored here with its zips, signed by upstream or imported (OCI carries no signature: domain/oci/). */
  async storedZips(caller: Caller, namespace: string, type: string): Promise<StoredVersionZips[]> {
    const mirrored = await this.mirrored(namespace, type)
    if (!mirrored) throw new NotFoundError(`${this.publicName}/${namespace}/${type} is not mirrored here`, false)
    return (await this.gated(caller, namespace, type, mirrored.versions)).map((version) => ({
      version: version.version,
      zips: version.platforms.map(({ os, arch, filename, binary }) => ({ os, arch, filename, file: binary }))
    }))
  }

  async download(caller: Caller, namespace: string, type: string, version: string, os: string, arch: string): Promise<ProviderPackage> {
    await this.admit(caller, namespace, type, version)
    let found = this.packageOf(await this.mirrored(namespace, type), version, os, arch)
    if (!found || found.platform.unsigned) {
      // An imported zip is served to the registry protocol once upstream's signature vouches for it;
      // failing that, it is still here (and the answer below says where to get it).
      const imported = found
      await this.pull(caller, namespace, type, version, os, arch).catch((error: unknown) => {
        if (!imported) throw error
      })
      found = this.packageOf(await this.mirrored(namespace, type), version, os, arch)
    }
    if (!found) throw new NotFoundError(`${namespace}/${type} ${version} has no package for ${os}_${arch}`, false)
    const { version: mirrored, platform } = found
    if (platform.unsigned || !mirrored.shasums || !mirrored.shasumsSig) {
      throw new NotFoundError(
        `${namespace}/${type} ${version} for ${os}_${arch} was imported without upstream's signed SHA256SUMS, so Terraform can install it only through the network mirror (provider_installation { network_mirror { … } }, over HTTPS)`,
        false
      )
    }
    return {
      protocols: mirrored.protocols,
      os,
      arch,
      filename: platform.filename,
      shasum: platform.shasum,
      tokens: packageTokens(this.store.installation().signingKey, { id: mirrored.id, shasums: mirrored.shasums, shasumsSig: mirrored.shasumsSig }, platform),
      shasumsName: mirrored.shasumsName ?? `terraform-provider-${type}_${version}_SHA256SUMS`,
      keys: mirrored.keys,
      packages: packageHashes(mirrored.platforms, platform)
    }
  }

  /**
   * A version's signed release for `platforms`, every package pulled through first where it is not
   * here (as a download would): upstream's SHA256SUMS, its signature and keys, and each zip.
   */
  async release(caller: Caller, namespace: string, type: string, version: string, platforms: Array<{ os: string; arch: string }>): Promise<ProviderRelease> {
    for (const { os, arch } of platforms) await this.download(caller, namespace, type, version, os, arch)
    const mirrored = (await this.mirrored(namespace, type))?.versions.find((candidate) => candidate.version === version)
    const packages = platforms.map(({ os, arch }) => mirrored?.platforms.find((candidate) => candidate.os === os && candidate.arch === arch && !candidate.unsigned))
    // Removed meanwhile: as for a download, the caller may ask again.
    if (!mirrored?.shasums || !mirrored.shasumsSig || packages.some((found) => !found)) throw new NotFoundError(`${namespace}/${type} ${version} was removed from the mirror meanwhile`, false)
    return {
      protocols: mirrored.protocols,
      shasumsName: mirrored.shasumsName ?? `terraform-provider-${type}_${version}_SHA256SUMS`,
      shasums: mirrored.shasums,
      signature: mirrored.shasumsSig,
      keys: mirrored.keys,
      packages: packages.map((found) => ({ os: found!.os, arch: found!.arch, filename: found!.filename, binary: found!.binary }))
    }
  }

  /** A mirrored zip, signed by upstream or imported, as the network mirror offers it: its name, `zh:` and signed location. */
  async archive(caller: Caller, namespace: string, type: string, version: string, os: string, arch: string): Promise<MirrorArchive> {
    await this.admit(caller, namespace, type, version)
    const found = this.packageOf(await this.mirrored(namespace, type), version, os, arch)
    if (!found) throw new NotFoundError(`${namespace}/${type} ${version} has no package for ${os}_${arch}`, false)
    const { filename, shasum, hash1 } = found.platform
    return { filename, shasum, hash1, token: binaryToken(this.store.installation().signingKey, found.platform) }
  }

  /**
   * Imports one package of a `terraform providers mirror` folder (or any zip whose hash is known),
   * checked against the hashes the folder lists for it (`h1:` over the archive, or `zh:`). Kept as
   * signed when upstream's SHA256SUMS, mirrored already, lists this very zip; otherwise the network
   * mirror alone serves it, since the registry protocol needs a signature Homeport cannot make up.
   */
  async importPackage(caller: Caller, target: ImportedPackage, zip: Readable): Promise<{ present: boolean; signed: boolean }> {
    const { hostname, namespace, type, version, os, arch, hashes } = checkImport(target)
    const name = `${hostname}/${namespace}/${type} ${version} ${os}_${arch}`
    await this.check(caller, 'import', name, 'Only the site admin imports public providers.')
    this.checkHostname(hostname)
    const binary = await this.store.archives.put(zip, MAX_PROVIDER_ZIP_BYTES)
    const unpin = this.archives.pin(binary.sha256)
    try {
      const readRange = (start: number, end: number) => this.store.archives.read(binary.sha256, { start, end })
      await checkProviderZip(type, binary.size, readRange)
      const zh = `zh:${binary.sha256}`
      // Kept with the package: OpenTofu's download answer lists every platform's h1: (see packageHashes).
      const h1 = await archiveHash1(binary.size, readRange)
      if (!hashes.includes(zh) && !hashes.includes(h1)) {
        throw new InvalidInputError(`The zip's hashes are ${h1} and ${zh}, and the folder lists ${hashes.join(', ')}: the zip is not the one that was mirrored.`, 'hashes')
      }
      const filename = `terraform-provider-${type}_${version}_${os}_${arch}.zip`
      const before = (await this.mirrored(namespace, type))?.versions.find((candidate) => candidate.version === version)?.shasums
      const vouched = before !== undefined && (await this.shasumsOf(before)).get(filename) === binary.sha256
      const outcome = { present: false, signed: false }
      await this.change(namespace, type, (draft) => {
          let mirrored = draft.versions.find((candidate) => candidate.version === version)
          if (!mirrored) {
            mirrored = { id: newId('mirpv'), version, createdAt: now(), protocols: [], keys: [], platforms: [] }
            draft.versions.push(mirrored)
          }
          const present = mirrored.platforms.find((candidate) => candidate.os === os && candidate.arch === arch)
          if (present?.binary.sha256 === binary.sha256) {
            Object.assign(outcome, { present: true, signed: !present.unsigned })
            return
          }
          if (present) {
            throw new ConflictError(`${hostname}/${namespace}/${type} ${version} for ${os}_${arch} is mirrored here already, from another zip (SHA-256 ${present.shasum}): remove it before importing this one.`)
          }
          const signed = vouched && mirrored.shasums?.sha256 === before?.sha256
          outcome.signed = signed
          mirrored.platforms.push({ id: newId('mirpp'), os, arch, filename, shasum: binary.sha256, binary, hash1: h1, ...(signed ? {} : { unsigned: true as const }) })
        })
      if (!outcome.present) await this.changed(caller, 'import', name)
      return outcome
    } finally {
      unpin()
      await this.archives.release([binary.sha256])
    }
  }

  /**
   * Imports a release folder's signed files (SHA256SUMS and its signature), checked against the
   * signing key the site admin gives: the key stands in for upstream's, so Terraform verifies the
   * release by it through the registry protocol. The zips follow through `importPackage`, which
   * finds them vouched for. Idempotent; another SHA256SUMS for a version mirrored already is a conflict.
   */
  async importRelease(caller: Caller, target: ImportedRelease): Promise<{ present: boolean; keyId: string }> {
    const { hostname, namespace, type, version, shasums, signature, signingKey, protocols, keyDetails } = checkAddress(target)
    const name = `${hostname}/${namespace}/${type} ${version} SHA256SUMS`
    await this.check(caller, 'import', name, 'Only the site admin imports public providers.')
    this.checkHostname(hostname)
    checkProtocols(protocols, 'mirror')
    const keyId = await publicKeyId(signingKey, 'signingKey')
    const sums = parseShasums(shasums.toString('utf8'))
    const unlisted = [...sums.keys()].find((name) => !name.startsWith(`terraform-provider-${type}_${version}_`))
    if (unlisted !== undefined) throw new InvalidInputError(`SHA256SUMS lists ${unlisted}, which is not a file of ${type} ${version}: is it the release of another provider?`, 'shasums')
    const binary = await binarySignature(signature)
    await checkSignature(signingKey, shasums, binary)

    const files = [await this.store.archives.put(Readable.from([shasums]), MAX_PROVIDER_ZIP_BYTES), await this.store.archives.put(Readable.from([Buffer.from(binary)]), MAX_PROVIDER_ZIP_BYTES)]
    const [storedSums, storedSig] = files as [StoredFile, StoredFile]
    const unpins = files.map((file) => this.archives.pin(file.sha256))
    const outcome = { present: false, keyId }
    try {
      await this.change(namespace, type, (draft) => {
        let mirrored = draft.versions.find((candidate) => candidate.version === version)
        if (mirrored?.shasums?.sha256 === storedSums.sha256) {
          outcome.present = true
          return
        }
        if (mirrored?.shasums) {
          throw new ConflictError(`${hostname}/${namespace}/${type} ${version} is mirrored here already with another SHA256SUMS (SHA-256 ${mirrored.shasums.sha256}): remove it before importing this release.`)
        }
        if (!mirrored) {
          mirrored = { id: newId('mirpv'), version, createdAt: now(), protocols: [], keys: [], platforms: [] }
          draft.versions.push(mirrored)
        }
        mirrored.protocols = protocols
        mirrored.shasumsName = `terraform-provider-${type}_${version}_SHA256SUMS`
        mirrored.shasums = storedSums
        mirrored.shasumsSig = storedSig
        mirrored.keys = [{ keyId, asciiArmor: signingKey, trustSignature: '', source: '', sourceUrl: null, ...keyDetails }]
        for (const imported of mirrored.platforms) if (imported.unsigned && sums.get(imported.filename) === imported.shasum) delete imported.unsigned
      })
      if (!outcome.present) await this.changed(caller, 'import', name)
      return outcome
    } finally {
      for (const unpin of unpins) unpin()
      await this.archives.release(files.map((file) => file.sha256))
    }
  }

  /** Why importing this SHA256SUMS for a version would conflict with what is mirrored here, if it would. */
  async releaseConflict(namespace: string, type: string, version: string, shasumsSha256: string): Promise<string | undefined> {
    const kept = (await this.mirrored(namespace, type))?.versions.find((candidate) => candidate.version === version)?.shasums
    if (!kept || kept.sha256 === shasumsSha256) return undefined
    return `${this.publicName}/${namespace}/${type} ${version} is mirrored here already with another SHA256SUMS (SHA-256 ${kept.sha256}): remove it before importing this release.`
  }

  /**
   * Mirrors the versions of `namespace/type` that meet `constraint` (all, without one), for each
   * platform, ahead of time (the site admin's explicit mirror). Online only.
   */
  async mirror(caller: Caller, namespace: string, type: string, constraint: string | undefined, platforms: string[]): Promise<MirrorResult> {
    const name = `${this.publicName}/${namespace}/${type} ${constraint ?? ''}`.trim()
    await this.check(caller, 'mirror', name, 'Only the site admin mirrors public providers.')
    if (platforms.length === 0) throw new InvalidInputError('Name the platforms to mirror (linux_amd64, darwin_arm64…).', 'platforms')
    const meets = constraint === undefined ? () => true : terraformConstraint(constraint)
    const answer = await this.upstream.get(upstreamPath(namespaceSegment(namespace), typeSegment(type), 'versions'), 'providers.v1')
    if (answer.stale || answer.status !== 200) throw new UnavailableError(`The upstream registry did not list ${namespace}/${type} (HTTP ${answer.status}${answer.stale ? ', offline' : ''}).`)
    const versions = (answer.body as { versions: ListedProviderVersion[] }).versions.filter((entry) => meets(entry.version))
    if (versions.length === 0) throw new InvalidInputError(`The upstream registry has no version of ${namespace}/${type} in "${constraint ?? ''}".`, 'versions')
    // What the gate keeps out is never fetched; what it only holds for now (a cooldown, an approval) is, ready for when it is offered.
    const decisions = await this.gate.decisions(callerScope(caller), this.package(namespace, type), versions.map((entry) => entry.version), this.publishTimes(namespace, type))
    const refused = new Set(decisions.filter((decision) => KEPT_OUT.has(decision.verdict)).map((decision) => decision.version))
    const done: MirrorResult['mirrored'] = []
    const docs: MirrorResult['docs'] = []
    for (const entry of versions) {
      if (refused.has(entry.version)) continue
      for (const platform of platforms) {
        const [os, arch] = platform.split('_') as [string, string]
        if (!entry.platforms?.some((candidate) => candidate.os === os && candidate.arch === arch)) continue
        if (!this.packageOf(await this.mirrored(namespace, type), entry.version, os, arch)) await this.pull(caller, namespace, type, entry.version, os, arch)
        done.push({ version: entry.version, platform })
      }
      if (!done.some((mirrored) => mirrored.version === entry.version)) continue
      // Docs are optional: a version whose docs cannot be had is mirrored all the same, and says why.
      docs.push(
        await this.docs.ensure(namespace, type, entry.version).then(
          (count) => ({ version: entry.version, count }),
          (error: Error) => ({ version: entry.version, count: 0, problem: error.message })
        )
      )
    }
    await this.changed(caller, 'mirror', `${name} (${platforms.join(', ')})`)
    return { mirrored: done, docs }
  }

  /**
   * Removes a mirrored version (every platform, its SHA256SUMS and signature), or one platform of it;
   * the files go once nothing else refers to them. Online, a later request may pull it through again.
   */
  async remove(caller: Caller, namespace: string, type: string, version: string, platform?: string): Promise<void> {
    const name = `${this.publicName}/${namespace}/${type} ${version}${platform ? ` for ${platform}` : ''}`
    await this.check(caller, 'destroy', name, 'Only the site admin removes mirrored providers.')
    const provider = await this.mirrored(namespace, type)
    if (!provider) throw new NotFoundError(`${name} is not mirrored here`, false)
    const released: string[] = []
    let versionGone = false
    await this.store.providerMirror.update(provider.id, (draft) => {
      const index = draft.versions.findIndex((candidate) => candidate.version === version)
      const mirrored = draft.versions[index]
      const platforms = mirrored?.platforms.filter((candidate) => platform === undefined || `${candidate.os}_${candidate.arch}` === platform) ?? []
      if (!mirrored || platforms.length === 0) throw new NotFoundError(`${name} is not mirrored here`, false)
      released.push(...platforms.map((candidate) => candidate.binary.sha256))
      mirrored.platforms = mirrored.platforms.filter((candidate) => !platforms.includes(candidate))
      if (mirrored.platforms.length === 0) {
        // Nothing left to vouch for: the signed files go with the last platform.
        released.push(...[mirrored.shasums, mirrored.shasumsSig].flatMap((file) => (file ? [file.sha256] : [])))
        draft.versions.splice(index, 1)
        versionGone = true
      }
      draft.updatedAt = now()
    })
    await this.store.providerMirror.deleteWhere(provider.id, (record) => record.versions.length === 0)
    if (versionGone) await this.docs.forget(namespace, type, version)
    await this.archives.release(released)
    await this.changed(caller, 'destroy', name)
  }

  /** The site admin's alone: anyone else is refused, and the installation's trail says so. */
  private check(caller: Caller, action: string, name: string, refusal: string): Promise<void> {
    return this.audit.check(caller, { permission: 'mirror public providers', org: undefined, action, resource: { type: 'mirrored-provider', id: name, name } }, () => new ForbiddenError(refusal))
  }

  private changed(caller: Caller, action: string, name: string): Promise<void> {
    return this.audit.done({ author: caller, permission: 'mirror public providers', org: undefined, action, resource: { type: 'mirrored-provider', id: name, name } })
  }

  /** What is mirrored from this upstream: every provider, with its versions and platforms (any caller may see it: it is public). */
  async list(): Promise<MirroredProviderRecord[]> {
    return (await this.store.providerMirror.all())
      .filter((provider) => provider.hostname === this.hostname)
      .sort((a, b) => `${a.namespace}/${a.type}`.localeCompare(`${b.namespace}/${b.type}`))
  }

  /** A mirrored provider's record with only the versions the gate offers the caller. */
  async offeredRecord(caller: Caller, record: MirroredProviderRecord): Promise<MirroredProviderRecord> {
    const offered = await this.gated(caller, record.namespace, record.type, record.versions)
    return offered.length === record.versions.length ? record : { ...record, versions: offered }
  }

  /** A mirrored file at a signed location, while the location is valid. */
  async fileFor(token: DownloadToken): Promise<ArchiveFile | undefined> {
    const [id, file] = token.versionId.split('+') as [string, string | undefined]
    const provider = await this.store.providerMirror.findBy(MIRRORED_FILE_ID, id)
    if (provider && provider.hostname !== this.hostname) return undefined
    let stored: StoredFile | undefined
    for (const version of provider?.versions ?? []) {
      if (version.id === id) stored = file === 'shasums' ? version.shasums : file === 'shasums-sig' ? version.shasumsSig : undefined
      const platform = version.platforms.find((candidate) => candidate.id === id)
      if (platform && file === 'binary') stored = platform.binary
    }
    if (!stored || !verifyDownload(this.store.installation().signingKey, token, stored.sha256)) return undefined
    return archiveFile(this.store.archives, stored)
  }

  private async shasumsOf(file: StoredFile): Promise<Map<string, string>> {
    const chunks: Buffer[] = []
    for await (const chunk of this.store.archives.read(file.sha256)) chunks.push(chunk as Buffer)
    return parseShasums(Buffer.concat(chunks).toString('utf8'))
  }

  /**
   * Applies `change` to the mirrored provider's record inside the write queue, making the record
   * if there is none. Two first writes of a new provider at once both pick a new id; the one that
   * loses gets the store's unique-key refusal and is applied again to the record the other made.
   */
  private async change(namespace: string, type: string, change: (draft: MirroredProviderRecord) => void): Promise<void> {
    const timestamp = now()
    for (let attempt = 0; ; attempt++) {
      const id = (await this.mirrored(namespace, type))?.id ?? newId('mirp')
      const fresh = (): MirroredProviderRecord => ({ id, hostname: this.hostname, namespace: namespace.toLowerCase(), type: type.toLowerCase(), createdAt: timestamp, updatedAt: timestamp, versions: [] })
      try {
        await this.store.providerMirror.upsert(id, fresh, (draft) => {
          change(draft)
          draft.updatedAt = timestamp
        })
        return
      } catch (error) {
        if (!(error instanceof UniqueConstraintError) || attempt > 0) throw error
      }
    }
  }

  /** An import names the registry it belongs to: it must be this mirror's (see PublicMirrors.for, which picks the mirror). */
  private checkHostname(hostname: string): void {
    if (!this.answersFor(hostname)) throw new InvalidInputError(`This mirror keeps the providers of ${[...new Set([...this.publicNames, this.hostname])].join(', ')}, not of ${hostname}.`, 'hostname')
  }

  private mirrored(namespace: string, type: string): Promise<MirroredProviderRecord | undefined> {
    return this.store.providerMirror.findBy(MIRRORED_PROVIDER, `${this.hostname}/${namespace.toLowerCase()}/${type.toLowerCase()}`)
  }

  private packageOf(provider: MirroredProviderRecord | undefined, version: string, os: string, arch: string) {
    const mirrored = provider?.versions.find((candidate) => candidate.version === version)
    const platform = mirrored?.platforms.find((candidate) => candidate.os === os && candidate.arch === arch)
    return mirrored && platform ? { version: mirrored, platform } : undefined
  }

  /** Fetches one package from the upstream, checks it as Terraform would, and keeps it. */
  private async pull(caller: Caller, namespace: string, type: string, version: string, os: string, arch: string): Promise<void> {
    const path = upstreamPath(namespaceSegment(namespace), typeSegment(type), versionSegment(version), 'download', osSegment(os), archSegment(arch))
    // Out of reach, only what is mirrored is offered (as the versions list does): a package that is not here is
    // missing, which Terraform says plainly ("not available for <platform>"), rather than a 503 it retries.
    const offline = () => new NotFoundError(`${namespace}/${type} ${version} has no package for ${os}_${arch} here, and the upstream registry cannot be reached: offline, only mirrored platforms are offered`, false)
    const answer = await this.upstream.get(path, 'providers.v1').catch((error: unknown) => {
      throw error instanceof UpstreamUnavailableError ? offline() : error
    })
    if (answer.stale) throw offline()
    if (answer.status === 404) throw new NotFoundError(`the upstream registry has no ${namespace}/${type} ${version} for ${os}_${arch}`, false)
    if (answer.status !== 200) throw new UnavailableError(`The upstream registry answered HTTP ${answer.status} for ${path}.`)
    const meta = answer.body as UpstreamPackage
    const invalid = (reason: string) => new UnavailableError(`The upstream registry's ${namespace}/${type} ${version} for ${os}_${arch} does not verify, so it was not mirrored: ${reason}`)
    if (meta.os !== os || meta.arch !== arch || !/^[0-9a-f]{64}$/.test(meta.shasum ?? '')) throw invalid('its answer is not a provider package for this platform')
    const at = await this.upstream.urlOf(path, 'providers.v1')
    let shasumsName: string
    try {
      checkProviderFilename(meta.filename)
      // Kept as the name of the file a bundle carries: a plain file name, whatever the upstream's URL says.
      shasumsName = checkProviderFilename(new URL(meta.shasums_url, at).pathname.split('/').pop())
    } catch (error) {
      throw invalid((error as Error).message)
    }
    const sumsBytes = await this.upstream.fetchSmall(new URL(meta.shasums_url, at).toString(), MAX_SIGNED_FILE_BYTES)
    const signature = await this.upstream.fetchSmall(new URL(meta.shasums_signature_url, at).toString(), MAX_SIGNED_FILE_BYTES)
    let sums: Map<string, string>
    try {
      sums = parseShasums(sumsBytes.toString('utf8'))
    } catch (error) {
      throw invalid((error as Error).message)
    }
    if (sums.get(meta.filename) !== meta.shasum) throw invalid(`SHA256SUMS does not list ${meta.filename} with ${meta.shasum}`)
    const keys = meta.signing_keys?.gpg_public_keys ?? []
    let verified = false
    for (const key of keys) verified ||= await checkSignature(key.ascii_armor, sumsBytes, new Uint8Array(signature)).then(() => true, () => false)
    if (!verified) throw invalid('the signature of SHA256SUMS verifies with none of its keys')
    // The first SHA256SUMS fetched for a version stays canonical: an upstream that re-tags is refused, not followed.
    const target = this.package(namespace, type)
    const canonical = await this.dates.canonical(target, version, createHash('sha256').update(sumsBytes).digest('hex'))
    if (!canonical.ok) {
      const name = `${this.publicName}/${namespace}/${type} ${version}`
      await this.audit.done({ author: caller, permission: 'gate', org: undefined, action: 'refuse re-tag', resource: { type: 'upstream-version', id: `${packageKey(target)}@${version}`, name } })
      throw new ConflictError(`The upstream registry now serves different content for ${name} (SHA256SUMS ${canonical.kept} when first fetched): Homeport keeps what it first fetched and refuses the new files.`)
    }

    const zip = await this.upstream.fetchArchive(new URL(meta.download_url, at).toString())
    const binary = await this.store.archives.put(Readable.fromWeb(zip.body! as never), MAX_PROVIDER_ZIP_BYTES)
    const stored: StoredFile[] = [binary]
    const superseded: string[] = []
    const unpins = [this.archives.pin(binary.sha256)]
    try {
      if (binary.sha256 !== meta.shasum) throw invalid(`the zip's SHA-256 is ${binary.sha256}, not ${meta.shasum}`)
      const hash1 = await archiveHash1(binary.size, (start, end) => this.store.archives.read(binary.sha256, { start, end })).catch((error: Error) => {
        throw invalid(error.message)
      })
      const shasums = await this.store.archives.put(Readable.from([sumsBytes]), MAX_PROVIDER_ZIP_BYTES)
      const shasumsSig = await this.store.archives.put(Readable.from([signature]), MAX_PROVIDER_ZIP_BYTES)
      stored.push(shasums, shasumsSig)
      unpins.push(this.archives.pin(shasums.sha256), this.archives.pin(shasumsSig.sha256))
      // A version imported from a release folder keeps that release's SHA256SUMS: upstream's zip joins it only if it lists the zip.
      const kept = (await this.mirrored(namespace, type))?.versions.find((candidate) => candidate.version === version)?.shasums
      if (kept && kept.sha256 !== shasums.sha256 && (await this.shasumsOf(kept)).get(meta.filename) !== meta.shasum) {
        throw new ConflictError(`${namespace}/${type} ${version} is mirrored here from a release whose SHA256SUMS does not list upstream's ${meta.filename}: remove the version to mirror it from the upstream.`)
      }
      const platform: MirroredProviderPlatform = { id: newId('mirpp'), os, arch, filename: meta.filename, shasum: meta.shasum, binary, hash1 }
      let firstOfVersion = false
      await this.change(namespace, type, (draft) => {
          let target = draft.versions.find((candidate) => candidate.version === version)
          if (!target) {
            target = { id: newId('mirpv'), version, createdAt: now(), protocols: [], keys: [], platforms: [] } satisfies MirroredProviderVersion
            draft.versions.push(target)
            firstOfVersion = true
          }
          if (!target.shasums) {
            // The first signed package of this version (it may hold imported ones, which its SHA256SUMS may vouch for).
            target.protocols = meta.protocols ?? []
            target.shasumsName = shasumsName
            target.shasums = shasums
            target.shasumsSig = shasumsSig
            target.keys = keys.map((key) => ({ keyId: key.key_id ?? '', asciiArmor: key.ascii_armor, trustSignature: key.trust_signature ?? '', source: key.source ?? '', sourceUrl: key.source_url ?? null }))
            for (const imported of target.platforms) if (imported.unsigned && sums.get(imported.filename) === imported.shasum) delete imported.unsigned
          }
          const index = target.platforms.findIndex((candidate) => candidate.os === os && candidate.arch === arch)
          if (index === -1) target.platforms.push(platform)
          else if (target.platforms[index]!.unsigned) {
            // Upstream's signed zip supersedes an imported copy that its SHA256SUMS does not vouch for (a re-zipped one).
            superseded.push(target.platforms[index]!.binary.sha256)
            target.platforms[index] = platform
          }
        })
      // Its docs come after, off the request path: `terraform init` waits for the package, not for them.
      if (firstOfVersion) this.docs.later(namespace, type, version)
    } finally {
      for (const unpin of unpins) unpin()
      await this.archives.release([...stored.map((file) => file.sha256), ...superseded])
    }
  }
}
