/**
 * Runs async tasks one at a time, in the order they were queued. A failed task rejects its own
 * caller only; the queue goes on with the next one.
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private pending = 0

  run<T>(task: () => Promise<T>): Promise<T> {
    this.pending++
    const result = this.tail.then(task)
    this.tail = result.then(
      () => this.pending--,
      () => this.pending--
    )
    return result
  }

  /** Resolves once every task queued so far has finished. */
  async drain(): Promise<void> {
    while (this.pending > 0) await this.tail
  }
}
