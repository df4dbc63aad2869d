import { describe, expect, it } from 'vitest'
import { BestOf } from '../../src-main/shared/best-of.js'

describe('the best of many', () => {
  const byScore = (a: { score: number; at: number }, b: { score: number; at: number }) => b.score - a.score

  it('keeps the first `limit` in order, as a whole sort would, ties in the order they came', () => {
    const items = Array.from({ length: 500 }, (_, at) => ({ score: (at * 7919) % 13, at }))
    const sorted = [...items].sort(byScore)
    for (const limit of [1, 5, 25, 499, 500, 600, Infinity]) {
      const best = new BestOf(limit, byScore)
      for (const item of items) best.offer(item)
      expect(best.sorted()).toEqual(sorted.slice(0, limit))
    }
  })

  it('keeps nothing of nothing', () => {
    expect(new BestOf(3, byScore).sorted()).toEqual([])
  })
})
