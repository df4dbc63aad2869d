import type { ModuleRecord, OrganizationRecord, VersionRecord } from '../../store/records.js'
import { BY_MODULE_NAME, BY_ORGANIZATION, MODULE_KEY, ORGANIZATION_NAME, VERSION_ID, moduleKey, moduleNameKey, organizationNameKey, type Store } from '../../store/port.js'
import { archiveFile, type ArchiveFile } from '../archives/archive-file.js'
import { callerKey, callerOrganizations, type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import type { DocsCache } from '../archives/docs-cache.js'
import { signDownload, verifyDownload, type DownloadToken } from '../archives/download-links.js'
import type { DownloadCounter, DownloadSummary } from './downloads.js'
import { NotFoundError } from '../core/errors.js'
import type { ModuleDocs } from '../archives/module-docs.js'
import type { ModuleSharingService } from './module-sharing.js'
import { findVersion, latest, published, type ModuleView } from './module-rules.js'
import { latestOf } from '../core/newest-first.js'
import type { FirstDownloads } from './first-download.js'
import { offered, offeredTo, revokedReason } from './versions/lifecycle.js'

/** A module at one of its published versions: one entry of the protocol's module lists. */
export interface Published {
  view: ModuleView
  version: VersionRecord
  docs: ModuleDocs
}

export interface Detail extends Published {
  /** Every provider the module (namespace/name) is published for. */
  providers: string[]
  /** Every published version of this provider, newest first. */
  versions: string[]
}

export interface ListFilter {
  namespace?: string
  provider?: string
  q?: string
  /** Only partner-verified modules; a private registry has none. */
  verifiedOnly?: boolean
}

/**
 * The read side of the module registry protocol over the private registry: the namespace is
 * the organization. A caller sees the modules of its organizations and, in the self-hosted
 * edition, of the organizations that share their modules with them. Only versions that are
 * `ok` are published.
 */
export class RegistryService {
  constructor(
    private readonly store: Store,
    private readonly sharing: ModuleSharingService,
    private readonly docs: DocsCache,
    private readonly downloads: DownloadCounter,
    private readonly firstDownloads: FirstDownloads
  ) {}

  async list(caller: Caller, filter: ListFilter = {}): Promise<Published[]> {
    if (filter.verifiedOnly) return []
    const orgs = filter.namespace === undefined ? await this.readableOrganizations(caller) : [await this.organization(caller, filter.namespace)]
    const search = filter.q?.toLowerCase()
    const found: Published[] = []
    for (const org of orgs) {
      for (const module of await this.store.modules.listBy(BY_ORGANIZATION, org.id)) {
        if (module.registryName !== 'private') continue
        if (filter.provider !== undefined && module.provider !== filter.provider) continue
        if (search && ![module.name, org.name, module.provider].some((field) => field.toLowerCase().includes(search))) continue
        const entry = await this.latestEntry(caller, org, module)
        if (entry) found.push(entry)
      }
    }
    return found.sort(byAddress)
  }

  /**
   * What each module of a listing is, in words: its latest published version's description (the
   * README's first paragraph), for the management API's list; "" for a module with none yet.
   */
  async descriptions(views: ModuleView[]): Promise<Map<string, string>> {
    const found = new Map<string, string>()
    for (const { module } of views) {
      const version = latest(module)
      // Kept on the version since ingest; read from its documentation for one published before (until the start-up backfill).
      found.set(module.id, version?.description ?? (await this.docs.get(version?.archive?.sha256)).description)
    }
    return found
  }

  /** The latest version of each provider of `namespace/name`. */
  async latestForAllProviders(caller: Caller, namespace: string, name: string): Promise<Published[]> {
    const org = await this.organization(caller, namespace)
    const found: Published[] = []
    // By the module's group, not by listing the organization (each record listed is a read on PostgreSQL).
    for (const module of await this.store.modules.listBy(BY_MODULE_NAME, moduleNameKey({ organizationId: org.id, registryName: 'private', namespace, name }))) {
      const entry = module.name === name ? await this.latestEntry(caller, org, module) : undefined
      if (entry) found.push(entry)
    }
    if (found.length === 0) throw new NotFoundError(`module ${namespace}/${name} not found`)
    return found.sort(byAddress)
  }

  /** A module's latest version the caller is offered, documented; undefined when it has none. */
  private async latestEntry(caller: Caller, org: OrganizationRecord, module: ModuleRecord): Promise<Published | undefined> {
    const version = latestOf(offered(caller, published(module)))
    return version && { view: { org, module }, version, docs: await this.docs.get(version.archive?.sha256) }
  }

  /** A module's published versions, newest first (a module with none is found, with none). */
  async versions(caller: Caller, namespace: string, name: string, provider: string): Promise<{ view: ModuleView; versions: Published[] }> {
    const view = await this.module(caller, namespace, name, provider)
    const versions: Published[] = []
    for (const version of offered(caller, published(view.module))) versions.push({ view, version, docs: await this.docs.get(version.archive?.sha256) })
    return { view, versions }
  }

  /** The detail of a version, or of the latest one when `version` is undefined. */
  async detail(caller: Caller, namespace: string, name: string, provider: string, version?: string): Promise<Detail> {
    const view = await this.module(caller, namespace, name, provider)
    const target = version === undefined ? latestOf(offered(caller, published(view.module))) : this.offeredVersion(caller, view, version)
    if (!target) throw new NotFoundError(`module ${namespace}/${name}/${provider} has no published version${version ? ` ${version}` : ''}`)
    // The module's other providers, by its group rather than its whole organization.
    const siblings = (await this.store.modules.listBy(BY_MODULE_NAME, moduleNameKey(view.module))).filter((module) => module.name === view.module.name && latest(module))
    return {
      view,
      version: target,
      docs: await this.docs.get(target.archive?.sha256),
      providers: siblings.map((module) => module.provider).sort(),
      versions: offered(caller, published(view.module)).map((candidate) => candidate.version)
    }
  }

  /** Where to fetch a version's archive: a signed token for the download route. Counts the download. */
  async downloadToken(
    caller: Caller,
    namespace: string,
    name: string,
    provider: string,
    version: string
  ): Promise<{ published: VersionRecord; token: string; moduleId: string }> {
    const { view, version: target } = await this.download(caller, namespace, name, provider, version)
    return { published: target, token: signDownload(this.store.installation().signingKey, target.id, target.archive!.sha256), moduleId: view.module.id }
  }

  /** A version being downloaded (by whatever face serves the file): counted, its downloader remembered as one of its users, and its archive frozen (first-download.ts). */
  async download(caller: Caller, namespace: string, name: string, provider: string, version: string): Promise<{ view: ModuleView; version: VersionRecord }> {
    const view = await this.module(caller, namespace, name, provider)
    const offered = this.offeredVersion(caller, view, version)
    if (!offered) throw new NotFoundError(`module ${namespace}/${name}/${provider} has no published version ${version}`)
    const target = await this.firstDownloads.mark(view, offered)
    this.downloads.count(view.module.id)
    if (caller.kind !== 'site-admin') this.downloads.consumed(view.module.id, target.id, callerKey(caller))
    return { view, version: target }
  }

  /** The latest version, for the download-latest redirect. */
  async latestVersion(caller: Caller, namespace: string, name: string, provider: string): Promise<VersionRecord> {
    const view = await this.module(caller, namespace, name, provider)
    const version = latestOf(offered(caller, published(view.module)))
    if (!version) throw new NotFoundError(`module ${namespace}/${name}/${provider} has no published version`)
    return version
  }

  /** A published version, unless it was revoked and the caller is not one of its existing users (then why, in the publisher's words). */
  private offeredVersion(caller: Caller, view: ModuleView, version: string): VersionRecord | undefined {
    const target = publishedVersion(view.module, version)
    if (target && !offeredTo(caller, target)) throw new NotFoundError(revokedReason(view.module, target), false)
    return target
  }

  async summary(caller: Caller, namespace: string, name: string, provider: string): Promise<{ view: ModuleView; summary: DownloadSummary }> {
    const view = await this.module(caller, namespace, name, provider)
    return { view, summary: await this.downloads.summary(view.module.id) }
  }

  /** Downloads per day over the last 30 days, for the GUI's chart. */
  async daily(caller: Caller, namespace: string, name: string, provider: string): Promise<Array<{ date: string; count: number }>> {
    const view = await this.module(caller, namespace, name, provider)
    return this.downloads.daily(view.module.id)
  }

  async downloadTotals(entries: Published[]): Promise<Map<string, number>> {
    return this.downloads.totals([...new Set(entries.map((entry) => entry.view.module.id))])
  }

  /** The archive a signed download location names, and the name to save it as; undefined for a location that is not (or no longer) valid. */
  async archiveFor(token: DownloadToken): Promise<(ArchiveFile & { file: string }) | undefined> {
    const module = await this.store.modules.findBy(VERSION_ID, token.versionId)
    const version = module?.versions.find((candidate) => candidate.id === token.versionId)
    if (!module || !version?.archive || version.status !== 'ok') return undefined
    if (!verifyDownload(this.store.installation().signingKey, token, version.archive.sha256)) return undefined
    return { ...archiveFile(this.store.archives, version.archive), file: `${module.name}-${module.provider}-${version.version}.tar.gz` }
  }

  /** The organizations whose modules the caller reads: its own, and in the self-hosted edition those sharing with it. */
  async readableOrganizations(caller: Caller): Promise<OrganizationRecord[]> {
    const own = await this.ownOrganizations(caller)
    return (await this.store.organizations.all()).filter((org) => this.mayRead(caller, org, own))
  }

  /** The caller's own organization reads its modules; in the self-hosted edition, so do those it is shared with. */
  private mayRead(caller: Caller, org: OrganizationRecord, own: readonly OrganizationRecord[]): boolean {
    return authorize(caller, 'read module', org) || own.some((mine) => this.sharing.shares(org, mine))
  }

  /** The organizations whose shared modules the caller reads: a team's, a person's teams' (not an organization's pipeline token). */
  private async ownOrganizations(caller: Caller): Promise<OrganizationRecord[]> {
    if (caller.kind !== 'team' && caller.kind !== 'user') return []
    return (await this.store.organizations.getMany(callerOrganizations(caller))).filter((org): org is OrganizationRecord => org !== undefined)
  }

  private async organization(caller: Caller, namespace: string): Promise<OrganizationRecord> {
    const org = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(namespace))
    if (org && org.name === namespace && this.mayRead(caller, org, await this.ownOrganizations(caller))) return org
    throw new NotFoundError(`namespace ${namespace} not found`)
  }

  private async module(caller: Caller, namespace: string, name: string, provider: string): Promise<ModuleView> {
    const org = await this.organization(caller, namespace).catch(() => undefined)
    // By the unique key, not by listing the organization: on PostgreSQL every record listed is read from the database.
    const module = org && (await this.store.modules.findBy(MODULE_KEY, moduleKey({ organizationId: org.id, registryName: 'private', namespace, name, provider })))
    if (!org || !module || module.name !== name) throw new NotFoundError(`module ${namespace}/${name}/${provider} not found`)
    return { org, module }
  }
}

function publishedVersion(module: ModuleRecord, version: string): VersionRecord | undefined {
  const found = findVersion(module, version)
  return found?.status === 'ok' ? found : undefined
}

function byAddress(a: Published, b: Published): number {
  return (
    a.view.org.name.localeCompare(b.view.org.name) ||
    a.view.module.name.localeCompare(b.view.module.name) ||
    a.view.module.provider.localeCompare(b.view.module.provider)
  )
}
