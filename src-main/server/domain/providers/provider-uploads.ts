import { Readable } from 'node:stream'
import type { ProviderRecord, StoredFile } from '../../store/records.js'
import { TooLargeError } from '../../store/errors.js'
import { RecordMissingError } from '../../store/errors.js'
import { PROVIDER_PLATFORM_ID, PROVIDER_VERSION_ID, type Store } from '../../store/port.js'
import type { ArchiveKeeper } from '../archives/archive-keeper.js'
import { ConflictError, ExpiredError, InvalidInputError, LimitExceededError, NotFoundError } from '../core/errors.js'
import { now } from '../core/ids.js'
import { formatBytes } from '../ingest/archive-reader.js'
import { linkState, parseObjectId } from '../archives/upload-links.js'
import type { GpgKeyService } from './gpg-keys.js'
import type { AuditResource, AuditTrailService } from '../organizations/audit-trail.js'
import type { ProviderFile } from './providers.js'
import type { Origin } from '../core/origin.js'
import { archiveHash1, binarySignature, checkProviderZip, checkSignature, parseShasums } from './release-files.js'
import { docsOfArchive, MAX_DOCS_ARCHIVE_BYTES } from '../provider-docs/docs-archive.js'
import { privateDocsKey, privateDocsNumbering, type ProviderDocs } from '../provider-docs/provider-docs.js'

/** The largest provider zip accepted: real ones reach a few hundred MB. */
export const MAX_PROVIDER_ZIP_BYTES = 1024 * 1024 * 1024
/** SHA256SUMS and signatures are a few KB. */
const MAX_SMALL_FILE_BYTES = 1024 * 1024

/**
 * The uploads of a provider release, through the links a version and its platforms carry (no
 * token: the link is the credential). Each file is checked as Terraform will check it before it
 * is kept: SHA256SUMS's format (it goes first), its signature by the version's key (a key of the
 * provider's namespace), and each zip against its platform's shasum, its line in SHA256SUMS and
 * its contents. A file that fails is refused with the reason and nothing is kept; its link stays
 * good for a corrected upload. A file once uploaded never changes.
 */
export class ProviderUploadService {
  constructor(
    private readonly store: Store,
    private readonly keys: GpgKeyService,
    private readonly archives: ArchiveKeeper,
    private readonly audit: AuditTrailService,
    private readonly docs: ProviderDocs
  ) {}

  /** Whether the object id is a provider file's (rather than a module version's). */
  static handles(objectId: string): boolean {
    return objectId.startsWith('provver-') || objectId.startsWith('provpltfrm-')
  }

  /** Takes a file through its upload link, and records it in the provider's organization's audit trail. */
  async receive(objectId: string, body: Readable, declaredLength: number | undefined, origin?: Origin): Promise<void> {
    const link = parseObjectId(objectId)
    const [targetId, file] = (link?.versionId ?? '').split('+') as [string, ProviderFile | undefined]
    const provider =
      link && (await this.store.providers.findBy(file === 'binary' ? PROVIDER_PLATFORM_ID : PROVIDER_VERSION_ID, targetId))
    const state = link && provider ? linkState(this.store.installation().signingKey, link.versionId, link) : 'unknown'
    if (!provider || state === 'unknown' || !file) throw new NotFoundError('This upload link is unknown: it never existed, or its provider version was deleted', false)
    if (state === 'expired') throw new ExpiredError('This upload link has expired. Read the version (or platform) again for a fresh link.')
    const limit = file === 'binary' ? MAX_PROVIDER_ZIP_BYTES : file === 'docs' ? MAX_DOCS_ARCHIVE_BYTES : MAX_SMALL_FILE_BYTES
    if (declaredLength !== undefined && declaredLength > limit) throw new LimitExceededError(`The file is ${formatBytes(declaredLength)}; Homeport accepts at most ${formatBytes(limit)} here.`)
    if (file === 'binary') await this.receiveZip(provider, targetId, body)
    else if (file === 'docs') await this.receiveDocs(provider, targetId, body)
    else {
      const bytes = await readSmall(body, limit)
      if (file === 'shasums') await this.receiveShasums(provider, targetId, bytes)
      else await this.receiveSignature(provider, targetId, bytes)
    }
    const org = await this.store.organizations.get(provider.organizationId)
    await this.audit.done({ author: { kind: 'link', link: 'upload link', origin }, permission: 'publish provider', org, action: 'upload', resource: uploadedFile(provider, org?.name, targetId, file) })
  }

