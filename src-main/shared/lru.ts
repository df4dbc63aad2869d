/**
 * A map that keeps the most recently used entries within a budget: each entry weighs something
 * (its bytes, or 1 to bound a count), and the least recently used go first when a new one does not
 * fit. The one eviction rule of Homeport's in-memory caches: documentation, the
 * protocol's answers, small stored files, the parser's readings, parsed versions, the file store's
 * records, a PostgreSQL replica's group reads and its archive cache on disk (shared, so that the store,
 * which imports nothing of the domain, has it too).
 */
export class Lru<K, V> {
  private readonly entries = new Map<K, Entry<K, V>>()
  /**
   * The entries in the order of their use, least recent first. A list rather than the map's own
   * order: moving an entry to the end of a Map (delete, then set) leaves a hole that V8 compacts by
   * rebuilding the table, every few reads, which was a thirtieth of a cached protocol answer's time.
   */
  private oldest: Entry<K, V> | undefined
  private newest: Entry<K, V> | undefined
  private total = 0

  constructor(
    private readonly budget: number,
    /** Told of each entry let go to make room (not of those deleted): a cache on disk removes its file. */
    private readonly eviction?: Eviction<K, V>
  ) {}

  get size(): number {
    return this.entries.size
  }

  /** What the entries weigh together. */
  get weight(): number {
    return this.total
  }

  /** Whether there is a value under `key` (which is not used by asking). */
  has(key: K): boolean {
    return this.entries.has(key)
  }

  /** The value under `key`, which is now the most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry !== this.newest) {
      this.unlink(entry)
      this.append(entry)
    }
    return entry.value
  }

  /** Keeps `value` (in place of any under `key`), letting the least recently used go until it fits; one heavier than the whole budget is not kept. */
  set(key: K, value: V, weight = 1): void {
    this.delete(key)
    if (weight > this.budget) return
    while (this.total + weight > this.budget && this.oldest) {
      const { key: oldest, value: old } = this.oldest
      this.delete(oldest)
      this.eviction?.evicted(oldest, old)
    }
    const entry: Entry<K, V> = { key, value, weight, newer: undefined, older: undefined, gone: false }
    this.entries.set(key, entry)
    this.append(entry)
    this.total += weight
  }

  delete(key: K): void {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    this.unlink(entry)
    entry.gone = true
    this.total -= entry.weight
  }

  clear(): void {
    for (const entry of this.entries.values()) entry.gone = true
    this.entries.clear()
    this.oldest = this.newest = undefined
    this.total = 0
  }

  /** Every entry, least recently used first; deleting the one at hand while iterating is safe. */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (let entry = this.oldest; entry; ) {
      // Read before yielding: the entry may be deleted, or used and so moved to the end, meanwhile.
      let next = entry.newer
      yield [entry.key, entry.value]
      // A deleted entry keeps the links it had: they lead on to one still here.
      while (next?.gone) next = next.newer
      entry = next
    }
  }

  private append(entry: Entry<K, V>): void {
    entry.older = this.newest
    entry.newer = undefined
    if (this.newest) this.newest.newer = entry
    else this.oldest = entry
    this.newest = entry
  }

  private unlink(entry: Entry<K, V>): void {
    if (entry.older) entry.older.newer = entry.newer
    else this.oldest = entry.newer
    if (entry.newer) entry.newer.older = entry.older
    else this.newest = entry.older
  }
}

/** A method, not a function property, so that an Lru of records is still read as an Lru of what they extend. */
interface Eviction<K, V> {
  evicted(key: K, value: V): void
}

interface Entry<K, V> {
  key: K
  value: V
  weight: number
  newer: Entry<K, V> | undefined
  older: Entry<K, V> | undefined
  /** Deleted: an iteration that reaches it follows its links on (see the iterator). */
  gone: boolean
}
