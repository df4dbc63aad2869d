import { afterEach, describe, expect, it, vi } from 'vitest'
import { turnTime } from '../../src-main/server/domain/core/turn-clock.js'

afterEach(() => {
  vi.useRealTimers()
})

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe('the time of a turn of the event loop', () => {
  it('is read once a turn: the same however the clock moves within it, and read anew in the next', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    await nextTurn()
    vi.setSystemTime(new Date('2026-11-27T10:00:00.000Z'))
    const first = turnTime()
    expect(first).toBe(Date.parse('2026-11-27T10:00:00.000Z'))
    vi.setSystemTime(new Date('2026-11-27T10:00:05.000Z'))
    expect(turnTime()).toBe(first)
    await nextTurn()
    expect(turnTime()).toBe(Date.parse('2026-11-27T10:00:05.000Z'))
  })
})
