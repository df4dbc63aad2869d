import { lowerBound } from '../core/lower-bound.js'

/** Items added since the order was last settled, up to which each is put in its place (an array's move); more are sorted and merged. */
const FEW = 64

/**
 * Items kept in the string order of a key of theirs, where adding one does not re-sort the rest: what
 * is added waits until the order is next read (`settle`), then a few are put in place one by one and
 * many are sorted among themselves and merged, so a build of 100,000 costs one sort and a single
 * write one array move.
 */
export class SortedKeys<T> {
  private sorted: T[] = []
  private pending: T[] = []

  constructor(private readonly keyOf: (item: T) => string) {}

  add(item: T): void {
    this.pending.push(item)
  }

  /** Replaces every item with `items`. */
  reset(items: Iterable<T>): void {
    this.sorted = [...items].sort(this.compare)
    this.pending = []
  }

  /** How many items, once settled. */
  get length(): number {
    this.settle()
    return this.sorted.length
  }

  /** The item at `index` in order (settle first). */
  at(index: number): T {
    return this.sorted[index]!
  }

  /** Where the items whose key starts with `prefix` are, in order: from `from` up to `to` (settled, for `at`). */
  withPrefix(prefix: string): { from: number; to: number } {
    this.settle()
    const from = this.firstNotBefore(prefix)
    // Found by halves too: a prefix of one letter can start tens of thousands of keys.
    const to = from + lowerBound(this.sorted.length - from, (place) => this.keyOf(this.sorted[from + place]!).startsWith(prefix))
    return { from, to }
  }

  /** Puts what was added in its place. */
  settle(): void {
    const { pending } = this
    if (pending.length === 0) return
    this.pending = []
    if (pending.length <= FEW) {
      for (const item of pending) this.sorted.splice(this.firstNotBefore(this.keyOf(item)), 0, item)
      return
    }
    pending.sort(this.compare)
    const merged: T[] = []
    let left = 0
    let right = 0
    while (left < this.sorted.length && right < pending.length) merged.push(this.compare(this.sorted[left]!, pending[right]!) <= 0 ? this.sorted[left++]! : pending[right++]!)
    while (left < this.sorted.length) merged.push(this.sorted[left++]!)
    while (right < pending.length) merged.push(pending[right++]!)
    this.sorted = merged
  }

  /** The first place whose key is not before `key`. */
  private firstNotBefore(key: string): number {
    return lowerBound(this.sorted.length, (place) => this.keyOf(this.sorted[place]!) < key)
  }

  private readonly compare = (a: T, b: T): number => {
    const left = this.keyOf(a)
    const right = this.keyOf(b)
    return left < right ? -1 : left > right ? 1 : 0
  }
}
