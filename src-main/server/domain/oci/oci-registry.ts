import { Readable } from 'node:stream'
import semver from 'semver'
import type { ArchiveRef, VersionRecord } from '../../store/records.js'
import { ORGANIZATION_NAME, organizationNameKey, type Store } from '../../store/port.js'
import { archiveFile, type ArchiveFile } from '../archives/archive-file.js'
import type { Caller } from '../core/access.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import type { DownloadCounter } from '../modules/downloads.js'
import type { RegistryService } from '../modules/protocol-reads.js'
import type { ProviderRegistryService, StoredVersionZips } from '../providers/provider-registry.js'
import type { PublicMirrors } from '../upstream/public-mirrors.js'
import { latestOf } from '../core/newest-first.js'
import { EMPTY_CONFIG, EMPTY_CONFIG_BYTES, moduleManifest, providerIndex, providerTargetManifest, versionTag, type OciDocument } from './oci-layout.js'

/**
 * What an OCI repository name (docs/guide/opentofu.md) names:
 * - `providers/<hostname>/<namespace>/<type>`: a private provider (the hostname is this registry's,
 *   the namespace its organization) or a mirrored one (`registry.terraform.io`, `registry.opentofu.org`);
 * - `modules/<organization>/<name>/<provider>`: a private module;
 * - `modules/<hostname>/<namespace>/<name>/<provider>`: a public module mirrored here.
 */
export type OciRepository =
  | { kind: 'provider'; hostname: string; namespace: string; type: string }
  | { kind: 'module'; hostname: string | null; namespace: string; name: string; provider: string }

/** A tag and what it names, for one repository. */
interface Tagged {
  tag: string
  /** The top manifest (a provider's index, a module's manifest) and those under it, built when asked for. */
  documents: () => OciDocument[]
  /** The layers' files, by their digest. */
  layers: Map<string, ArchiveRef>
  /** Counts the download when a layer is fetched, for modules (the registry protocol counts the same way). */
  version?: string
}

/** One path segment of an OCI name (distribution-spec's component rule): lower case, separators between. */
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/

/**
 * The OCI Distribution face's reads (api/oci/), over the same services as every other face and so
 * the same authorization: a caller sees through OCI exactly the providers and modules it may
 * download through the registry protocol. It serves only what is here: a read never pulls through
 * (the registry protocol does that), and a module version is offered once its zip is made.
 */
export class OciRegistry {
  constructor(
    private readonly store: Store,
    private readonly providers: ProviderRegistryService,
    private readonly mirrors: PublicMirrors,
    private readonly modules: RegistryService,
    private readonly downloads: DownloadCounter,
    private readonly registryHostname: string
  ) {}

  /** The repository a name names, or why there can be none. */
  repository(name: string): OciRepository {
    const parts = name.split('/')
    if (!parts.every((part) => COMPONENT.test(part))) {
      throw new InvalidInputError(`"${name}" is not an OCI repository name: each part is lower case letters and digits, with . _ - between.`, 'name')
    }
    const [kind, ...rest] = parts
    if (kind === 'providers' && rest.length === 3) return { kind: 'provider', hostname: rest[0]!, namespace: rest[1]!, type: rest[2]! }
    if (kind === 'modules' && rest.length === 3) return { kind: 'module', hostname: null, namespace: rest[0]!, name: rest[1]!, provider: rest[2]! }
    if (kind === 'modules' && rest.length === 4 && this.mirrors.find(rest[0]!)) {
      return { kind: 'module', hostname: rest[0]!, namespace: rest[1]!, name: rest[2]!, provider: rest[3]! }
    }
    throw new NotFoundError(
      `no repository ${name}: Homeport names providers/<hostname>/<namespace>/<type>, modules/<organization>/<name>/<provider> and modules/<public registry>/<namespace>/<name>/<provider>`
    )
  }

  /** The repository's tags, sorted as OCI lists them (lexically). */
  async tags(caller: Caller, repository: OciRepository): Promise<string[]> {
    return (await this.tagged(caller, repository)).map((entry) => entry.tag).sort()
  }

  /** The manifest (or index) a tag or digest names in the repository; undefined when none does. */
  async manifest(caller: Caller, repository: OciRepository, reference: string): Promise<OciDocument | undefined> {
    const tagged = await this.tagged(caller, repository)
    if (reference.startsWith('sha256:')) return tagged.flatMap((entry) => entry.documents()).find((document) => document.digest === reference)
    return tagged.find((entry) => entry.tag === reference)?.documents()[0]
  }

