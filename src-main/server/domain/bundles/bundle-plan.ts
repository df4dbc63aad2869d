import semver from 'semver'
import type { ProviderDocsRecord, StoredFile } from '../../store/records.js'
import type { BundledModule } from '../../../shared/bundle-manifest.js'
import type { BundleProblem } from '../../../shared/wire/bundles.js'
import type { Caller } from '../core/access.js'
import type { ArchiveKeeper } from '../archives/archive-keeper.js'
import type { IngestQueue } from '../ingest/ingest-queue.js'
import type { ProviderRegistryService, ProviderRelease } from '../providers/provider-registry.js'
import type { DocsProvider, DocsReader } from '../provider-docs/docs-reader.js'
import type { PublicMirrors } from '../upstream/public-mirrors.js'
import type { RegistryService } from '../modules/protocol-reads.js'
import { terraformConstraint } from '../modules/versions/constraints.js'
import {
  hasFolder,
  localFolder,
  parseModuleSource,
  parseProviderSource,
  providerKey,
  readFolder,
  readLockFile,
  type LockedProvider,
  type ModuleCall,
  type ProviderAddress
} from './configuration.js'
import { newestVersionsFirst } from '../core/newest-first.js'

/** What a bundle is made of: a configuration to read as `terraform init` does, and/or modules and providers named outright. */
export interface BundleRequest {
  /** A configuration's files (path → text): its `.tf` and `.tf.json` files, its local modules', and `.terraform.lock.hcl`. */
  configuration?: Record<string, string>
  /** Modules named outright: a registry source and a version constraint, as a `module` block has them. */
  modules?: Array<{ source: string; version?: string }>
  /** Providers named outright: a provider source and a version constraint, as `required_providers` has them. */
  providers?: Array<{ source: string; version?: string }>
  /** The platforms (`linux_amd64`) whose provider packages go in. */
  platforms: Array<{ os: string; arch: string }>
}


/** A module version the bundle holds, with its stored archive (the manifest names the archive's place in the bundle). */
export type PlannedModule = Omit<BundledModule, 'archive'> & { archive: StoredFile }

export interface PlannedProvider extends ProviderAddress {
  version: string
  registry: 'mirror' | 'private'
  release: ProviderRelease
  /** Its docs, when Homeport keeps any for the version. */
  docs?: ProviderDocsRecord
}

export interface BundlePlan {
  modules: PlannedModule[]
  providers: PlannedProvider[]
  problems: BundleProblem[]
  /** Public modules the organization did not curate yet, added to it so they could be pulled through. */
  curated: string[]
}

/** What resolving reads from: this Homeport's registries, as the caller sees them. */
export interface PlanSources {
  caller: Caller
  /** The organization whose registry the bundle is made from: its public modules are curated there. */
  organization: string
  /** This Homeport's own registry hostname (`homeport.localhost`): sources naming it are its private modules and providers. */
  registryHostname: string
  registry: RegistryService
  publicMirrors: PublicMirrors
  providerRegistry: ProviderRegistryService
  ingest: IngestQueue
  archives: ArchiveKeeper
  providerDocs: DocsReader
  /** Called at every step, for progress. */
  step: (message: string) => void
}

interface Package {
  /** `root`, or the module version it is (`registry.terraform.io/pubnet/vpc/aws 1.1.0`). */
  label: string
  files: Map<string, string>
}

interface ProviderDemand extends ProviderAddress {
  constraints: Set<string>
  from: Set<string>
}

/** The newest version `constraint` allows (a stable one, without a constraint), as Terraform picks. */
function newest(versions: string[], constraint: string | undefined): string | undefined {
  const meets = constraint ? terraformConstraint(constraint, 'version') : (version: string) => semver.valid(version) !== null && !semver.prerelease(version)
  return newestVersionsFirst(versions.filter(meets))[0]
}

/**
 * Works out everything a configuration needs, the way `terraform init` does: every module call
 * (local ones inside their package, registry ones at the newest version their constraint allows,
 * through the calls of the modules fetched), and every provider the modules require, at the
 * version the lock file selects or the newest all constraints allow, for each platform. It fetches
 * as it goes from this Homeport, which pulls through its upstreams while they answer. Archives
 * stay pinned until `release`.
 */
export class BundlePlanner {
  private readonly modules = new Map<string, PlannedModule & { files: Map<string, string> }>()
  private readonly demands = new Map<string, ProviderDemand>()
  private readonly visited = new Set<string>()
  private readonly problems: BundleProblem[] = []
  private readonly curated: string[] = []
  private readonly pins: Array<{ sha256: string; unpin: () => void }> = []
  private locked = new Map<string, LockedProvider>()

  constructor(private readonly sources: PlanSources) {}

