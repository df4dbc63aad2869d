import type { DownloadRecord } from '../../store/records.js'
import { RecordMissingError } from '../../store/errors.js'
import type { Store } from '../../store/port.js'
import { turnTime } from '../core/turn-clock.js'

export interface DownloadSummary {
  week: number
  month: number
  year: number
  total: number
}

const DAY_MS = 24 * 60 * 60 * 1000
/** Tokens kept per version as its consumers: far more than an organization has. */
const MAX_CONSUMERS = 1000
/** Per-day counts older than a year count toward the total only. */
const KEPT_DAYS = 366

/**
 * Counts downloads per module and UTC day. A download must not cost a disk write (Terraform
 * asks for locations in loops), so counts gather in memory and are written every few seconds
 * (a background task), and when the server stops; a crash loses at most those seconds of counts.
 */
export class DownloadCounter {
  private readonly pending = new Map<string, Map<string, number>>()
  /** Module id → version id → the tokens (callerKey) that downloaded it, not yet written. */
  private readonly pendingConsumers = new Map<string, Map<string, Set<string>>>()
  /** Downloads this process has counted. */
  private counted = 0
  /** The flush under way: while it writes, its counts are neither pending nor surely in the store. */
  private flushing: Promise<void> | undefined
  /** Moves when a flush starts and when it ends: a read that saw it move read across a flush, and reads again. */
  private flushEpoch = 0
  /** Writes of counts heard: this process's flushes, and on PostgreSQL every other replica's (or that some may have gone unheard). */
  private writesHeard = 0

  constructor(
    private readonly store: Store,
    private readonly log: (message: string) => void = (message) => console.error(message)
  ) {
    store.downloads.onChange(() => this.writesHeard++)
  }

  /**
   * Moves whenever a module's total may have changed: a download counted here, or counts written by
   * any replica. An answer that shows counts, or is ordered by them, computed before it moved may be
   * stale; one computed since is not, however long ago: a quiet registry's list by downloads is not
   * ordered again (a tenth of a second at 100,000 modules).
   */
  get changes(): number {
    return this.counted + this.writesHeard
  }

  count(moduleId: string, at?: Date, times = 1): void {
    this.counted += times
    const day = at ? dayOf(at) : today()
    let days = this.pending.get(moduleId)
    if (!days) this.pending.set(moduleId, (days = new Map<string, number>()))
    days.set(day, (days.get(day) ?? 0) + times)
  }

  /** Notes that `consumer` (a token, as callerKey names it) downloaded a version: see VersionRevocation. */
  consumed(moduleId: string, versionId: string, consumer: string): void {
    let versions = this.pendingConsumers.get(moduleId)
    if (!versions) this.pendingConsumers.set(moduleId, (versions = new Map<string, Set<string>>()))
    let consumers = versions.get(versionId)
    if (!consumers) versions.set(versionId, (consumers = new Set()))
    consumers.add(consumer)
  }

  /** Who has downloaded a version, written or not yet. A revocation decides on this list. */
  async consumersOf(moduleId: string, versionId: string): Promise<string[]> {
    const [record] = await this.records([moduleId])
    return [...new Set([...(record?.consumers[versionId] ?? []), ...(this.pendingConsumers.get(moduleId)?.get(versionId) ?? [])])]
  }

  /**
   * The periodic flush (a job in boot/jobs.ts): a write that fails (a full disk) keeps the counts
   * for the next try, and the server goes on; the jobs' owner logs the failure once, not every try.
   */
  async flushPending(): Promise<void> {
    if (this.pending.size === 0 && this.pendingConsumers.size === 0) return
    await this.flush().catch((error: unknown) => {
      throw new Error(`download counts could not be written; they are kept in memory and tried again: ${(error as Error).message}`)
    })
  }

  /** Week, month and year are the last 7, 30 and 365 days, today included. */
  async summary(moduleId: string, now = new Date()): Promise<DownloadSummary> {
    const [record] = await this.records([moduleId])
    const days = new Map(Object.entries(record?.days ?? {}))
    let total = record?.total ?? 0
    for (const [day, count] of this.pending.get(moduleId) ?? []) {
      days.set(day, (days.get(day) ?? 0) + count)
      total += count
    }
    const within = (span: number) => {
      const since = dayOf(new Date(now.getTime() - (span - 1) * DAY_MS))
      let sum = 0
      for (const [day, count] of days) if (day >= since) sum += count
      return sum
    }
    return { week: within(7), month: within(30), year: within(365), total }
  }

  /** Downloads per UTC day over the last `days` days, oldest first, today included (days without any count 0). */
  async daily(moduleId: string, days = 30, now = new Date()): Promise<Array<{ date: string; count: number }>> {
    const [record] = await this.records([moduleId])
    const pending = this.pending.get(moduleId)
    return Array.from({ length: days }, (_, index) => {
      const date = dayOf(new Date(now.getTime() - (days - 1 - index) * DAY_MS))
      return { date, count: (record?.days[date] ?? 0) + (pending?.get(date) ?? 0) }
    })
  }

