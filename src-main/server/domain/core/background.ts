/**
 * The one owner of work that runs off the request path: ingest, git syncs and builds, the
 * download-count flush, start-up recovery. Nothing starts such work but through it, so nothing
 * outlives the server, and a failure is logged and counted, never an unhandled rejection that
 * takes the process down (or, in the desktop app, an error dialog).
 *
 * - `run` starts a task once: caught, logged, counted, and awaited by `close`;
 * - `every` runs a task every so many milliseconds, never two at once, on an unref'd timer;
 * - `close` stops the timers, then waits for every task in flight, including those that tasks
 *   in flight start meanwhile (a sync starts builds, a build starts an ingest).
 */
export class Background {
  private readonly inFlight = new Set<Promise<void>>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly failureCounts = new Map<string, number>()
  private closed = false

  constructor(private readonly log: (message: string) => void = (message) => console.error(message)) {}

  /** Starts `task` now; resolves when it is done, whether it succeeded or not (it never rejects). */
  run(name: string, task: () => Promise<unknown>): Promise<void> {
    const running = Promise.resolve()
      .then(task)
      .then(
        () => undefined,
        (error: unknown) => this.fail(name, error)
      )
      .finally(() => this.inFlight.delete(running))
    this.inFlight.add(running)
    return running
  }

  /** Runs `task` every `intervalMs` (the first time after one interval) until `close`. */
  every(name: string, intervalMs: number, task: () => Promise<unknown>): void {
    if (this.closed) return
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      void this.run(name, task).then(() => this.every(name, intervalMs, task))
    }, intervalMs)
    timer.unref()
    this.timers.add(timer)
  }

  /** How often each kind of task has failed since the server started. */
  get failures(): ReadonlyMap<string, number> {
    return this.failureCounts
  }

  /** Stops the timers, then waits until no task is left. */
  async close(): Promise<void> {
    this.closed = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    while (this.inFlight.size > 0) await Promise.all(this.inFlight)
  }

  private fail(name: string, error: unknown): void {
    this.failureCounts.set(name, (this.failureCounts.get(name) ?? 0) + 1)
    this.log(`homeport: ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  }
}
