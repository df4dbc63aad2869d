/**
 * Runs `check` until it passes (returns without throwing), at most until `timeoutMs`, and returns what
 * it returned; past the deadline, the last failure is thrown, so the test says what never happened.
 * For what happens off the request path (an ingest, a reconnection), instead of a sleep or a
 * hand-written polling loop. Time-based rules do not need it: they take an injected clock.
 */
export async function eventually<T>(check: () => Promise<T> | T, { timeoutMs = 20_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (Date.now() >= deadline) throw error
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