  /** Totals for many modules at once, by module (the protocol's `downloads`). */
  async totals(moduleIds: string[]): Promise<Map<string, number>> {
    const totals = await this.totalsOf(moduleIds)
    return new Map(moduleIds.map((id, index) => [id, totals[index]!]))
  }

  /** Totals for many modules at once, in their order (the module list by downloads: a map of 100,000 modules took 20 ms to build). */
  async totalsOf(moduleIds: string[]): Promise<Float64Array> {
    const records = await this.records(moduleIds)
    const totals = new Float64Array(moduleIds.length)
    for (let index = 0; index < moduleIds.length; index++) {
      let total = records[index]?.total ?? 0
      const pending = this.pending.get(moduleIds[index]!)
      if (pending) for (const count of pending.values()) total += count
      totals[index] = total
    }
    return totals
  }

  /**
   * The written records of these modules, read so that what is pending, read right after them,
   * completes them exactly: never while a flush writes (its counts would be in neither, or in
   * both), and again when a flush started or ended during the read.
   */
  private async records(moduleIds: string[]): Promise<Array<DownloadRecord | undefined>> {
    for (;;) {
      if (this.flushing) {
        await this.flushing.catch(() => undefined)
        continue
      }
      const epoch = this.flushEpoch
      const records = await this.store.downloads.getMany(moduleIds.map(recordId))
      if (epoch === this.flushEpoch) return records
    }
  }

  /** Writes the gathered counts and consumers; those it could not write stay gathered, and the error is thrown. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined)
    this.flushEpoch++
    this.flushing = this.write()
    try {
      await this.flushing
    } finally {
      this.flushing = undefined
      this.flushEpoch++
    }
  }

  private async write(): Promise<void> {
    const batch = [...this.pending]
    const consumers = new Map(this.pendingConsumers)
    this.pending.clear()
    this.pendingConsumers.clear()
    const moduleIds = [...new Set([...batch.map(([moduleId]) => moduleId), ...consumers.keys()])]
    const counts = new Map(batch)
    for (const [index, moduleId] of moduleIds.entries()) {
      const id = recordId(moduleId)
      const days = counts.get(moduleId) ?? new Map<string, number>()
      const apply = (draft: DownloadRecord) => {
        for (const [day, count] of days) {
          draft.days[day] = (draft.days[day] ?? 0) + count
          draft.total += count
        }
        const oldest = dayOf(new Date(Date.now() - KEPT_DAYS * DAY_MS))
        for (const day of Object.keys(draft.days)) if (day < oldest) delete draft.days[day]
        for (const [versionId, keys] of consumers.get(moduleId) ?? []) {
          draft.consumers[versionId] = [...new Set([...(draft.consumers[versionId] ?? []), ...keys])].slice(0, MAX_CONSUMERS)
        }
      }
      try {
        await this.store.downloads.upsert(id, () => ({ id, moduleId, total: 0, days: {}, consumers: {} }), apply)
      } catch (error) {
        // Put back what was not written, this module's included, for the next flush.
        for (const failedId of moduleIds.slice(index)) {
          for (const [day, count] of counts.get(failedId) ?? []) this.count(failedId, new Date(`${day}T12:00:00Z`), count)
          for (const [versionId, keys] of consumers.get(failedId) ?? []) for (const key of keys) this.consumed(failedId, versionId, key)
        }
        throw error
      }
    }
  }

  /**
   * The last flush, when the server stops. If the counts cannot be written even then, the loss
   * is said in the log, with its size: never silently, and never a reason to fail the shutdown.
   */
  async close(): Promise<void> {
    try {
      await this.flush()
    } catch (error) {
      let downloads = 0
      for (const days of this.pending.values()) for (const count of days.values()) downloads += count
      this.log(`homeport: ${downloads} download${downloads === 1 ? '' : 's'} of ${this.pending.size} module${this.pending.size === 1 ? '' : 's'} could not be written and are lost from the counts: ${(error as Error).message}`)
      this.pending.clear()
    }
  }

  /** Drops a deleted module's counts. */
  async forget(moduleId: string): Promise<void> {
    // A flush under way would write the record again after the delete.
    while (this.flushing) await this.flushing.catch(() => undefined)
    this.pending.delete(moduleId)
    this.pendingConsumers.delete(moduleId)
    if (await this.store.downloads.get(recordId(moduleId))) {
      await this.store.downloads.delete(recordId(moduleId)).catch((error: unknown) => {
        if (!(error instanceof RecordMissingError)) throw error
      })
    }
  }
}

/** A module's download record is named after it: one lookup, and a start finds those of modules gone by their names alone. */
export function recordId(moduleId: string): string {
  return `dl-${moduleId.replace(/^[a-z]+-/, '')}`
}

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10)
}

/** The UTC day now, and the moments it starts and ends. */
let current = { day: '', from: 0, to: 0 }

/**
 * Today's UTC day, as of this turn of the event loop: named once a day rather than once a download
 * (formatting a date was a twentieth of a cached download location's time).
 */
function today(): string {
  const now = turnTime()
  if (now < current.from || now >= current.to) {
    const from = now - (now % DAY_MS)
    current = { day: dayOf(new Date(from)), from, to: from + DAY_MS }
  }
  return current.day
}
