import { setFlagsFromString } from 'node:v8'

/** How much larger than what it holds V8 lets the heap grow before its next full collection: half again. */
const HEAP_GROWING_PERCENT = 50
const FLAG = '--heap-growing-percent'

/**
 * Bounds how far the JavaScript heap grows past what it holds, for the life of the process (the
 * desktop app's main process, or `homeport`'s). V8 otherwise picks the factor itself, up to 4 × on a
 * machine with this much memory. At 100,000 modules on PostgreSQL, the search index build's garbage left a
 * 310 MB heap holding 120 MB, and 420 MB resident. With half again, that is 190 MB and 275 MB resident,
 * at no cost measured in the benchmark's latencies (docs/operations/performance.md, memory).
 * A `--heap-growing-percent` given to Node itself is kept.
 */
export function boundHeapGrowth(): void {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((flag) => flag.startsWith(FLAG))
  // The flag is read at each full collection: set before the heap grows, it holds from then on.
  if (!given) setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`)
}
