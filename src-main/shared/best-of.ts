/**
 * The first `limit` of many items in an order, kept as they come: a search that shows 25 of 100,000
 * hits keeps 25 in order (one comparison for most hits, against the last kept) rather than sorting
 * them all. With no limit it keeps them all and sorts once.
 */
export class BestOf<T> {
  private readonly kept: T[] = []

  constructor(
    private readonly limit: number,
    private readonly compare: (a: T, b: T) => number
  ) {}

  offer(item: T): void {
    const { kept, limit, compare } = this
    if (limit === Infinity) {
      kept.push(item)
      return
    }
    if (kept.length >= limit && compare(item, kept[kept.length - 1]!) >= 0) return
    // Where it goes: after every kept item not after it (a tie keeps the order items came in).
    let low = 0
    let high = kept.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (compare(kept[middle]!, item) <= 0) low = middle + 1
      else high = middle
    }
    kept.splice(low, 0, item)
    if (kept.length > limit) kept.pop()
  }

  /** What was kept, in order. */
  sorted(): T[] {
    return this.limit === Infinity ? this.kept.sort(this.compare) : this.kept
  }
}
