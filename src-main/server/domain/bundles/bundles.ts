import { createHash } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { makeFolder, writeInside } from '../../files/folder-writes.js'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import packageJson from '../../../../package.json' with { type: 'json' }
import type { Store } from '../../store/port.js'
import { callerKey, type Caller } from '../core/access.js'
import type { Background } from '../core/background.js'
import { ForbiddenError, InvalidInputError, LimitExceededError, NotFoundError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import type { OrganizationService } from '../organizations/organizations.js'
import type { BundleFile, BundleManifest } from '../../../shared/bundle-manifest.js'
import type { BundleProblem, BundleStatus } from '../../../shared/wire/bundles.js'
import { BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION } from './bundle-format.js'
import { openBundle, writeBundle, type StagedFile } from './bundle-files.js'
import { BundleImporter, type ImportReport, type ImportServices } from './bundle-import.js'
import { rollBackInterruptedImports } from './import-journal.js'
import type { AuditTrailService } from '../organizations/audit-trail.js'
import { BundlePlanner, type BundleRequest, type PlanSources } from './bundle-plan.js'
import { docsFileOf } from '../provider-docs/docs-file.js'

/** A bundle being made, or made: what the API and the GUI show of it while it runs. */
export interface BundleJob {
  id: string
  organization: string
  status: BundleStatus
  createdAt: string
  /** What it is doing now, and what it did, newest last (the last hundred steps). */
  steps: string[]
  /** Bytes copied into the bundle so far, of `totalBytes`, while writing. */
  writtenBytes: number
  totalBytes: number
  /** Why it failed: everything that could not be resolved, each with the reason. */
  problems: BundleProblem[]
  curated: string[]
  manifest?: BundleManifest
  size?: number
  sha256?: string
  filename: string
}

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

/** How long a finished bundle waits to be downloaded before it is removed. */
const KEEP_MS = 60 * 60 * 1000
/** The largest bundle an import takes. */
export const MAX_BUNDLE_BYTES = 8 * 1024 ** 3
const MAX_STEPS = 100

export interface BundleOptions {
  /** A folder of the data directory for bundles being written and read; emptied at start. */
  dir: string
  /** This Homeport's own registry hostname: sources naming it are its private modules and providers. */
  registryHostname: string
}

/**
 * Bundles carry what a configuration needs across an air gap. Making one is a job that runs in the
 * background (resolving, fetching and pulling through, writing) and is watched; the file waits
 * for its download an hour. Importing one checks every file and signature first, then adds what
 * is missing; see bundle-import.ts.
 */
export class BundleService {
  private readonly jobs = new Map<string, BundleJob & { owner: string; path: string }>()

  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService,
    private readonly background: Background,
    private readonly plan: Omit<PlanSources, 'caller' | 'organization' | 'step' | 'registryHostname'>,
    private readonly importing: Omit<ImportServices, 'registryHostname'>,
    private readonly options: BundleOptions,
    private readonly audit: AuditTrailService
  ) {}

  /** Clears what an earlier run left (bundles are not kept across restarts), and takes back an import it did not finish. */
  async start(): Promise<void> {
    await rm(this.options.dir, { recursive: true, force: true })
    await makeFolder(this.options.dir, undefined, 0o700)
    await rollBackInterruptedImports(this.importing)
  }

  /** Starts making a bundle from `organization`'s registry, for a caller who may manage its modules. */
  async create(caller: Caller, organization: string, request: BundleRequest): Promise<BundleJob> {
    const org = await this.organizations.read(caller, organization)
    const making = { permission: 'make bundle', org, action: 'create', resource: { type: 'bundle', id: '', name: `a bundle of ${org.name}` } } as const
    await this.audit.check(caller, making, () => new ForbiddenError('Making a bundle takes Manage modules in the organization: it curates the public modules it pulls through.'))
    if (!request.configuration && !request.modules?.length && !request.providers?.length) {
      throw new InvalidInputError('Give a configuration (its .tf files), or modules or providers to bundle.', 'configuration')
    }
    const id = newId('bundle')
    const job = {
      id,
      organization: org.name,
      status: 'resolving' as BundleStatus,
      createdAt: now(),
      steps: ['Reading the configuration'],
      writtenBytes: 0,
      totalBytes: 0,
      problems: [],
      curated: [],
      filename: `${org.name}-${new Date().toISOString().slice(0, 10)}.hpbundle`,
      owner: callerKey(caller),
      path: join(this.options.dir, `${id}.hpbundle`)
    }
    this.jobs.set(id, job)
    await this.audit.done({ ...making, author: caller, resource: { ...making.resource, id } })
    void this.background.run('bundle', () => this.make(caller, job, request, org.email))
    return this.view(job)
  }

  get(caller: Caller, id: string): BundleJob {
    return this.view(this.owned(caller, id))
  }

  /** A ready bundle's file, to download. */
  file(caller: Caller, id: string): { path: string; size: number; filename: string } {
    const job = this.owned(caller, id)
    if (job.status !== 'ready') throw new InvalidInputError(`The bundle is ${job.status}, not ready to download.`, 'status')
    return { path: job.path, size: job.size!, filename: job.filename }
  }

  async remove(caller: Caller, id: string): Promise<void> {
    const job = this.owned(caller, id)
    this.jobs.delete(id)
    await rm(job.path, { force: true })
  }

  /**
   * Imports a bundle read from `body`, for the site admin: kept in the data directory's bundle
   * folder (at most MAX_BUNDLE_BYTES), checked whole, then imported; see bundle-import.ts.
   */
  async import(caller: Caller, body: Readable, options: { organization?: string } = {}): Promise<ImportReport> {
    const id = newId('import')
    const importing = { permission: 'import bundle', org: undefined, action: 'import', resource: { type: 'bundle', id, name: 'a bundle' } } as const
    await this.audit.check(caller, importing, () => new ForbiddenError('Only the site admin imports bundles: they add public providers and modules for everyone.'))
    const file = join(this.options.dir, `${id}.hpbundle`)
    const folder = join(this.options.dir, id)
    try {
      async function* limited(): AsyncGenerator<Buffer> {
        let received = 0
        for await (const chunk of body as AsyncIterable<Buffer>) {
          received += chunk.length
          if (received > MAX_BUNDLE_BYTES) throw new LimitExceededError(`The bundle is larger than ${MAX_BUNDLE_BYTES / 1024 ** 3} GiB, the most Homeport imports.`)
          yield chunk
        }
      }
      await writeInside(this.options.dir, file, limited())
      const opened = await openBundle(file, folder)
      const report = await new BundleImporter(id, caller, opened, { ...this.importing, registryHostname: this.options.registryHostname }).run(options.organization)
      const added = [...report.modules, ...report.providers].filter((entry) => entry.outcome === 'added').length
      await this.audit.done({ ...importing, author: caller, resource: { ...importing.resource, name: `a bundle: ${added} added, curated by ${report.organization}` } })
      return report
    } finally {
      await rm(file, { force: true })
      await rm(folder, { recursive: true, force: true })
    }
  }

  private async make(caller: Caller, job: BundleJob & { path: string }, request: BundleRequest, email: string): Promise<void> {
    const step = (message: string) => {
      job.steps.push(message)
      if (job.steps.length > MAX_STEPS) job.steps.splice(0, job.steps.length - MAX_STEPS)
    }
    const planner = new BundlePlanner({ ...this.plan, caller, organization: job.organization, registryHostname: this.options.registryHostname, step })
    try {
      const plan = await planner.plan(request)
      job.curated = plan.curated
      if (plan.problems.length > 0) {
        job.problems = plan.problems
        job.status = 'failed'
        step(`Not written: ${counted(plan.problems.length, 'thing')} could not be resolved`)
        return
      }
      job.status = 'writing'
      step('Writing the bundle')
      const files: StagedFile[] = []
      const entry = (path: string, stored: { sha256: string; size: number }): BundleFile => {
        files.push({ path, stored })
        return { path, sha256: stored.sha256, size: stored.size }
      }
      const made = (path: string, bytes: Buffer): BundleFile => {
        files.push({ path, bytes })
        return { path, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length }
      }
      const manifest: BundleManifest = {
        format: BUNDLE_FORMAT,
        formatVersion: BUNDLE_FORMAT_VERSION,
        writtenBy: `Homeport ${packageJson.version}`,
        createdAt: now(),
        organization: { name: job.organization, email },
        platforms: request.platforms.map(({ os, arch }) => `${os}_${arch}`),
        modules: plan.modules.map(({ archive, ...module }) => ({
          ...module,
          archive: entry(`modules/${module.hostname}/${module.namespace}/${module.name}/${module.provider}/${module.version}.tar.gz`, archive)
        })),
        providers: await Promise.all(
          plan.providers.map(async ({ release, docs, ...provider }) => {
            const folder = `providers/${provider.hostname}/${provider.namespace}/${provider.type}/${provider.version}`
            return {
              ...provider,
              protocols: release.protocols,
              shasums: entry(`${folder}/${release.shasumsName}`, release.shasums),
              signature: entry(`${folder}/${release.shasumsName}.sig`, release.signature),
              keys: release.keys,
              packages: release.packages.map(({ binary, ...found }) => ({ ...found, file: entry(`${folder}/${found.filename}`, binary) })),
              ...(docs ? { docs: made(`${folder}/docs.json`, docsFileOf(docs, await Promise.all(docs.docs.map((doc) => this.importing.providerDocs.text(doc))))) } : {})
            }
          })
        )
      }
      const written = await writeBundle(job.path, manifest, files, (sha256) => this.store.archives.read(sha256), (done, total) => {
        job.writtenBytes = done
        job.totalBytes = total
      })
      Object.assign(job, { manifest, ...written, status: 'ready' })
      step(`Ready: ${counted(manifest.modules.length, 'module version')} and ${counted(manifest.providers.length, 'provider version')}`)
      // Waits, unref'd, for its download; a restart clears the folder anyway.
      setTimeout(() => void this.expire(job.id), KEEP_MS).unref()
    } catch (error) {
      job.status = 'failed'
      job.problems = [{ what: 'the bundle', reason: (error as Error).message }]
      await rm(job.path, { force: true })
      throw error
    } finally {
      await planner.release()
    }
  }

  private async expire(id: string): Promise<void> {
    const job = this.jobs.get(id)
    if (!job) return
    this.jobs.delete(id)
    await rm(job.path, { force: true })
  }

  /** A job of this caller's; another caller's is not found, as nothing is said of it. */
  private owned(caller: Caller, id: string): BundleJob & { owner: string; path: string } {
    const job = this.jobs.get(id)
    if (!job || job.owner !== callerKey(caller)) throw new NotFoundError(`bundle ${id} not found`)
    return job
  }

  private view({ owner: _owner, path: _path, ...job }: BundleJob & { owner: string; path: string }): BundleJob {
    return { ...job, steps: [...job.steps], problems: [...job.problems] }
  }
}
