/** Where one list's postings are in a PostingLists: `count` of them from `at`, with room for `room`. */
export interface PostingList {
  at: number
  count: number
  room: number
}

/** The room a compacted list keeps beyond its postings (an eighth): the next additions to a long list do not move it. */
const SLACK_SHIFT = 3

/**
 * Many lists of postings (31-bit integers) in one Int32Array. A list costs 4 bytes a posting and its
 * three numbers, where an array of its own cost 56 bytes more and 8 a posting: a registry of 100,000
 * modules has about 200,000 words that only one module holds, and a few dozen that every module does
 * (docs/operations/performance.md, memory). A list that outgrows its room moves to the end with twice
 * the room (or grows where it is, if it is last), so that the room lists leave behind is never more
 * than what they have; `compact`, given every list (only the owner knows them), packs them again.
 */
export class PostingLists {
  /** Where list `l`'s postings are read: `data[l.at]` up to `data[l.at + l.count - 1]`. Replaced by `add` and `compact`: read it again after either. */
  data = new Int32Array(1024)
  /** The first place no list has. */
  private end = 0

  /** Appends `posting` to `list` (a new list is `{ at: 0, count: 0, room: 0 }`). */
  add(list: PostingList, posting: number): void {
    if (list.count === list.room) this.grow(list)
    this.data[list.at + list.count++] = posting
  }

  /** Rewrites `list`'s postings by `rewrite`, dropping those it answers a negative number for. */
  rewrite(list: PostingList, rewrite: (posting: number) => number): void {
    const { data } = this
    let kept = list.at
    for (let place = list.at; place < list.at + list.count; place++) {
      const posting = rewrite(data[place]!)
      if (posting >= 0) data[kept++] = posting
    }
    list.count = kept - list.at
  }

  /** Packs `lists` (every list there is) into a new array, each keeping room for an eighth more than it holds. */
  compact(lists: Iterable<PostingList>): void {
    const all = [...lists]
    let size = 0
    for (const list of all) size += list.count + (list.count >>> SLACK_SHIFT)
    const data = new Int32Array(Math.max(1024, size + (size >>> SLACK_SHIFT)))
    let end = 0
    for (const list of all) {
      data.set(this.data.subarray(list.at, list.at + list.count), end)
      list.at = end
      list.room = list.count + (list.count >>> SLACK_SHIFT)
      end += list.room
    }
    this.data = data
    this.end = end
  }

  /** Doubles `list`'s room: in place if it is last, else at the end, where its postings are copied. */
  private grow(list: PostingList): void {
    const room = Math.max(1, list.room * 2)
    if (list.room > 0 && list.at + list.room === this.end) {
      this.reserve(room - list.room)
      this.end += room - list.room
    } else {
      this.reserve(room)
      this.data.copyWithin(this.end, list.at, list.at + list.count)
      list.at = this.end
      this.end += room
    }
    list.room = room
  }

  /** Makes room for `more` postings past the end. */
  private reserve(more: number): void {
    if (this.end + more <= this.data.length) return
    const data = new Int32Array(Math.max(this.end + more, Math.ceil(this.data.length * 1.5)))
    data.set(this.data.subarray(0, this.end))
    this.data = data
  }
}
