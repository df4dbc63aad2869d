/** How many failures in a row take the upstream offline: one slow or failed answer is not an outage. */
export const FAILURES_TO_OPEN = 3

/**
 * The upstream's circuit breaker. Closed, every request goes to the upstream. After FAILURES_TO_OPEN
 * failures in a row (no answer, or a 5xx) it opens: for `retryMs` nothing is asked and Homeport
 * answers from what it holds, at once. Then it is half-open: one request probes the upstream while
 * the others still answer at once; the probe's answer closes it, its failure opens it again. Any
 * answer resets the count, so a path that hangs now and then never takes the others offline.
 */
export class Breaker {
  private failures = 0
  private openedAt: number | undefined
  /** When the half-open breaker let its probe through; a probe that never settles stops holding it after `retryMs`. */
  private probeAt: number | undefined
  /** Whether the last request answered; undefined until one is made. */
  private answered: boolean | undefined

  constructor(
    private readonly retryMs: number,
    private readonly clock: () => number
  ) {}

  /** Whether the upstream is known to answer: it did last time, and the breaker is closed. */
  get reachable(): boolean {
    return this.answered === true && this.openedAt === undefined
  }

  /** Whether a request may go to the upstream now; a half-open breaker lets one through (the probe). */
  admits(): boolean {
    if (this.openedAt === undefined) return true
    const now = this.clock()
    if (now - this.openedAt < this.retryMs || (this.probeAt !== undefined && now - this.probeAt < this.retryMs)) return false
    this.probeAt = now
    return true
  }

  /** What a request that went through came to. */
  settle(answered: boolean): void {
    this.answered = answered
    this.probeAt = undefined
    if (answered) {
      this.failures = 0
      this.openedAt = undefined
      return
    }
    this.failures++
    if (this.openedAt !== undefined || this.failures >= FAILURES_TO_OPEN) this.openedAt = this.clock()
  }
}
