import { describe, expect, it } from 'vitest'
import { stopInOrder, type SlowWatch } from '../../src-main/server/boot/stop-steps.js'

/** A watch the test fires by hand: `fire()` reports every step still watched. */
function handWatch() {
  const watched = new Set<() => void>()
  const whenSlow: SlowWatch = (report) => {
    watched.add(report)
    return () => watched.delete(report)
  }
  return { whenSlow, fire: () => [...watched].forEach((report) => report()), watching: () => watched.size }
}

describe('stopping in order', () => {
  it('runs each step after the one before has finished, and says which one a slow stop waits for', async () => {
    const { whenSlow, fire, watching } = handWatch()
    const said: string[] = []
    const ran: string[] = []
    let release!: () => void
    const stopping = stopInOrder(
      [
        { waitsFor: 'the first', run: () => Promise.resolve(ran.push('first')) },
        { waitsFor: 'requests in flight to be answered', run: () => new Promise<void>((resolve) => (release = () => (ran.push('second'), resolve()))) },
        { waitsFor: 'the third', run: () => Promise.resolve(ran.push('third')) }
      ],
      (line) => said.push(line),
      whenSlow
    )
    await new Promise((resolve) => setImmediate(resolve))
    expect(ran).toEqual(['first'])
    fire()
    expect(said).toEqual(['homeport: stopping: still waiting for requests in flight to be answered…'])
    release()
    await stopping
    expect(ran).toEqual(['first', 'second', 'third'])
    // The fast steps were never said, and nothing is watched once stopped.
    expect(said).toHaveLength(1)
    expect(watching()).toBe(0)
  })

  it('stops at a step that fails, with its error, and watches nothing after', async () => {
    const { whenSlow, watching } = handWatch()
    const ran: string[] = []
    const stopping = stopInOrder(
      [
        { waitsFor: 'the first', run: () => Promise.reject(new Error('the disk is gone')) },
        { waitsFor: 'the second', run: () => Promise.resolve(ran.push('second')) }
      ],
      () => undefined,
      whenSlow
    )
    await expect(stopping).rejects.toThrow('the disk is gone')
    expect(ran).toEqual([])
    expect(watching()).toBe(0)
  })
})