  private async receiveShasums(provider: ProviderRecord, versionId: string, bytes: Buffer): Promise<void> {
    const version = versionOf(provider, versionId)
    if (version.shasums) throw new ConflictError(`SHA256SUMS of ${version.version} is uploaded already; a release's files never change.`)
    const sums = parseShasums(bytes.toString('utf8'))
    for (const platform of version.platforms) {
      if (platform.binary && sums.get(platform.filename) !== platform.shasum) {
        throw new InvalidInputError(`SHA256SUMS does not list ${platform.filename} with the SHA-256 of the zip uploaded for ${platform.os}_${platform.arch}.`)
      }
    }
    await this.keep(provider.id, bytes, (draft, stored) => {
      const target = versionOf(draft, versionId)
      if (target.shasums) throw new ConflictError(`SHA256SUMS of ${target.version} is uploaded already.`)
      target.shasums = stored
      target.updatedAt = now()
    })
  }

  private async receiveSignature(provider: ProviderRecord, versionId: string, bytes: Buffer): Promise<void> {
    const version = versionOf(provider, versionId)
    if (version.shasumsSig) throw new ConflictError(`SHA256SUMS.sig of ${version.version} is uploaded already; a release's files never change.`)
    if (!version.shasums) throw new ConflictError('Upload SHA256SUMS first: the signature is checked against it.')
    const org = await this.store.organizations.get(provider.organizationId)
    const key = org && (await this.keys.keyOf(org, version.keyId))
    if (!org || !key) {
      throw new InvalidInputError(
        `The namespace ${org?.name ?? ''} has no GPG key ${version.keyId}, the version's key-id: add the public key (POST /api/registry/private/v2/gpg-keys) before uploading the signature.`
      )
    }
    const signature = await binarySignature(bytes)
    await checkSignature(key.asciiArmor, await readAll(this.store.archives.read(version.shasums.sha256)), signature)
    await this.keep(provider.id, Buffer.from(signature), (draft, stored) => {
      const target = versionOf(draft, versionId)
      if (target.shasumsSig) throw new ConflictError(`SHA256SUMS.sig of ${target.version} is uploaded already.`)
      target.shasumsSig = stored
      target.updatedAt = now()
    })
  }

  private async receiveZip(provider: ProviderRecord, platformId: string, body: Readable): Promise<void> {
    const { version, platform } = platformOf(provider, platformId)
    if (platform.binary) throw new ConflictError(`The ${platform.os}_${platform.arch} zip of ${version.version} is uploaded already; a release's files never change.`)
    if (!version.shasums) throw new ConflictError('Upload the version’s SHA256SUMS first: each zip is checked against it.')
    const sums = parseShasums((await readAll(this.store.archives.read(version.shasums.sha256))).toString('utf8'))
    let stored: StoredFile
    try {
      stored = await this.store.archives.put(body, MAX_PROVIDER_ZIP_BYTES)
    } catch (error) {
      if (error instanceof TooLargeError) throw new LimitExceededError(`The zip is larger than ${formatBytes(MAX_PROVIDER_ZIP_BYTES)}, the most Homeport accepts.`)
      throw error
    }
    const unpin = this.archives.pin(stored.sha256)
    try {
      if (stored.sha256 !== platform.shasum) {
        throw new InvalidInputError(`The zip's SHA-256 is ${stored.sha256}, not the platform's shasum ${platform.shasum}.`)
      }
      if (sums.get(platform.filename) !== stored.sha256) {
        throw new InvalidInputError(`SHA256SUMS does not list ${platform.filename} with this zip's SHA-256 ${stored.sha256}.`)
      }
      const readRange = (start: number, end: number) => this.store.archives.read(stored.sha256, { start, end })
      await checkProviderZip(provider.name, stored.size, readRange)
      const hash1 = await archiveHash1(stored.size, readRange)
      await this.store.providers
        .update(provider.id, (draft) => {
          const target = platformOf(draft, platformId).platform
          if (target.binary) throw new ConflictError(`The ${target.os}_${target.arch} zip is uploaded already.`)
          target.binary = stored
          target.hash1 = hash1
          target.updatedAt = now()
        })
        .catch(gone)
    } finally {
      unpin()
      await this.archives.release([stored.sha256])
    }
  }

