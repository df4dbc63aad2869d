import { describe, expect, it } from 'vitest'
import { Breaker, FAILURES_TO_OPEN } from '../../src-main/server/domain/upstream/breaker.js'

/** The upstream's circuit breaker, on an injected clock. */
describe('the upstream breaker', () => {
  const RETRY = 30_000

  it('stays closed through failures that are not in a row: one slow path never takes the others offline', () => {
    let now = 0
    const breaker = new Breaker(RETRY, () => now)
    for (let round = 0; round < 10; round++) {
      for (let failure = 1; failure < FAILURES_TO_OPEN; failure++) {
        expect(breaker.admits()).toBe(true)
        breaker.settle(false)
      }
      breaker.settle(true)
      now += 1000
    }
    expect(breaker.admits()).toBe(true)
    expect(breaker.reachable).toBe(true)
  })

  it('opens after failures in a row, lets one probe through once the wait is over, and closes on its answer', () => {
    let now = 0
    const breaker = new Breaker(RETRY, () => now)
    for (let failure = 0; failure < FAILURES_TO_OPEN; failure++) breaker.settle(false)
    expect(breaker.reachable).toBe(false)
    expect(breaker.admits()).toBe(false)
    now += RETRY
    expect(breaker.admits()).toBe(true)
    // While the probe is out, the others answer from what Homeport holds.
    expect(breaker.admits()).toBe(false)
    breaker.settle(false)
    expect(breaker.admits()).toBe(false)
    now += RETRY
    expect(breaker.admits()).toBe(true)
    breaker.settle(true)
    expect(breaker.reachable).toBe(true)
    expect(breaker.admits()).toBe(true)
  })

  it('lets another probe through when one never settles', () => {
    let now = 0
    const breaker = new Breaker(RETRY, () => now)
    for (let failure = 0; failure < FAILURES_TO_OPEN; failure++) breaker.settle(false)
    now += RETRY
    expect(breaker.admits()).toBe(true)
    now += RETRY - 1
    expect(breaker.admits()).toBe(false)
    now += 1
    expect(breaker.admits()).toBe(true)
  })
})