  /** A blob of the repository by digest: a layer's zip, or the empty config. Fetching a module's zip counts as its download. */
  async blob(caller: Caller, repository: OciRepository, digest: string, { countDownload = false } = {}): Promise<ArchiveFile | undefined> {
    const tagged = await this.tagged(caller, repository)
    if (digest === EMPTY_CONFIG.digest && tagged.length > 0) {
      return { sha256: digest.slice('sha256:'.length), size: EMPTY_CONFIG.size, open: (range) => Readable.from([range ? EMPTY_CONFIG_BYTES.subarray(range.start, range.end + 1) : EMPTY_CONFIG_BYTES]) }
    }
    const holder = tagged.find((entry) => entry.layers.has(digest))
    if (!holder) return undefined
    if (countDownload && holder.version && repository.kind === 'module') await this.countDownload(caller, repository, holder.version)
    return archiveFile(this.store.archives, holder.layers.get(digest)!)
  }

  private async tagged(caller: Caller, repository: OciRepository): Promise<Tagged[]> {
    if (repository.kind === 'provider') return (await this.providerZips(caller, repository)).flatMap(providerTag)
    const versions = (await this.moduleVersions(caller, repository)).filter((version): version is VersionRecord & { zip: ArchiveRef } => version.zip !== undefined)
    const tagged = versions.map((version) => moduleTag(versionTag(version.version), version))
    // OpenTofu installs `latest` when a source names no tag; modules have no constraints over OCI.
    const newest = latestOf(versions)
    return newest ? [...tagged, moduleTag('latest', newest)] : tagged
  }

  private async providerZips(caller: Caller, { hostname, namespace, type }: Extract<OciRepository, { kind: 'provider' }>): Promise<StoredVersionZips[]> {
    if (hostname === this.registryHostname.toLowerCase()) return this.providers.storedZips(caller, namespace, type)
    const mirror = this.mirrors.find(hostname)?.providers
    if (mirror) return mirror.storedZips(caller, namespace, type)
    throw new NotFoundError(`no provider ${hostname}/${namespace}/${type} here: Homeport serves ${[this.registryHostname, ...this.mirrors.names].join(', ')}`)
  }

  /** Published versions, newest first: the registry protocol's, for the same caller. */
  private async moduleVersions(caller: Caller, repository: Extract<OciRepository, { kind: 'module' }>): Promise<VersionRecord[]> {
    const { namespace, name, provider } = repository
    if (repository.hostname) return (await this.mirrors.for(repository.hostname).modules.localVersions(caller, namespace, name, provider)).versions
    // OCI names are lower case; organization names need not be.
    const org = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(namespace))
    if (!org) throw new NotFoundError(`module ${namespace}/${name}/${provider} not found`)
    return (await this.modules.versions(caller, org.name, name, provider)).versions.map((entry) => entry.version)
  }

  private async countDownload(caller: Caller, repository: Extract<OciRepository, { kind: 'module' }>, version: string): Promise<void> {
    const { namespace, name, provider } = repository
    if (repository.hostname) {
      this.downloads.count((await this.mirrors.for(repository.hostname).modules.localVersions(caller, namespace, name, provider)).view.module.id)
      return
    }
    const org = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(namespace))
    await this.modules.download(caller, org?.name ?? namespace, name, provider, version)
  }
}

/** A provider version as a tag: an index over one manifest per platform; none when no zip is in yet. */
function providerTag({ version, zips }: StoredVersionZips): Tagged[] {
  if (zips.length === 0 || semver.valid(version) === null) return []
  // Built only when asked for: a tag list, a blob or another tag's manifest needs none of them.
  const documents = () => {
    const targets = zips.map(({ os, arch, filename, file }) => ({ zip: { os, arch, ...file }, manifest: providerTargetManifest({ os, arch, ...file }, filename) }))
    return [providerIndex(targets, version), ...targets.map((target) => target.manifest)]
  }
  return [
    {
      tag: versionTag(version),
      documents,
      layers: new Map(zips.map(({ file }) => [`sha256:${file.sha256}`, file]))
    }
  ]
}

function moduleTag(tag: string, version: VersionRecord & { zip: ArchiveRef }): Tagged {
  return { tag, documents: () => [moduleManifest(version.zip, version.version)], layers: new Map([[`sha256:${version.zip.sha256}`, version.zip]]), version: version.version }
}