  /**
   * A version's docs: a `.tar.gz` of the provider repository's docs tree, checked as the registry
   * checks docs, kept in place of any the version had (docs, unlike a release's files, may be
   * corrected). The archive itself is not kept.
   */
  private async receiveDocs(provider: ProviderRecord, versionId: string, body: Readable): Promise<void> {
    const version = versionOf(provider, versionId)
    let archive: StoredFile
    try {
      archive = await this.store.archives.put(body, MAX_DOCS_ARCHIVE_BYTES)
    } catch (error) {
      if (error instanceof TooLargeError) throw new LimitExceededError(`The docs archive is larger than ${formatBytes(MAX_DOCS_ARCHIVE_BYTES)}, the most Homeport accepts.`)
      throw error
    }
    const unpin = this.archives.pin(archive.sha256)
    try {
      const { docs } = await docsOfArchive(this.store, archive, provider.name)
      if (!(await this.store.providers.get(provider.id))?.versions.some((candidate) => candidate.id === versionId)) throw new NotFoundError('The provider version was deleted', false)
      const org = await this.store.organizations.get(provider.organizationId)
      await this.docs.keep(privateDocsKey(provider.id), version.version, 'archive', docs, privateDocsNumbering(org?.name ?? provider.organizationId, provider.name))
    } finally {
      unpin()
      await this.archives.release([archive.sha256])
    }
  }

  /** Stores `bytes` and records them with `change`, inside the write; nothing is kept when it throws. */
  private async keep(providerId: string, bytes: Buffer, change: (draft: ProviderRecord, stored: StoredFile) => void): Promise<void> {
    const stored = await this.store.archives.put(Readable.from([bytes]), MAX_SMALL_FILE_BYTES)
    const unpin = this.archives.pin(stored.sha256)
    try {
      await this.store.providers.update(providerId, (draft) => change(draft, stored)).catch(gone)
    } finally {
      unpin()
      await this.archives.release([stored.sha256])
    }
  }
}

/** The file an upload link took, as the audit trail names it: its version's or platform's id, and what it is. */
function uploadedFile(provider: ProviderRecord, orgName: string | undefined, targetId: string, file: ProviderFile): AuditResource {
  const name = `${provider.namespace ?? orgName ?? ''}/${provider.name}`
  if (file === 'binary') {
    const { version, platform } = platformOf(provider, targetId)
    return { type: 'registry-provider-platform', id: targetId, name: `${name} ${version.version} ${platform.os}_${platform.arch} zip` }
  }
  const what = file === 'shasums' ? 'SHA256SUMS' : file === 'docs' ? 'docs' : 'SHA256SUMS.sig'
  return { type: 'registry-provider-version', id: targetId, name: `${name} ${versionOf(provider, targetId).version} ${what}` }
}

function versionOf(provider: ProviderRecord, versionId: string) {
  const version = provider.versions.find((candidate) => candidate.id === versionId)
  if (!version) throw new NotFoundError('The provider version was deleted', false)
  return version
}

function platformOf(provider: ProviderRecord, platformId: string) {
  for (const version of provider.versions) {
    const platform = version.platforms.find((candidate) => candidate.id === platformId)
    if (platform) return { version, platform }
  }
  throw new NotFoundError('The platform was deleted', false)
}

function gone(error: unknown): never {
  if (error instanceof RecordMissingError) throw new NotFoundError('The provider was deleted during the upload', false)
  throw error
}

async function readSmall(body: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) throw new LimitExceededError(`The file is larger than ${formatBytes(limit)}, the most Homeport accepts here.`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

function readAll(stream: Readable): Promise<Buffer> {
  return readSmall(stream, MAX_SMALL_FILE_BYTES)
}
