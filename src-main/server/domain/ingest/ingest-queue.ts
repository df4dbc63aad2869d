import { RecordMissingError } from '../../store/errors.js'
import { INGESTING, lacksBackfill, NEEDS_BACKFILL, type Store } from '../../store/port.js'
import type { Background } from '../core/background.js'
import { now, nowWithMicroseconds } from '../core/ids.js'
import type { ArchiveKeeper } from '../archives/archive-keeper.js'
import type { IngestJob } from '../core/events.js'
import { DEFAULT_ARCHIVE_LIMITS, InvalidArchiveError, readModuleArchive, type ArchiveContents, type ArchiveLimits } from './archive-reader.js'
import { HclParser } from './hcl-parser.js'
import { DEFAULT_PARSE_BUDGET, extractDocs, isDocumentationFile, TERRAFORM_FILE, type ParseBudget } from './terraform-docs.js'
import type { ModuleDocs } from '../archives/module-docs.js'
import { storableCopy } from '../core/stored-text.js'
import type { ArchiveRef } from '../../store/records.js'
import { ModuleZipWriter, storeModuleZip } from './module-zip.js'

/** A zip stored for a version, kept from the archive sweep until the version names it. */
interface PinnedZip {
  ref: ArchiveRef
  unpin: () => void
}

/** What an ingest found: the archive's documentation, or why it has none. */
type Outcome = { docs: ModuleDocs } | { error: string }

/** How long a replica's claim on an ingest lasts unless renewed: a dead replica's ingest is taken over after it. */
export const INGEST_LEASE_MS = 30_000

/**
 * Turns stored archives into documented versions, one at a time and off the request path: a
 * version is `reg_ingressing` from its upload until it is `ok` or `reg_ingress_failed` with the
 * reason. Organizations take turns, and each archive's parse is bounded (terraform-docs.ts's
 * ParseBudget), so no publisher holds the queue. Documentation is kept per archive content, so
 * identical uploads are parsed once.
 */
export class IngestQueue {
  /**
   * Jobs waiting, per organization, by version: organizations take turns, in the order they first
   * asked, and each organization's versions go in the order they came. A version already waiting
   * is not queued again (the takeover finds the versions of a long queue waiting longer than a
   * lease); a Map rather than an array, whose shift copies what is left of a long one.
   */
  private readonly waiting = new Map<string, Map<string, IngestJob>>()
  private running: Promise<void> | undefined

  constructor(
    private readonly store: Store,
    private readonly archives: ArchiveKeeper,
    private readonly background: Background,
    private readonly parser: HclParser = new HclParser(),
    private readonly limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
    private readonly budget: ParseBudget = DEFAULT_PARSE_BUDGET,
    private readonly log: (message: string) => void = (message) => console.error(message)
  ) {}

  schedule(job: IngestJob): void {
    const queue = this.waiting.get(job.organizationId) ?? new Map<string, IngestJob>()
    if (!queue.has(job.versionId)) queue.set(job.versionId, job)
    this.waiting.set(job.organizationId, queue)
    this.running ??= this.background.run('ingest', (signal) => this.work(signal)).finally(() => {
      this.running = undefined
    })
  }

  /** Stops the parser; the background owner has waited for the ingest under way first. */
  async close(): Promise<void> {
    await this.parser.close()
  }

  /** Ingests what waits, until nothing does; a shutdown stops it between archives (the rest resume at the next start). */
  private async work(signal: AbortSignal): Promise<void> {
    for (let job = signal.aborted ? undefined : this.nextJob(); job; job = signal.aborted ? undefined : this.nextJob()) {
      try {
        await this.ingest(job.moduleId, job.versionId, signal)
      } catch (error) {
        // The version stays reg_ingressing and is ingested again at the next start.
        this.log(`homeport: could not record the ingest of ${job.versionId}: ${(error as Error).message}`)
      }
    }
  }

  /**
   * The next job, fairly: one from the organization whose turn it is, which then goes to the back
   * of the line. One publisher with many large archives delays another's by one archive at most.
   */
  private nextJob(): IngestJob | undefined {
    const next = this.waiting.entries().next()
    if (next.done) return undefined
    const [organizationId, queue] = next.value
    const [versionId, job] = queue.entries().next().value!
    queue.delete(versionId)
    this.waiting.delete(organizationId)
    if (queue.size > 0) this.waiting.set(organizationId, queue)
    return job
  }

