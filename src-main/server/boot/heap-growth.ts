import { setFlagsFromString } from 'node:v8'

/** How much larger than what it holds V8 lets the heap grow before its next full collection: as much again. */
const HEAP_GROWING_PERCENT = 100
const FLAG = '--heap-growing-percent'

/**
 * Bounds how far the JavaScript heap grows past what it holds, for the life of the process (the
 * desktop app's main process, or `homeport`'s). V8 otherwise picks the factor itself, up to 4 × on a
 * machine with this much memory. At 100,000 modules on PostgreSQL the search index build's garbage left a
 * 310 MB heap holding 120 MB (420 MB resident); grown to twice what it holds at most, 220 MB (305 MB
 * resident). Half again saved 30 MB more, and cost searches a third more time at the median in more
 * full collections (docs/development/decisions.md). A `--heap-growing-percent` given to Node is kept.
 */
export function boundHeapGrowth(): void {
  // Node refuses the flag in NODE_OPTIONS: on its command line is the one place it can be given.
  const given = process.execArgv.some((flag) => flag.startsWith(FLAG))
  // The flag is read at each full collection: set before the heap grows, it holds from then on.
  if (!given) setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`)
}