  async plan(request: BundleRequest): Promise<BundlePlan> {
    const configuration = new Map(Object.entries(request.configuration ?? {}))
    const lock = configuration.get('.terraform.lock.hcl')
    if (lock !== undefined) {
      configuration.delete('.terraform.lock.hcl')
      this.locked = await readLockFile(lock, (file, text) => this.sources.ingest.parse(file, text)).catch((error: Error) => {
        this.problems.push({ what: '.terraform.lock.hcl', reason: error.message })
        return new Map()
      })
    }
    if (configuration.size > 0) {
      if (!hasFolder(configuration, '')) this.problems.push({ what: 'the configuration', reason: 'it has no .tf files at its top: choose the folder you run terraform init in' })
      else await this.visit({ label: 'root', files: configuration }, '')
    }
    for (const [index, named] of (request.modules ?? []).entries()) {
      await this.call({ name: `module ${index + 1}`, source: named.source, version: named.version ?? '' }, { label: 'the list', files: new Map() }, '')
    }
    for (const named of request.providers ?? []) {
      const address = parseProviderSource(named.source)
      if (!address) this.problems.push({ what: named.source, reason: 'it is not a provider address (hashicorp/aws, or registry.terraform.io/hashicorp/aws)' })
      else this.demand(address, named.version ? [named.version] : [], 'the list')
    }
    const providers: PlannedProvider[] = []
    for (const demand of this.demands.values()) {
      const planned = await this.provider(demand, request.platforms)
      if (planned) providers.push(planned)
    }
    const modules = [...this.modules.values()].map(({ files: _files, ...module }) => module)
    return { modules, providers, problems: this.problems, curated: this.curated }
  }

  /** Lets go of the archives the plan pinned. */
  async release(): Promise<void> {
    const pins = this.pins.splice(0)
    for (const { unpin } of pins) unpin()
    await this.sources.archives.release(pins.map(({ sha256 }) => sha256))
  }

  private pin(file: StoredFile): void {
    this.pins.push({ sha256: file.sha256, unpin: this.sources.archives.pin(file.sha256) })
  }

  /** One folder of a package: its provider requirements, then each module it calls. */
  private async visit(found: Package, folder: string): Promise<void> {
    const key = `${found.label}|${folder}`
    if (this.visited.has(key)) return
    this.visited.add(key)
    const where = `${found.label}${folder ? ` (${folder})` : ''}`
    const requirements = await readFolder(found.files, folder, (file, text) => this.sources.ingest.parse(file, text))
    for (const error of requirements.errors) this.problems.push({ what: where, reason: error })
    for (const need of requirements.providers) this.demand(need, need.constraints, where)
    for (const call of requirements.calls) await this.call(call, found, folder)
  }

  private async call(call: ModuleCall, from: Package, folder: string): Promise<void> {
    const where = `module "${call.name}" in ${from.label}${folder ? ` (${folder})` : ''}`
    const source = parseModuleSource(call.source)
    if (source.kind === 'other') {
      this.problems.push({ what: where, reason: `its source "${call.source}" is fetched from outside any registry; a bundle carries registry modules (and the local modules inside them)` })
      return
    }
    if (source.kind === 'local') {
      const target = localFolder(folder, source.path)
      if (target === undefined || !hasFolder(from.files, target)) {
        this.problems.push({ what: where, reason: `its source "${source.path}" names no folder of Terraform files inside ${from.label === 'root' ? 'the configuration' : from.label}` })
        return
      }
      return this.visit(from, target)
    }
    const module = await this.module(source, call.version, where, from.label)
    if (!module) return
    const subdir = source.subdir ? localFolder('', source.subdir) : ''
    if (subdir === undefined || !hasFolder(module.files, subdir)) {
      this.problems.push({ what: where, reason: `${source.subdir} is not a folder of Terraform files in ${module.namespace}/${module.name}/${module.provider} ${module.version}` })
      return
    }
    await this.visit({ label: `${module.hostname}/${module.namespace}/${module.name}/${module.provider} ${module.version}`, files: module.files }, subdir)
  }

  /** The registry module a call resolves to, fetched (and pulled through) with its Terraform files. */
  private async module(
    source: { hostname: string; namespace: string; name: string; provider: string },
    constraint: string,
    where: string,
    caller: string
  ): Promise<(PlannedModule & { files: Map<string, string> }) | undefined> {
    const { hostname, namespace, name, provider } = source
    const address = `${hostname}/${namespace}/${name}/${provider}`
    const { caller: who, organization, registry } = this.sources
    const publicRegistry = this.sources.publicMirrors.find(hostname)?.modules
    const isPublic = publicRegistry !== undefined
    if (!isPublic && hostname !== this.sources.registryHostname) {
      this.problems.push({ what: where, reason: `${hostname} is neither this Homeport (${this.sources.registryHostname}) nor a public registry it mirrors` })
      return undefined
    }
    try {
      let versions: string[]
      if (isPublic) {
        if (await publicRegistry.curate(who, organization, namespace, name, provider)) this.curated.push(`${namespace}/${name}/${provider}`)
        versions = await publicRegistry.installableVersions(who, namespace, name, provider)
      } else {
        versions = (await registry.versions(who, namespace, name, provider)).versions.map((entry) => entry.version.version)
      }
      const version = newest(versions, constraint || undefined)
      if (!version) {
        this.problems.push({ what: where, reason: `no version of ${address} meets "${constraint}"; available: ${versions.join(', ') || 'none'}` })
        return undefined
      }
      const key = `${address} ${version}`
      const known = this.modules.get(key)
      if (known) {
        if (!known.calledBy.includes(caller)) known.calledBy.push(caller)
        return known
      }
      this.sources.step(`Fetching ${key}`)
      const archive = isPublic
        ? (await publicRegistry.mirroredVersion(who, namespace, name, provider, version)).version.archive!
        : (await registry.downloadToken(who, namespace, name, provider, version)).published.archive!
      this.pin(archive)
      const files = await this.sources.ingest.terraformFiles(archive.sha256, archive.size)
      const planned = { hostname, namespace, name, provider, version, registry: isPublic ? ('public' as const) : ('private' as const), archive, calledBy: [caller], files }
      this.modules.set(key, planned)
      return planned
    } catch (error) {
      this.problems.push({ what: where, reason: `${address}: ${(error as Error).message}` })
      return undefined
    }
  }

