/**
 * The first place in [0, length) that is not `before` what is looked for, in an order where every place
 * that is comes first: a sorted array's lower bound, by binary search. The one binary search of the
 * in-memory indexes (the term index's words, the module list's order, ranks of keys).
 */
export function lowerBound(length: number, before: (place: number) => boolean): number {
  let low = 0
  let high = length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (before(middle)) low = middle + 1
    else high = middle
  }
  return low
}
