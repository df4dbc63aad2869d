import type { OrganizationRecord, VersionRecord } from '../../store/records.js'
import { MODULE_KEY, moduleKey, type Store } from '../../store/port.js'
import { type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import type { DocsCache } from '../archives/docs-cache.js'
import { signDownload } from '../archives/download-links.js'
import type { DownloadCounter } from '../modules/downloads.js'
import { ConflictError, HeldByGateError, InvalidInputError, NotFoundError } from '../core/errors.js'
import { KEPT_OUT } from '../gate/decide.js'
import type { Gate, GateContext } from '../gate/gate.js'
import { packageKey, packageName, publicPackage, type PublicPackage } from '../gate/packages.js'
import type { AuditTrailService } from '../organizations/audit-trail.js'
import type { PublishTimes, ReleaseDates, ReleaseFacts } from '../gate/release-dates.js'
import type { ArchiveKeeper } from '../archives/archive-keeper.js'
import { findVersion, latest, type ModuleView, published, versionResource } from '../modules/module-rules.js'
import type { ModuleService } from '../modules/modules.js'
import type { PackageFetcher } from './package-fetcher.js'
import type { Detail, Published } from '../modules/protocol-reads.js'
import { UpstreamUnavailableError, type UpstreamRegistry } from './upstream.js'
import { nameSegment, namespaceSegment, providerSegment, upstreamPath, versionSegment, type Segment } from './upstream-path.js'
import { latestOf, newestVersionsFirst } from '../core/newest-first.js'

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

/** How many of a module's versions' publish times are asked of the upstream at once (each is one request, once per version). */
const PUBLISH_TIME_READS = 4

/** How long a pull-through waits for the version's ingest before answering. */
const PULL_WAIT_MS = 30_000

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
    private readonly enabled: boolean,
    private readonly gate: Gate,
    private readonly dates: ReleaseDates,
    private readonly audit: AuditTrailService,
    /** The public registries' names these modules are served under, the first the one the gate knows them by (`registry.terraform.io`). */
    private readonly publicNames: readonly string[]
  ) {}

  /** Whether organizations here keep public modules (the hosted edition, with curation on). */
  get curating(): boolean {
    return this.enabled
  }

  /**
   * Online, the upstream's versions (any of them installs: a version not mirrored yet is pulled through
   * at its download). Offline, only what is mirrored here, so Terraform never picks a version it cannot
   * install; with nothing mirrored, why.
   */
  async versions(caller: Caller, namespace: string, name: string, provider: string): Promise<UpstreamPassThrough | MirroredVersions> {
    const view = await this.curated(caller, namespace, name, provider)
    const kept = published(view.module)
    const answer = await this.upstream.get(upstreamPath(...moduleSegments(namespace, name, provider), 'versions'), 'modules.v1', { live: true }).catch((error: unknown) => {
      if (error instanceof UpstreamUnavailableError && kept.length > 0) return undefined
      throw error
    })
    if (answer && !answer.stale) return { kind: 'upstream', ...answer, body: await this.gatedList(caller, view, answer) }
    if (kept.length === 0) {
      throw new UpstreamUnavailableError(`The public registry cannot be reached, and no version of ${namespace}/${name}/${provider} is mirrored here: mirror one while online.`)
    }
    const mirrored = await this.offered(caller, view, kept, (version) => version.version)
    const versions: Published[] = []
    for (const version of mirrored) versions.push({ view, version, docs: await this.docs.get(version.archive?.sha256) })
    return { kind: 'mirrored', view, versions }
  }

  /** A version's detail, or the latest version's when `version` is undefined. */
  async detail(caller: Caller, namespace: string, name: string, provider: string, version?: string): Promise<UpstreamPassThrough | MirroredDetail> {
    const view = await this.curated(caller, namespace, name, provider)
    if (version !== undefined) await this.admit(caller, view, version)
    else if ((await this.gate.policies([view.org.id])).length > 0) {
      // The latest the gate offers: the upstream's own latest may be held.
      const newest = await this.newestOffered(caller, view)
      if (newest === undefined) throw new HeldByGateError(`No version of ${packageName(this.package(view))} is offered here: the gate holds every one it knows of.`)
      return this.detail(caller, namespace, name, provider, newest)
    }
    const path = upstreamPath(...moduleSegments(namespace, name, provider), ...(version === undefined ? [] : [versionSegment(version)]))
    const target = version === undefined ? latest(view.module) : findVersion(view.module, version)
    const mirrored = target?.status === 'ok' ? target : undefined
    const answer = await this.upstream.get(path).catch((error: unknown) => {
      if (error instanceof UpstreamUnavailableError && mirrored) return undefined
      throw error
    })
    // Offline, a version mirrored here is described from here (its versions: the mirrored ones), not from an old answer.
    if (answer && (!answer.stale || !mirrored)) return { kind: 'upstream', ...answer, body: await this.gatedDetail(caller, view, answer) }
    return {
      kind: 'mirrored',
      detail: {
        view,
        version: mirrored!,
        docs: await this.docs.get(mirrored!.archive?.sha256),
        providers: [view.module.provider],
        versions: await this.offered(caller, view, published(view.module).map((candidate) => candidate.version), (entry) => entry)
      }
    }
  }

  /**
   * A signed location for a mirrored version. A version not mirrored yet is pulled through: while the
   * upstream answers, Homeport mirrors it on the spot (fetched, stored, documented, as the explicit
   * mirror does), so the same request works offline later; offline, the error says what is here.
   * This is the one read of public modules that writes, on purpose, like the provider mirror's pull.
   */
  async downloadToken(caller: Caller, namespace: string, name: string, provider: string, version: string): Promise<string> {
    const { view, version: target } = await this.mirroredVersion(caller, namespace, name, provider, version)
    this.downloads.count(view.module.id)
    return signDownload(this.store.installation().signingKey, target.id, target.archive!.sha256)
  }

  /** A published version, mirrored here (pulled through first when need be, as `downloadToken` does), with its archive. */
  async mirroredVersion(caller: Caller, namespace: string, name: string, provider: string, version: string): Promise<{ view: ModuleView; version: VersionRecord }> {
    let view = await this.curated(caller, namespace, name, provider)
    await this.admit(caller, view, version)
    let target = findVersion(view.module, version)
    if (target?.status !== 'ok') {
      view = await this.pull(caller, view, version)
      target = findVersion(view.module, version)
    }
    if (target?.status !== 'ok') throw new NotFoundError(`${namespace}/${name}/${provider} ${version} could not be mirrored here: ${target?.error || 'its ingest did not finish'}`, false)
    return { view, version: target }
  }

  /** The versions mirrored here, newest first, without asking the upstream (for faces that serve only what is here: OCI). */
  async localVersions(caller: Caller, namespace: string, name: string, provider: string): Promise<{ view: ModuleView; versions: VersionRecord[] }> {
    const view = await this.curated(caller, namespace, name, provider)
    return { view, versions: await this.offered(caller, view, published(view.module), (version) => version.version) }
  }

  /** The versions a client may install: upstream's while it answers (any of them pulls through), else those mirrored here. */
  async installableVersions(caller: Caller, namespace: string, name: string, provider: string): Promise<string[]> {
    const answer = await this.versions(caller, namespace, name, provider)
    if (answer.kind === 'mirrored') return answer.versions.map((entry) => entry.version.version)
    if (answer.status !== 200) throw new NotFoundError(`the public registry has no ${namespace}/${name}/${provider} (HTTP ${answer.status})`, false)
    const listed = (answer.body as { modules?: Array<{ versions?: Array<{ version?: unknown }> }> }).modules?.[0]?.versions ?? []
    return listed.flatMap((entry) => (typeof entry.version === 'string' ? [entry.version] : []))
  }

  /**
   * Makes sure `orgName` curates the public module (as an owner does by adding it), so its versions
   * can be pulled through; whether this added the record.
   */
  async curate(caller: Caller, orgName: string, namespace: string, name: string, provider: string): Promise<boolean> {
    const existing = await this.modules.read(caller, { organization: orgName, registryName: 'public', namespace, name, provider }).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined
      throw error
    })
    if (existing) return false
    await this.modules.create(caller, orgName, { registryName: 'public', namespace, name, provider })
    return true
  }

  /** Copies a version of a curated public module (its archive and documentation) into Homeport. */
  async mirror(caller: Caller, orgName: string, namespace: string, name: string, provider: string, version: string) {
    const view = await this.modules.readForChange(caller, { organization: orgName, registryName: 'public', namespace, name, provider }, 'curate public module', 'mirror', version)
    if (findVersion(view.module, version)) throw new InvalidInputError(`Version ${version} is mirrored already.`, 'version', [], 'version-exists')
    // What the gate keeps out is never fetched; what it holds for now (a cooldown, an approval) is, ready for when it is offered.
    const [decision] = await this.gate.decisions(this.context(caller, view), this.package(view), [version], this.publishTimes(view))
    if (KEPT_OUT.has(decision!.verdict)) throw new HeldByGateError(`${packageName(this.package(view))} ${version} is not let in here: ${decision!.reason}`)
    const mirrored = await this.fetchInto(caller, view, version)
    await this.modules.changed(caller, 'curate public module', view, 'mirror', versionResource(view, mirrored.version))
    return mirrored
  }

  private async fetchInto(caller: Caller, view: ModuleView, version: string) {
    const { namespace, name, provider } = { namespace: view.module.namespace ?? '', name: view.module.name, provider: view.module.provider }
    const location = await this.upstream.downloadLocation(upstreamPath(...moduleSegments(namespace, name, provider), versionSegment(version), 'download'))
    const archive = await this.fetcher.fetch(location)
    const unpin = this.archives.pin(archive.sha256)
    try {
      // The first archive fetched for a version stays canonical: an upstream that re-tags is refused, not followed.
      const canonical = await this.dates.canonical(this.package(view), version, archive.sha256)
      if (!canonical.ok) {
        const target = this.package(view)
        await this.audit.done({ author: caller, permission: 'gate', org: view.org, action: 'refuse re-tag', resource: { type: 'upstream-version', id: `${packageKey(target)}@${version}`, name: `${packageName(target)} ${version}` } })
        throw new ConflictError(`The public registry now serves a different archive for ${packageName(target)} ${version} (SHA-256 ${canonical.kept} when first fetched): Homeport keeps what it first fetched and refuses the new one.`)
      }
      return await this.modules.addStoredVersion(view, version, archive)
    } finally {
      unpin()
      await this.archives.release([archive.sha256])
    }
  }

  /**
   * Pulls a version through from the upstream and waits for its ingest (seconds at most), so that
   * Terraform's download, which follows at once, finds it published. A pull another request started
   * meanwhile is waited for too. Offline, says which versions are here.
   */
  private async pull(caller: Caller, view: ModuleView, version: string): Promise<ModuleView> {
    const label = `${view.module.namespace}/${view.module.name}/${view.module.provider}`
    if (!findVersion(view.module, version)) {
      await this.fetchInto(caller, view, version).catch((error: unknown) => {
        // Another request pulled it first: its ingest is waited for below.
        if (error instanceof InvalidInputError) return
        if (error instanceof UpstreamUnavailableError) {
          const here = published(view.module).map((candidate) => candidate.version)
          throw new NotFoundError(`${label} ${version} is not mirrored here, and the public registry cannot mirror it now (${error.message}). Available here: ${here.join(', ') || 'none'}`, false)
        }
        throw error
      })
    }
    for (let waited = 0; waited < PULL_WAIT_MS; waited += 100) {
      const module = await this.store.modules.get(view.module.id)
      const found = module && findVersion(module, version)
      if (!module || !found || found.status !== 'reg_ingressing') return { org: view.org, module: module ?? view.module }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return view
  }

  /** The module as the gate names it. */
  private package(view: ModuleView): PublicPackage {
    const [publicName = '', ...aliases] = this.publicNames
    return { ...publicPackage('module', publicName, view.module.namespace ?? '', view.module.name, view.module.provider), aliases }
  }

  /** The curating organization's policy applies on top of the installation's. */
  private context(caller: Caller, view: ModuleView): GateContext {
    return { caller, organizationIds: [view.org.id] }
  }

  /**
   * What is known of versions the gate has not seen: their publish times from the upstream's v1 answer
   * for each (`published_at`), a few at a time, where it has one, and since when each is mirrored here.
   */
  private publishTimes(view: ModuleView): PublishTimes {
    const segments = moduleSegments(view.module.namespace ?? '', view.module.name, view.module.provider)
    return async (versions) => {
      const facts = new Map<string, ReleaseFacts>()
      for (const version of view.module.versions) if (versions.includes(version.version)) facts.set(version.version, { keptSince: version.createdAt })
      const pending = [...versions]
      const worker = async () => {
        for (let version = pending.shift(); version !== undefined; version = pending.shift()) {
          const answer = await this.upstream.get(upstreamPath(...segments, versionSegment(version))).catch(() => undefined)
          const published = (answer?.status === 200 && !answer.stale ? (answer.body as { published_at?: unknown }) : undefined)?.published_at
          if (typeof published === 'string') facts.set(version, { ...facts.get(version), publishedAt: published })
        }
      }
      await Promise.all(Array.from({ length: PUBLISH_TIME_READS }, worker))
      return facts
    }
  }

  private async offered<T>(caller: Caller, view: ModuleView, entries: readonly T[], versionOf: (entry: T) => string): Promise<T[]> {
    return (await this.gate.offered(this.context(caller, view), this.package(view), entries, versionOf, this.publishTimes(view))).offered
  }

  /** Refuses a version the gate does not offer (HeldByGateError), before anything is fetched. */
  private async admit(caller: Caller, view: ModuleView, version: string): Promise<void> {
    await this.gate.check(this.context(caller, view), this.package(view), version, this.publishTimes(view))
  }

  /** The newest version the gate offers, by the upstream's list (or what is mirrored, offline); undefined when it cannot say. */
  private async newestOffered(caller: Caller, view: ModuleView): Promise<string | undefined> {
    const { namespace, name, provider } = { namespace: view.module.namespace ?? '', name: view.module.name, provider: view.module.provider }
    const listed = await this.installableVersions(caller, namespace, name, provider).catch(() => undefined)
    return listed && latestOf(newestVersionsFirst(listed).map((version) => ({ version })))?.version
  }

  /** The upstream's version list with what the gate holds left out. */
  private async gatedList(caller: Caller, view: ModuleView, answer: { status: number; body: unknown }): Promise<unknown> {
    const body = answer.body as { modules?: Array<{ versions?: Array<{ version?: unknown }> }> }
    if (answer.status !== 200 || !Array.isArray(body?.modules)) return answer.body
    const modules = await Promise.all(
      body.modules.map(async (module) =>
        Array.isArray(module?.versions) ? { ...module, versions: await this.offered(caller, view, module.versions.filter((entry) => typeof entry?.version === 'string'), (entry) => entry.version as string) } : module
      )
    )
    return { ...body, modules }
  }

  /** The upstream's answer for a version, its list of versions with what the gate holds left out. */
  private async gatedDetail(caller: Caller, view: ModuleView, answer: { status: number; body: unknown }): Promise<unknown> {
    const body = answer.body as { versions?: unknown }
    if (answer.status !== 200 || !Array.isArray(body?.versions)) return answer.body
    return { ...body, versions: await this.offered(caller, view, body.versions.filter((entry): entry is string => typeof entry === 'string'), (entry) => entry) }
  }

  /** The caller's organization's curation record of the module (any organization's for a site admin). */
  private async curated(caller: Caller, namespace: string, name: string, provider: string): Promise<ModuleView> {
    if (this.enabled) {
      for (const org of await this.organizations(caller)) {
        const module = await this.store.modules.findBy(MODULE_KEY, moduleKey({ organizationId: org.id, registryName: 'public', namespace, name, provider }))
        if (module && module.name === name) return { org, module }
      }
    }
    throw new NotFoundError(`public module ${namespace}/${name}/${provider} is not curated by your organization`)
  }

  private async organizations(caller: Caller): Promise<OrganizationRecord[]> {
    return (await this.store.organizations.all()).filter((org) => authorize(caller, 'read organization', org))
  }
}

function moduleSegments(namespace: string, name: string, provider: string): Segment[] {
  return [namespaceSegment(namespace), nameSegment(name), providerSegment(provider)]
}
