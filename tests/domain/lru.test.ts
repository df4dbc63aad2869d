import { describe, expect, it } from 'vitest'
import { Lru } from '../../src-main/shared/lru.js'

describe('the caches’ eviction (Lru)', () => {
  it('keeps entries within their weight, letting the least recently used go first', () => {
    const lru = new Lru<string, string>(10)
    lru.set('a', 'A', 4)
    lru.set('b', 'B', 4)
    expect(lru.get('a')).toBe('A') // a is now the most recently used
    lru.set('c', 'C', 4) // b goes
    expect([...lru].map(([key]) => key)).toEqual(['a', 'c'])
    expect({ size: lru.size, weight: lru.weight }).toEqual({ size: 2, weight: 8 })
  })

  it('bounds a count when entries weigh 1', () => {
    const lru = new Lru<number, number>(3)
    for (let n = 0; n < 5; n++) lru.set(n, n)
    expect([...lru].map(([key]) => key)).toEqual([2, 3, 4])
  })

  it('weighs a replaced entry once, and does not keep one heavier than the whole budget', () => {
    const lru = new Lru<string, string>(10)
    lru.set('a', 'first', 6)
    lru.set('a', 'second', 3)
    expect({ value: lru.get('a'), weight: lru.weight }).toEqual({ value: 'second', weight: 3 })
    lru.set('huge', 'x', 11)
    expect(lru.get('huge')).toBeUndefined()
    expect(lru.weight).toBe(3)
  })

  it('lets entries be deleted while it is walked, and cleared at once', () => {
    const lru = new Lru<number, number>(10)
    for (let n = 0; n < 5; n++) lru.set(n, n, 2)
    for (const [key] of lru) if (key % 2 === 0) lru.delete(key)
    expect([...lru].map(([key]) => key)).toEqual([1, 3])
    expect(lru.weight).toBe(4)
    lru.clear()
    expect({ size: lru.size, weight: lru.weight }).toEqual({ size: 0, weight: 0 })
  })

  it('walks on past entries deleted and used while it is walked, and a used entry is the most recent', () => {
    const lru = new Lru<number, number>(10)
    for (let n = 0; n < 6; n++) lru.set(n, n)
    const seen: number[] = []
    for (const [key] of lru) {
      seen.push(key)
      // The next one and the one after go, and the one at hand is used.
      if (key === 1) {
        lru.delete(2)
        lru.delete(3)
        lru.get(1)
      }
    }
    // Used, 1 became the most recent, and is met again at the end, as in a Map moved by delete and set.
    expect(seen).toEqual([0, 1, 4, 5, 1])
    expect([...lru].map(([key]) => key)).toEqual([0, 4, 5, 1])
    lru.get(0)
    lru.set(6, 6, 9) // the least recently used go until it fits: 4, 5, 1
    expect([...lru].map(([key]) => key)).toEqual([0, 6])
  })

  it('tells of each entry it lets go to make room, and of none deleted by hand', () => {
    const evicted: Array<[string, number]> = []
    const lru = new Lru<string, number>(10, { evicted: (key, value) => evicted.push([key, value]) })
    lru.set('a', 1, 4)
    lru.set('b', 2, 4)
    lru.delete('b')
    lru.set('b', 2, 4)
    lru.get('a')
    lru.set('c', 3, 5)
    expect(evicted).toEqual([['b', 2]])
    lru.set('d', 4, 11)
    expect(evicted).toEqual([['b', 2]])
  })
})
