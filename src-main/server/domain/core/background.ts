import type { Leases } from '../../store/port.js'

/** One background job, as the jobs table (boot/jobs.ts) declares it. */
export interface JobSpec {
  /** A periodic job's period; none for a job something starts (its `trigger`). */
  everyMs?: number
  /** What starts a job that is not periodic, for the table's reader. */
  trigger?: string
  /**
   * Jobs one replica at a time must run: the lease taken (under `job`, or per item for a job that
   * holds one per thing it works on), for `ttlMs` unless renewed. Renewal runs under this owner
   * every third of the TTL; a lease lost (refused, or the store unreachable) is logged and aborts
   * the task.
   */
  lease?: { job?: string; ttlMs: number }
  /** A periodic job after failures: the next try waits its period doubled per failure, up to `capMs`. */
  backoffCapMs?: number
  /** Work nothing needs finished (a start's search index build: every start builds again): `close` cancels it at once rather than after the grace period. */
  cancelledAtClose?: boolean
}

/** Every job by name: a task started under a name the table lacks is a programming error. */
export type JobTable = Readonly<Record<string, JobSpec>>

/** How long `close` waits for tasks in flight before it aborts them, and then for them to stop. */
export const SHUTDOWN_GRACE_MS = 10_000

/** A periodic job's failures in a row: it is logged when that changes from none to some, and back. */
interface Health {
  failures: number
}

/**
 * The one owner of work that runs off the request path: ingest, git syncs and builds, bundles, the
 * download-count flush, start-up recovery. Nothing starts such work but through it, under a name
 * the jobs table declares, so nothing outlives the server, and a failure is logged and counted,
 * never an unhandled rejection that takes the process down (or, in the desktop app, an error dialog).
 *
 * - `run` starts a task once: caught, logged, counted, given an abort signal, and awaited by `close`;
 * - `every` runs a periodic job by its table entry: never two at once, on an unref'd timer, under
 *   its lease, backing off after failures;
 * - `withLease` runs a task holding a lease on one item (a version's ingest), renewed meanwhile;
 * - `idle` waits for the tasks in flight and those they start;
 * - `close` stops the timers, waits a grace period for the tasks in flight (including those they
 *   start meanwhile: a sync starts builds, a build an ingest), then aborts them.
 */
export class Background {
  private readonly inFlight = new Map<Promise<void>, { name: string; controller: AbortController }>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly failureCounts = new Map<string, number>()
  private readonly health = new Map<string, Health>()
  /** Periodic jobs' leases this process holds between runs, given up at close. */
  private readonly heldLeases = new Set<string>()
  private readonly jobs: JobTable
  private readonly leases: Leases | undefined
  private readonly log: (message: string) => void
  private readonly stopper = new AbortController()
  private closed = false

  constructor(options: { jobs: JobTable; leases?: Leases; log?: (message: string) => void }) {
    this.jobs = options.jobs
    this.leases = options.leases
    this.log = options.log ?? ((message) => console.error(message))
  }

  /** Starts `task` now; resolves when it is done, whether it succeeded or not (it never rejects). */
  run(name: string, task: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
    this.spec(name)
    const controller = new AbortController()
    const running = this.attempt(name, controller.signal, task)
      .then((error) => {
        // Cancelled by close: `close` names what it cancels.
        if (error !== undefined && !(this.closed && controller.signal.aborted)) this.fail(name, error)
      })
      .finally(() => this.inFlight.delete(running))
    this.inFlight.set(running, { name, controller })
    return running
  }

  /** Runs a periodic job by its table entry (the first time after one period) until `close`. */
  every(name: string, task: (signal: AbortSignal) => Promise<unknown>): void {
    const spec = this.spec(name)
    if (spec.everyMs === undefined) throw new Error(`The jobs table gives ${name} no period.`)
    this.schedule(name, spec.everyMs, task)
  }

  /**
   * Runs `task` holding the lease of `name`'s table entry on `item` (`<name>:<item>`), renewed while
   * it runs and given up after; undefined, without running it, while another replica holds it.
   */
  async withLease<T>(name: string, item: string, signal: AbortSignal, task: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
    const { lease } = this.spec(name)
    if (!lease || !this.leases) return task(signal)
    const job = `${name}:${item}`
    if (!(await this.leases.acquire(job, lease.ttlMs))) return undefined
    try {
      return await this.holding(name, job, lease.ttlMs, signal, task)
    } finally {
      await this.leases.release(job).catch((error: unknown) => this.log(`homeport: ${name} could not give up its lease on ${job}: ${(error as Error).message}`))
    }
  }