  private demand(address: ProviderAddress, constraints: string[], from: string): void {
    const key = providerKey(address)
    let demand = this.demands.get(key)
    if (!demand) this.demands.set(key, (demand = { ...address, constraints: new Set(), from: new Set() }))
    for (const constraint of constraints) demand.constraints.add(constraint)
    demand.from.add(from)
  }

  /** The provider version the lock file selects, or the newest all constraints allow, with its packages for `platforms`. */
  private async provider(demand: ProviderDemand, platforms: Array<{ os: string; arch: string }>): Promise<PlannedProvider | undefined> {
    const { hostname, namespace, type } = demand
    const address = providerKey(demand)
    const constraint = [...demand.constraints].join(', ')
    const problem = (reason: string) => {
      this.problems.push({ what: `provider ${address}`, reason })
      return undefined
    }
    const providerMirror = this.sources.publicMirrors.find(hostname)?.providers
    const isPublic = providerMirror !== undefined
    if (!isPublic && hostname !== this.sources.registryHostname) return problem(`${hostname} is neither this Homeport (${this.sources.registryHostname}) nor a public registry it mirrors`)
    if (platforms.length === 0) return problem('no platform was named: name the platforms the bundle is for (linux_amd64, darwin_arm64…)')
    const { caller, providerRegistry } = this.sources
    try {
      const { versions: listed } = providerMirror ? await providerMirror.versions(caller, namespace, type) : await providerRegistry.versions(caller, namespace, type)
      const available = listed.map((entry) => entry.version)
      const locked = this.locked.get(address)
      let version: string | undefined
      if (locked) {
        if (constraint && !terraformConstraint(constraint, 'version')(locked.version)) return problem(`.terraform.lock.hcl selects ${locked.version}, which does not meet "${constraint}": run terraform init -upgrade first`)
        if (!available.includes(locked.version)) return problem(`.terraform.lock.hcl selects ${locked.version}, which is not available here; available: ${available.join(', ') || 'none'}`)
        version = locked.version
      } else {
        version = newest(available, constraint || undefined)
        if (!version) return problem(`no version meets "${constraint}"; available: ${available.join(', ') || 'none'}`)
      }
      const offered = listed.find((entry) => entry.version === version)!.platforms
      const missing = platforms.filter(({ os, arch }) => !offered.some((candidate) => candidate.os === os && candidate.arch === arch))
      if (missing.length > 0) return problem(`${version} has no package for ${missing.map(({ os, arch }) => `${os}_${arch}`).join(', ')}`)
      this.sources.step(`Fetching ${address} ${version} for ${platforms.map(({ os, arch }) => `${os}_${arch}`).join(', ')}`)
      const release = providerMirror ? await providerMirror.release(caller, namespace, type, version, platforms) : await providerRegistry.release(caller, namespace, type, version, platforms)
      for (const file of [release.shasums, release.signature, ...release.packages.map((found) => found.binary)]) this.pin(file)
      const zh = locked?.hashes.filter((hash) => hash.startsWith('zh:')) ?? []
      const unlocked = release.packages.filter((found) => zh.length > 0 && !zh.includes(`zh:${found.binary.sha256}`))
      if (unlocked.length > 0) return problem(`the ${unlocked.map((found) => found.filename).join(', ')} here match none of the hashes .terraform.lock.hcl records for ${version}: Terraform would refuse them`)
      // Its docs go with it, pinned like its files, when there are any.
      const docsOf: DocsProvider = isPublic ? { kind: 'mirror', hostname, namespace, type } : { kind: 'private', organization: namespace, name: type }
      const docs = (await this.sources.providerDocs.shelf(caller, docsOf)).docs.get(version)
      for (const doc of docs?.docs ?? []) this.pin(doc.content)
      return { hostname, namespace, type, version, registry: isPublic ? 'mirror' : 'private', release, ...(docs ? { docs } : {}) }
    } catch (error) {
      return problem((error as Error).message)
    }
  }
}