  /**
   * Schedules the versions whose ingest has been waiting longer than a lease: ones a replica that
   * died was ingesting (its lease expired), or that no replica heard of. Each replica runs this
   * every so often; a version's lease (in `ingest`) makes sure only one of them ingests it, and
   * one already waiting here stays where it is in the queue.
   */
  async resumeStalled(now = Date.now()): Promise<void> {
    for (const module of await this.store.modules.listBy(INGESTING, 'all')) {
      for (const version of module.versions) {
        if (version.status === 'reg_ingressing' && now - Date.parse(version.updatedAt) > INGEST_LEASE_MS) {
          this.schedule({ organizationId: module.organizationId, moduleId: module.id, versionId: version.id })
        }
      }
    }
  }

  /**
   * Ingests a version holding its lease (renewed while it runs, by the background owner); another
   * replica holding it is left to it. Should this replica lose the lease midway, its result is
   * still safe to record: the final update checks the version is still waiting for this very
   * archive, so two replicas that both read it write the same documentation once.
   */
  private async ingest(moduleId: string, versionId: string, signal: AbortSignal): Promise<void> {
    await this.background.withLease('ingest', versionId, signal, () => this.ingestHeld(moduleId, versionId))
  }

  private async ingestHeld(moduleId: string, versionId: string): Promise<void> {
    const module = await this.store.modules.get(moduleId)
    const version = module?.versions.find((candidate) => candidate.id === versionId)
    if (!version || version.status !== 'reg_ingressing' || !version.archive) return
    const archive = version.archive
    // Another upload may supersede this archive while it is read: it stays until this ingest lets go.
    const unpin = this.archives.pin(archive.sha256)
    const { outcome, zip } = await this.documentAndZip(archive, `${module!.name} ${version.version}`)
    try {
      await this.store.modules.update(moduleId, (draft) => {
        const target = draft.versions.find((candidate) => candidate.id === versionId)
        // Deleted, or uploaded again, while this ran.
        if (!target || target.status !== 'reg_ingressing' || target.archive?.sha256 !== archive.sha256) return
        target.updatedAt = now()
        if ('docs' in outcome) {
          target.status = 'ok'
          target.error = ''
          target.warnings = outcome.docs.warnings
          target.publishedAt = nowWithMicroseconds()
          target.description = outcome.docs.description
          if (zip) target.zip = zip.ref
          draft.status = 'setup_complete'
          draft.updatedAt = target.updatedAt
        } else {
          target.status = 'reg_ingress_failed'
          target.error = outcome.error
          target.archive = null
        }
      })
    } catch (error) {
      if (!(error instanceof RecordMissingError)) throw error
    } finally {
      unpin()
      zip?.unpin()
    }
    // A zip made for an archive that failed is named by no version: it goes.
    await this.archives.release([archive.sha256, ...(zip ? [zip.ref.sha256] : [])])
  }

  /**
   * The archive's documentation and the zip OCI clients install the module from, from one read of
   * the archive: the zip is made as it is read, and stored while the documentation is parsed. An
   * archive documented before (uploaded again) is read for its zip alone.
   */
  private async documentAndZip(archive: ArchiveRef, label: string): Promise<{ outcome: Outcome; zip?: PinnedZip }> {
    let known: ModuleDocs | undefined
    try {
      known = await this.store.archives.readDocs<ModuleDocs>(archive.sha256)
    } catch (error) {
      return { outcome: this.failed(error, label) }
    }
    if (known) return { outcome: { docs: known }, zip: await this.zipOf(archive, label) }
    const writer = new ModuleZipWriter(this.store.archives, this.limits)
    let contents: ArchiveContents
    try {
      contents = await readModuleArchive(this.store.archives.read(archive.sha256), archive.size, isDocumentationFile, this.limits, writer.add)
    } catch (error) {
      await writer.abandon(error as Error)
      return { outcome: this.failed(error, label) }
    }
    const zipping = this.pinned(writer.finish(), label)
    const outcome = await this.documented(archive.sha256, contents).then((docs): Outcome => ({ docs }), (error: unknown) => this.failed(error, label))
    return { outcome, zip: await zipping }
  }

