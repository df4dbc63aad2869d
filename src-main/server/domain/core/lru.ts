/**
 * A map that keeps the most recently used entries within a budget: each entry weighs something
 * (its bytes, or 1 to bound a count), and the least recently used go first when a new one does not
 * fit. The one eviction rule of Homeport's in-memory caches: documentation, the protocol's answers,
 * small stored files.
 */
export class Lru<K, V> {
  private readonly entries = new Map<K, { value: V; weight: number }>()
  private total = 0

  constructor(private readonly budget: number) {}

  get size(): number {
    return this.entries.size
  }

  /** What the entries weigh together. */
  get weight(): number {
    return this.total
  }

  /** The value under `key`, which is now the most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    // Most recently used last: eviction takes from the front.
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  /** Keeps `value` (in place of any under `key`), letting the least recently used go until it fits; one heavier than the whole budget is not kept. */
  set(key: K, value: V, weight = 1): void {
    this.delete(key)
    if (weight > this.budget) return
    while (this.total + weight > this.budget && this.entries.size > 0) {
      const [oldest, dropped] = this.entries.entries().next().value!
      this.entries.delete(oldest)
      this.total -= dropped.weight
    }
    this.entries.set(key, { value, weight })
    this.total += weight
  }

  delete(key: K): void {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    this.total -= entry.weight
  }

  clear(): void {
    this.entries.clear()
    this.total = 0
  }

  /** Every entry, least recently used first; deleting the one at hand while iterating is safe. */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (const [key, entry] of this.entries) yield [key, entry.value]
  }
}
