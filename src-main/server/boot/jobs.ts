import type { Background, JobTable } from '../domain/core/background.js'
import { INGEST_LEASE_MS } from '../domain/ingest/ingest-queue.js'
import type { Services } from '../domain/services.js'

/** How often download counts gathered in memory are written. */
const DOWNLOAD_FLUSH_MS = 2000
/** How often each replica looks for ingests that stalled (a replica died holding them). */
const INGEST_TAKEOVER_MS = 10_000
/** How often archives nothing refers to are removed (besides at start, and as versions go). */
const ARCHIVE_SWEEP_MS = 60 * 60 * 1000
/** How often events older than the audit trail's retention are removed. */
const AUDIT_SWEEP_MS = 60 * 60 * 1000

/**
 * Every background job Homeport runs, in one table: when it runs (a period, or what starts it), the
 * lease that keeps it to one replica at a time, and how it is retried. `Background` refuses a job
 * that is not here. Retries: a periodic job that fails runs again after its period doubled per
 * failure in a row, up to its cap (16 periods unless said), and is logged when it starts failing
 * and when it works again, not at every try; a job started on demand is not retried by the owner:
 * what it leaves half done is finished at the next start (an ingest, a git build) or retried by the
 * user (a bundle, a git sync's `actions/retry`). PostgreSQL's own retries of a transaction
 * (serialization failures, deadlocks) are in store/postgres/transactions.ts.
 */
export function jobTable(options: { vcsPollIntervalMs: number }): JobTable {
  return {
    'start-up recovery': { trigger: 'once, at start: what a crash left half done (domain/recovery.ts)' },
    ingest: { trigger: 'an archive stored (IngestQueue.schedule)', lease: { ttlMs: INGEST_LEASE_MS } },
    'ingest takeover': { everyMs: INGEST_TAKEOVER_MS },
    'version backfill': { trigger: 'once, at start: the OCI zip and the description of each version published without them (IngestQueue.backfillPublished)' },
    'search index build': { trigger: 'once, at start: every module read into the module list and the search index (ModuleIndex.built), which then follow the store\'s writes', cancelledAtClose: true },
    'git poll': { everyMs: options.vcsPollIntervalMs, lease: { job: 'git-poll', ttlMs: options.vcsPollIntervalMs * 2 } },
    'git sync': { trigger: 'a module connected, a webhook, the poll, a retry asked for (VcsBuilds.resync)' },
    'git build': { trigger: 'a new tag, or a branch version asked for (VcsBuilds.build)' },
    bundle: { trigger: 'POST /api/v2/bundles (BundleService.start)' },
    'provider docs fetch': { trigger: 'a public provider version first pulled through (UpstreamDocs.later)' },
    'download-count flush': { everyMs: DOWNLOAD_FLUSH_MS, backoffCapMs: 60_000 },
    'archive sweep': { everyMs: ARCHIVE_SWEEP_MS, trigger: 'also once at start, after the search index build: what a crash left', lease: { job: 'archive-sweep', ttlMs: 30 * 60 * 1000 }, backoffCapMs: 6 * ARCHIVE_SWEEP_MS },
    'audit trail retention': { everyMs: AUDIT_SWEEP_MS, backoffCapMs: 6 * AUDIT_SWEEP_MS }
  }
}

/** Starts the periodic jobs of the table: those that write only when the store takes writes. */
export function startPeriodicJobs(background: Background, services: Services, writable: boolean): void {
  background.every('download-count flush', () => services.downloads.flushPending())
  if (!writable) return
  background.every('ingest takeover', () => services.ingest.resumeStalled())
  background.every('git poll', (signal) => services.vcsBuilds.poll(signal))
  background.every('archive sweep', () => services.sweepArchives())
  background.every('audit trail retention', () => services.auditTrail.sweep())
}
