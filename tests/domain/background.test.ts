import { afterEach, describe, expect, it, vi } from 'vitest'
import { Background, type JobTable } from '../../src-main/server/domain/core/background.js'
import type { Leases } from '../../src-main/server/store/port.js'

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Leases as a second replica sees them: `taken` jobs are another's, and a renewal can be refused from outside. */
class FakeLeases implements Leases {
  readonly taken = new Set<string>()
  readonly held = new Set<string>()
  readonly asked: string[] = []
  acquire(job: string): Promise<boolean> {
    this.asked.push(job)
    if (this.taken.has(job)) {
      this.held.delete(job)
      return Promise.resolve(false)
    }
    this.held.add(job)
    return Promise.resolve(true)
  }
  release(job: string): Promise<void> {
    this.held.delete(job)
    return Promise.resolve()
  }
}

function owner(jobs: JobTable, leases?: Leases) {
  const logged: string[] = []
  return { background: new Background({ jobs, leases, log: (line) => logged.push(line) }), logged }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('the owner of background work', () => {
  it('catches, logs and counts a failure; nothing escapes as an unhandled rejection', async () => {
    const { background, logged } = owner({ 'git build': { trigger: 'a tag' } })
    await background.run('git build', () => Promise.reject(new Error('disk full')))
    await background.run('git build', () => {
      throw new Error('again')
    })
    expect(background.failures.get('git build')).toBe(2)
    expect(logged.join('\n')).toMatch(/git build failed: Error: disk full/)
  })

  it('refuses a job the table does not declare', () => {
    const { background } = owner({ ingest: { trigger: 'an archive' } })
    expect(() => background.run('ingset', () => Promise.resolve())).toThrow(/"ingset" is not in the jobs table/)
    expect(() => background.every('ingest', () => Promise.resolve())).toThrow(/gives ingest no period/)
  })

  it('waits at close for the work in flight, and for the work that work starts', async () => {
    const { background } = owner({ sync: {}, build: {}, ingest: {} })
    const done: string[] = []
    void background.run('sync', async () => {
      await tick(30)
      done.push('sync')
      void background.run('build', async () => {
        await tick(30)
        done.push('build')
        void background.run('ingest', async () => {
          await tick(30)
          done.push('ingest')
        })
      })
    })
    await background.close()
    expect(done).toEqual(['sync', 'build', 'ingest'])
  })

  it('runs a periodic task one at a time, and never again after close', async () => {
    vi.useFakeTimers()
    const { background } = owner({ poll: { everyMs: 5 } })
    let running = 0
    let most = 0
    let runs = 0
    background.every('poll', async () => {
      running++
      most = Math.max(most, running)
      runs++
      await tick(20)
      running--
    })
    await vi.advanceTimersByTimeAsync(120)
    const closed = background.close()
    await vi.advanceTimersByTimeAsync(20)
    await closed
    const after = runs
    expect(most).toBe(1)
    expect(runs).toBeGreaterThan(1)
    await vi.advanceTimersByTimeAsync(100)
    expect(runs).toBe(after)
    expect(running).toBe(0)
  })

  it('backs off a failing periodic job, capped, says so once, and once more when it works again', async () => {
    vi.useFakeTimers()
    const { background, logged } = owner({ flush: { everyMs: 1000, backoffCapMs: 8000 } })
    const started: number[] = []
    let failuresLeft = 5
    background.every('flush', () => {
      started.push(Date.now())
      return failuresLeft-- > 0 ? Promise.reject(new Error('disk full')) : Promise.resolve()
    })
    const origin = Date.now()
    await vi.advanceTimersByTimeAsync(1000 + 2000 + 4000 + 8000 + 8000 + 8000 + 1000)
    await background.close()
    const gaps = started.map((at, index) => at - (index === 0 ? origin : started[index - 1]!))
    // The first run after a period; after each failure in a row the wait doubles, up to the cap; back to the period once it works.
    expect(gaps).toEqual([1000, 2000, 4000, 8000, 8000, 8000, 1000])
    expect(background.failures.get('flush')).toBe(5)
    expect(logged.filter((line) => /flush failed/.test(line))).toHaveLength(1)
    expect(logged.join('\n')).toMatch(/flush failed, and is tried again in 2 s, then less often while it fails \(every 8 s at most\): Error: disk full/)
    expect(logged.filter((line) => /flush works again, after 5 failures/.test(line))).toHaveLength(1)
  })

  it('cancels at close, after a grace period, what is still running: the task and what it reaches get the signal', async () => {
    vi.useFakeTimers()
    const { background, logged } = owner({ bundle: { trigger: 'asked for' } })
    let seen: AbortSignal | undefined
    void background.run('bundle', (signal) => {
      seen = signal
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)))
    })
    const closed = background.close(5000)
    await vi.advanceTimersByTimeAsync(4999)
    expect(seen?.aborted).toBe(false)
    // What the task reaches without its signal (an upstream fetch, a clone) is built with `stopping`.
    expect(background.stopping.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await closed
    expect(seen?.aborted).toBe(true)
    expect(background.stopping.aborted).toBe(true)
    expect(background.stopping.reason).toBe(seen?.reason)
    expect(logged.join('\n')).toMatch(/cancelling bundle after 5 s/)
  })

  it('cancels at once at close what nothing needs finished, and logs no failure for it', async () => {
    vi.useFakeTimers()
    const { background, logged } = owner({ 'search index build': { cancelledAtClose: true }, bundle: { trigger: 'asked for' } })
    const signals: AbortSignal[] = []
    const stoppable = (signal: AbortSignal) => {
      signals.push(signal)
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)))
    }
    void background.run('search index build', stoppable)
    void background.run('bundle', stoppable)
    let closed = false
    void background.close(5000).then(() => (closed = true))
    await vi.advanceTimersByTimeAsync(0)
    expect(signals.map((signal) => signal.aborted)).toEqual([true, false])
    expect(closed).toBe(false)
    await vi.advanceTimersByTimeAsync(5000)
    expect(closed).toBe(true)
    expect(logged.join('\n')).toMatch(/cancelling bundle after 5 s/)
    expect(logged.join('\n')).not.toMatch(/search index build/)
    expect(background.failures.size).toBe(0)
  })

  it('stops waiting, and says for what, when a cancelled task does not stop', async () => {
    vi.useFakeTimers()
    const { background, logged } = owner({ 'git build': {} })
    void background.run('git build', () => new Promise(() => undefined))
    const closed = background.close(1000)
    await vi.advanceTimersByTimeAsync(2000)
    await closed
    expect(logged.join('\n')).toMatch(/stopping without waiting for git build/)
  })

  it('runs a leased periodic job only while this replica holds the lease, and gives it up at close', async () => {
    vi.useFakeTimers()
    const leases = new FakeLeases()
    const { background } = owner({ 'git poll': { everyMs: 1000, lease: { job: 'git-poll', ttlMs: 2000 } } }, leases)
    let runs = 0
    background.every('git poll', () => {
      runs++
      return Promise.resolve()
    })
    await vi.advanceTimersByTimeAsync(2000)
    expect(runs).toBe(2)
    leases.taken.add('git-poll')
    await vi.advanceTimersByTimeAsync(3000)
    expect(runs).toBe(2)
    leases.taken.delete('git-poll')
    await vi.advanceTimersByTimeAsync(1000)
    expect(runs).toBe(3)
    await background.close()
    expect(leases.held.has('git-poll')).toBe(false)
  })

  it('renews a lease while its task runs, and stops the task when the lease is lost', async () => {
    vi.useFakeTimers()
    const leases = new FakeLeases()
    const { background, logged } = owner({ ingest: { lease: { ttlMs: 3000 } } }, leases)
    let stopped: unknown
    const outer = new AbortController()
    const result = background.withLease('ingest', 'v1', outer.signal, (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve((stopped = signal.reason)))))
    await vi.advanceTimersByTimeAsync(2000)
    expect(leases.asked.filter((job) => job === 'ingest:v1')).toHaveLength(3) // taken, then renewed every third of the TTL
    leases.taken.add('ingest:v1')
    await vi.advanceTimersByTimeAsync(1000)
    await result
    expect(String(stopped)).toMatch(/lease on ingest:v1 was lost/)
    expect(logged.join('\n')).toMatch(/ingest lost its lease on ingest:v1 to another replica/)
  })

  it('leaves an item whose lease another replica holds, and gives a lease up after the task', async () => {
    const leases = new FakeLeases()
    const { background } = owner({ ingest: { lease: { ttlMs: 3000 } } }, leases)
    leases.taken.add('ingest:v1')
    let ran = false
    expect(await background.withLease('ingest', 'v1', new AbortController().signal, () => Promise.resolve((ran = true)))).toBeUndefined()
    expect(ran).toBe(false)
    expect(await background.withLease('ingest', 'v2', new AbortController().signal, () => Promise.resolve('done'))).toBe('done')
    expect(leases.held.has('ingest:v2')).toBe(false)
  })
})
