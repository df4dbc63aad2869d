import type { OrganizationRecord } from '../store/records.js'
import { BY_ORGANIZATION, type Store } from '../store/store.js'
import { canManageModules, canRead, type Caller } from './access.js'
import type { DocsCache } from './docs-cache.js'
import { signDownload } from './download-links.js'
import type { DownloadCounter } from './downloads.js'
import { InvalidInputError, NotFoundError } from './errors.js'
import type { ArchiveKeeper } from './archive-keeper.js'
import { findVersion, type ModuleView } from './module-rules.js'
import type { ModuleService } from './modules.js'
import type { PackageFetcher } from './package-fetcher.js'
import { latest, published, type Detail, type Published } from './registry.js'
import { UpstreamUnavailableError, type UpstreamRegistry } from './upstream.js'

/** What the upstream answered, passed through as it is. */
export interface UpstreamPassThrough {
  kind: 'upstream'
  status: number
  body: unknown
  stale: boolean
}

/** An answer Homeport built from versions mirrored into it (the upstream being out of reach). */
export interface MirroredVersions {
  kind: 'mirrored'
  view: ModuleView
  versions: Published[]
}

export interface MirroredDetail {
  kind: 'mirrored'
  detail: Detail
}

/**
 * Public modules in the hosted edition. An organization's curation records (public
 * registry-modules) are pointers to modules maintained elsewhere; for them Homeport proxies
 * the three protocol operations the spec names (list versions, a version, the latest for a
 * provider) to the upstream registry through an offline cache, and serves the versions a user
 * mirrored into it, archive and all, for air-gapped use.
 */
export class PublicRegistryService {
  constructor(
    private readonly store: Store,
    private readonly modules: ModuleService,
    private readonly archives: ArchiveKeeper,
    private readonly upstream: UpstreamRegistry,
    private readonly fetcher: PackageFetcher,
    private readonly docs: DocsCache,
    private readonly downloads: DownloadCounter,
    private readonly enabled: boolean
  ) {}

  async versions(caller: Caller, namespace: string, name: string, provider: string): Promise<UpstreamPassThrough | MirroredVersions> {
    const view = await this.curated(caller, namespace, name, provider)
    try {
      const answer = await this.upstream.get(`${namespace}/${name}/${provider}/versions`)
      return { kind: 'upstream', ...answer }
    } catch (error) {
      const mirrored = published(view.module)
      if (!(error instanceof UpstreamUnavailableError) || mirrored.length === 0) throw error
      const versions: Published[] = []
      for (const version of mirrored) versions.push({ view, version, docs: await this.docs.get(version.archive?.sha256) })
      return { kind: 'mirrored', view, versions }
    }
  }

  /** A version's detail, or the latest version's when `version` is undefined. */
  async detail(caller: Caller, namespace: string, name: string, provider: string, version?: string): Promise<UpstreamPassThrough | MirroredDetail> {
    const view = await this.curated(caller, namespace, name, provider)
    const path = [namespace, name, provider, ...(version === undefined ? [] : [version])].map(encodeURIComponent).join('/')
    try {
      return { kind: 'upstream', ...(await this.upstream.get(path)) }
    } catch (error) {
      const target = version === undefined ? latest(view.module) : findVersion(view.module, version)
      if (!(error instanceof UpstreamUnavailableError) || target?.status !== 'ok') throw error
      return {
        kind: 'mirrored',
        detail: {
          view,
          version: target,
          docs: await this.docs.get(target.archive?.sha256),
          providers: [view.module.provider],
          versions: published(view.module).map((candidate) => candidate.version)
        }
      }
    }
  }

  /** A signed location for a mirrored version; versions not mirrored are not Homeport's to serve. */
  async downloadToken(caller: Caller, namespace: string, name: string, provider: string, version: string): Promise<string> {
    const view = await this.curated(caller, namespace, name, provider)
    const target = findVersion(view.module, version)
    if (target?.status !== 'ok') {
      throw new NotFoundError(`${namespace}/${name}/${provider} ${version} is not mirrored into this registry; mirror it to download it from here`)
    }
    this.downloads.count(view.module.id)
    return signDownload(this.store.installation().signingKey, target.id, target.archive!.sha256)
  }

  /** Copies a version of a curated public module (its archive and documentation) into Homeport. */
  async mirror(caller: Caller, orgName: string, namespace: string, name: string, provider: string, version: string) {
    const view = await this.modules.read(caller, { organization: orgName, registryName: 'public', namespace, name, provider })
    if (!canManageModules(caller, view.org)) throw new NotFoundError(`registry module ${namespace}/${name}/${provider} not found`)
    if (findVersion(view.module, version)) throw new InvalidInputError(`Version ${version} is mirrored already.`, 'version')
    const location = await this.upstream.downloadLocation([namespace, name, provider, version, 'download'].map(encodeURIComponent).join('/'))
    const archive = await this.fetcher.fetch(location)
    const unpin = this.archives.pin(archive.sha256)
    try {
      return await this.modules.addMirroredVersion(view, version, archive)
    } finally {
      unpin()
      await this.archives.release([archive.sha256])
    }
  }

  /** The caller's organization's curation record of the module (any organization's for a site admin). */
  private async curated(caller: Caller, namespace: string, name: string, provider: string): Promise<ModuleView> {
    if (this.enabled) {
      for (const org of await this.organizations(caller)) {
        const module = (await this.store.modules.listBy(BY_ORGANIZATION, org.id)).find(
          (candidate) =>
            candidate.registryName === 'public' &&
            candidate.namespace?.toLowerCase() === namespace.toLowerCase() &&
            candidate.name === name &&
            candidate.provider === provider
        )
        if (module) return { org, module }
      }
    }
    throw new NotFoundError(`public module ${namespace}/${name}/${provider} is not curated by your organization`)
  }

  private async organizations(caller: Caller): Promise<OrganizationRecord[]> {
    return (await this.store.organizations.all()).filter((org) => canRead(caller, org))
  }
}
