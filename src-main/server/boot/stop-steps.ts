/** After how long a step of stopping is said to be what the stop waits for. */
const SLOW_STEP_MS = 5_000

/**
 * Calls `report` if a step is still running after a while, unless cancelled first: a time-out of
 * SLOW_STEP_MS unless a test says when.
 */
export type SlowWatch = (report: () => void) => () => void
const afterAWhile: SlowWatch = (report) => {
  const timer = setTimeout(report, SLOW_STEP_MS)
  timer.unref()
  return () => clearTimeout(timer)
}

export interface StopStep {
  /** What the stop waits for while this step runs, said as "waiting for …". */
  waitsFor: string
  run(): Promise<unknown>
}

/**
 * Runs the steps of stopping one after another. One that takes a while is said (`say`), so that a
 * stop that seems stuck (a Ctrl-C with no answer, a test's close timing out) tells what it waits for.
 */
export async function stopInOrder(steps: readonly StopStep[], say: (line: string) => void, whenSlow: SlowWatch = afterAWhile): Promise<void> {
  for (const step of steps) {
    const cancel = whenSlow(() => say(`homeport: stopping: still waiting for ${step.waitsFor}…`))
    try {
      await step.run()
    } finally {
      cancel()
    }
  }
}