  /** Why an archive could not be documented, as its version says it; an error that is not the archive's own is logged too. */
  private failed(error: unknown, label: string): Outcome {
    if (error instanceof InvalidArchiveError) return { error: error.message }
    this.log(`homeport: ingest of ${label} failed: ${(error as Error).stack ?? String(error)}`)
    return { error: `Homeport could not read the archive: ${(error as Error).message}` }
  }

  /** The zip of a stored archive (ModuleZipWriter), from a read of its own. */
  private zipOf(archive: ArchiveRef, label: string): Promise<PinnedZip | undefined> {
    return this.pinned(storeModuleZip(this.store.archives, this.store.archives.read(archive.sha256), archive.size, this.limits), label)
  }

  /**
   * A zip once stored, pinned until the version names it. A failure here does not fail the ingest:
   * the version is published for Terraform, and the zip is made at the next start (backfillPublished).
   */
  private async pinned(storing: Promise<ArchiveRef>, label: string): Promise<PinnedZip | undefined> {
    try {
      const ref = await storing
      return { ref, unpin: this.archives.pin(ref.sha256) }
    } catch (error) {
      // An archive that cannot be read fails its version, which says why (documentation reads it too).
      if (!(error instanceof InvalidArchiveError)) this.log(`homeport: could not make the OCI zip of ${label} (it is made at the next start): ${(error as Error).message}`)
      return undefined
    }
  }

  /**
   * Gives every published version what ingest now keeps and it lacks: its OCI zip (published before
   * Homeport made them, or the zip could not be made at ingest) and its description (published before
   * it was kept). Run once at start; a version whose archive changed meanwhile is left to its new ingest.
   */
  async backfillPublished(signal?: AbortSignal): Promise<void> {
    for (const module of await this.store.modules.listBy(NEEDS_BACKFILL, 'all')) {
      for (const version of module.versions) {
        if (signal?.aborted) return
        const archive = version.archive
        if (!archive || !lacksBackfill(version)) continue
        const zip = version.zip ? undefined : await this.zipOf(archive, `${module.name} ${version.version}`)
        const description = version.description ?? (await this.store.archives.readDocs<ModuleDocs>(archive.sha256))?.description
        try {
          await this.store.modules.update(module.id, (draft) => {
            const target = draft.versions.find((candidate) => candidate.id === version.id)
            if (target?.status !== 'ok' || target.archive?.sha256 !== archive.sha256) return
            if (zip && !target.zip) target.zip = zip.ref
            if (description !== undefined && target.description === undefined) target.description = description
          })
        } catch (error) {
          if (!(error instanceof RecordMissingError)) throw error
        } finally {
          if (zip) {
            zip.unpin()
            await this.archives.release([zip.ref.sha256])
          }
        }
      }
    }
  }

  /** Parses one HCL file with the queue's parser (its worker thread), for readers of configurations besides ingest. */
  parse(filename: string, text: string): Promise<Record<string, unknown>> {
    return this.parser.parse(filename, text)
  }

  /** A stored module archive's Terraform files (path → text), read within the same limits as at ingest. */
  async terraformFiles(sha256: string, size: number): Promise<Map<string, string>> {
    return (await readModuleArchive(this.store.archives.read(sha256), size, (path) => TERRAFORM_FILE.test(path), this.limits)).files
  }

  /** The documentation of a stored archive: read from beside it when known, else parsed (bounded, as at ingest) and kept. */
  async documentation(sha256: string, size: number): Promise<ModuleDocs> {
    const known = await this.store.archives.readDocs<ModuleDocs>(sha256)
    if (known) return known
    return this.documented(sha256, await readModuleArchive(this.store.archives.read(sha256), size, isDocumentationFile, this.limits))
  }

  /** The documentation of an archive's files, parsed (bounded, as at ingest) and kept beside it. */
  private async documented(sha256: string, contents: ArchiveContents): Promise<ModuleDocs> {
    const docs = await extractDocs(contents.files, (file, text, timeoutMs) => this.parser.document(file, text, timeoutMs), this.budget)
    docs.warnings.unshift(...contents.warnings)
    const storable = storableCopy(docs)
    await this.store.archives.writeDocs(sha256, storable)
    return storable
  }
}
