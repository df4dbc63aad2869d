/** The time as this turn of the event loop first asked for it; undefined until it does. */
let now: number | undefined

/**
 * The time, read once a turn of the event loop and forgotten when the turn's I/O is done (an
 * immediate runs then): for what is asked many times a turn and needs the time to within a turn,
 * which lasts milliseconds. The protocol cache's expiries and the day a download is counted on
 * use it: under load a turn answers some thirty requests, and on the benchmark's virtual machines
 * `Date.now()` costs 50-80 ns, a tenth of a cached answer's own work.
 */
export function turnTime(): number {
  if (now === undefined) {
    now = Date.now()
    setImmediate(forget)
  }
  return now
}

function forget(): void {
  now = undefined
}