  /**
   * Resolves once no task is in flight, including those started meanwhile (an upload's ingest, a
   * sync's builds): what a test awaits instead of polling or sleeping.
   */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight.keys())
  }

  /**
   * Aborted when `close` cancels what still runs, with the tasks' own signals: for what a task
   * reaches without being handed its signal (the upstream a bundle pulls through, a clone), which
   * its owner builds with this one. Not an AsyncLocalStorage of the job's signal: on Node 20 one
   * turns on async hooks for the whole process, which cost every request about 9 % of the protocol's
   * throughput (bench figure 1).
   */
  get stopping(): AbortSignal {
    return this.stopper.signal
  }

  /** How often each kind of task has failed since the server started. */
  get failures(): ReadonlyMap<string, number> {
    return this.failureCounts
  }

  /**
   * Stops the timers, waits up to `graceMs` for the tasks in flight (and those they start), then
   * aborts what is left and waits as long again for it to stop: a bundle pulling gigabytes or a slow
   * `git fetch` does not hold a SIGTERM. What still runs after that is named in the log. Every job
   * aborted is one a restart finishes (see domain/recovery.ts and the jobs' own start-up checks).
   */
  async close(graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
    this.closed = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    for (const { name, controller } of this.inFlight.values()) if (this.spec(name).cancelledAtClose) controller.abort(new Error('Homeport is stopping'))
    if (!(await this.settled(graceMs))) {
      const names = [...new Set([...this.inFlight.values()].map((entry) => entry.name))]
      this.log(`homeport: stopping: cancelling ${names.join(', ')} after ${graceMs / 1000} s`)
      const reason = new Error('Homeport is stopping')
      this.stopper.abort(reason)
      for (const { controller } of this.inFlight.values()) controller.abort(reason)
      if (!(await this.settled(graceMs))) {
        this.log(`homeport: stopping without waiting for ${[...new Set([...this.inFlight.values()].map((entry) => entry.name))].join(', ')}`)
      }
    }
    if (this.leases) await Promise.all([...this.heldLeases].map((job) => this.leases!.release(job).catch(() => undefined)))
    this.heldLeases.clear()
  }

  private spec(name: string): JobSpec {
    const spec = this.jobs[name]
    if (!spec) throw new Error(`"${name}" is not in the jobs table (boot/jobs.ts).`)
    return spec
  }

  /** Whether every task in flight (and every task they started) ended within `ms`. */
  private async settled(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms)
    })
    try {
      while (this.inFlight.size > 0) {
        if ((await Promise.race([Promise.all(this.inFlight.keys()).then(() => true), deadline])) === false) return false
      }
      return true
    } finally {
      clearTimeout(timer)
    }
  }

  /** Runs a task under its signal; the error it failed with, or undefined. */
  private async attempt(name: string, signal: AbortSignal, task: (signal: AbortSignal) => Promise<unknown>): Promise<unknown> {
    try {
      await task(signal)
      return undefined
    } catch (error) {
      return error ?? new Error(`${name} failed without a reason`)
    }
  }

  private schedule(name: string, delayMs: number, task: (signal: AbortSignal) => Promise<unknown>): void {
    if (this.closed) return
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      void this.tick(name, task).then((nextMs) => this.schedule(name, nextMs, task))
    }, delayMs)
    timer.unref()
    this.timers.add(timer)
  }

  /** One run of a periodic job, under its lease when it has one; the wait before the next. */
  private async tick(name: string, task: (signal: AbortSignal) => Promise<unknown>): Promise<number> {
    const spec = this.spec(name)
    const period = spec.everyMs!
    const health = this.health.get(name) ?? { failures: 0 }
    this.health.set(name, health)
    const controller = new AbortController()
    const work = async (): Promise<unknown> => {
      if (!spec.lease || !this.leases) return this.attempt(name, controller.signal, task)
      const job = spec.lease.job ?? name
      // The lease is kept between runs (a TTL longer than the period keeps the job on this replica); given up at close.
      if (!(await this.leases.acquire(job, spec.lease.ttlMs).catch(() => false))) {
        this.heldLeases.delete(job)
        return undefined
      }
      this.heldLeases.add(job)
      return this.holding(name, job, spec.lease.ttlMs, controller.signal, (signal) => this.attempt(name, signal, task))
    }
    const running = work().then((error) => this.record(name, health, period, spec, error))
    const settled = running.then(() => undefined).finally(() => this.inFlight.delete(settled))
    this.inFlight.set(settled, { name, controller })
    return running
  }

  /** Counts a periodic run's outcome, logs a change between working and failing, and says when to run next. */
  private record(name: string, health: Health, period: number, spec: JobSpec, error: unknown): number {
    if (error === undefined) {
      if (health.failures > 0) this.log(`homeport: ${name} works again, after ${health.failures} failure${health.failures === 1 ? '' : 's'}`)
      health.failures = 0
      return period
    }
    this.failureCounts.set(name, (this.failureCounts.get(name) ?? 0) + 1)
    health.failures++
    const capMs = spec.backoffCapMs ?? period * 16
    const next = Math.min(period * 2 ** health.failures, capMs)
    if (health.failures === 1) {
      this.log(`homeport: ${name} failed, and is tried again in ${seconds(next)}, then less often while it fails (every ${seconds(capMs)} at most): ${describe(error)}`)
    }
    return next
  }

  /** Runs `task` while renewing `job`'s lease; a renewal refused or failed aborts the task, and is logged. */
  private async holding<T>(name: string, job: string, ttlMs: number, outer: AbortSignal, task: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController()
    const stop = () => controller.abort(outer.reason)
    outer.addEventListener('abort', stop, { once: true })
    const renewal = setInterval(() => {
      void this.leases!.acquire(job, ttlMs).then(
        (held) => {
          if (held || controller.signal.aborted) return
          this.log(`homeport: ${name} lost its lease on ${job} to another replica: stopping it here`)
          controller.abort(new Error(`the lease on ${job} was lost`))
        },
        (error: unknown) => {
          if (controller.signal.aborted) return
          this.log(`homeport: ${name} could not renew its lease on ${job}, so stops here: ${(error as Error).message}`)
          controller.abort(new Error(`the lease on ${job} could not be renewed`))
        }
      )
    }, ttlMs / 3)
    renewal.unref()
    try {
      return await task(controller.signal)
    } finally {
      clearInterval(renewal)
      outer.removeEventListener('abort', stop)
    }
  }

  private fail(name: string, error: unknown): void {
    this.failureCounts.set(name, (this.failureCounts.get(name) ?? 0) + 1)
    this.log(`homeport: ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  }
}

const seconds = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`)
const describe = (error: unknown) => (error instanceof Error ? (error.stack ?? error.message) : String(error))
