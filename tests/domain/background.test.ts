import { describe, expect, it } from 'vitest'
import { Background } from '../../src-main/server/domain/core/background.js'

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the owner of background work', () => {
  it('catches, logs and counts a failure; nothing escapes as an unhandled rejection', async () => {
    const logged: string[] = []
    const background = new Background((line) => logged.push(line))
    await background.run('git build', () => Promise.reject(new Error('disk full')))
    await background.run('git build', () => {
      throw new Error('again')
    })
    expect(background.failures.get('git build')).toBe(2)
    expect(logged.join('\n')).toMatch(/git build failed: Error: disk full/)
  })

  it('waits at close for the work in flight, and for the work that work starts', async () => {
    const background = new Background(() => undefined)
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
    const background = new Background(() => undefined)
    let running = 0
    let most = 0
    let runs = 0
    background.every('poll', 5, async () => {
      running++
      most = Math.max(most, running)
      runs++
      await tick(20)
      running--
    })
    await tick(120)
    await background.close()
    const after = runs
    expect(most).toBe(1)
    expect(runs).toBeGreaterThan(1)
    await tick(50)
    expect(runs).toBe(after)
    expect(running).toBe(0)
  })
})
