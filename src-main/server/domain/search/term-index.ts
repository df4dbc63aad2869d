import { SortedKeys } from './sorted-keys.js'
import { PostingLists, type PostingList } from './posting-lists.js'

/** The terms a word of a query stands for (itself, and those it starts): a run of the vocabulary. */
interface Expansion {
  from: number
  to: number
}

/**
 * A word, and where its postings are: for each document holding it, `number << FIELD_SHIFT | fields`
 * (its number and the mask of the fields it is in).
 */
interface Term extends PostingList {
  word: string
}

/** The group of a discarded document (until the next sweep renumbers without it). */
const NO_GROUP = 0
/** A posting's low bits: the fields (one bit each, at most 8). */
const FIELD_SHIFT = 8
const FIELD_MASK = (1 << FIELD_SHIFT) - 1
/** Documents are numbered below this: a posting fits a small integer (31 bits) with its fields, and a hit's sort key a double. */
const MOST_DOCUMENTS = 2 ** (30 - FIELD_SHIFT)
/** Scores are whole numbers below this. */
const SCORE_CAP = 2 ** 20
/** Numbers given up (documents discarded or replaced) before the postings are rewritten without them. */
const SWEEP_AT = 0.25

/** What a document is indexed with. */
export interface IndexEntry<D> {
  document: D
  /** What a search is scoped by (an organization's id): a search names the groups it reads. */
  group: string
  /** What ties go by, in string order. */
  order: string
  /** Words a query may be exactly (a module's name's): `score` is told when it is. */
  title: string
  /** Field i's words (the mask's bit i), at most 8 fields. */
  fields: ReadonlyArray<readonly string[]>
}

export interface TermHit<D> {
  document: D
  score: number
  /** The fields some word of the query was found in (a mask: bit i, field i). */
  fields: number
}

/**
 * How a document found by every word of a query ranks, higher first: the sum of what each word counts
 * by the fields it was found in (`word(mask)`, bit i for field i), and `title` more when the document's
 * title is the query's words, in order. Scores are whole numbers; one past 2^20 ranks as 2^20 - 1.
 * Additive, so that a search looks up each word's count in a table made once (a call per document
 * was half a broad search's time).
 */
export interface Scorer {
  word(fields: number): number
  title: number
}

/**
 * An inverted index of documents' words by field, answering the best documents that hold every word of
 * a query (each as a word of theirs or the start of one), ranked by a caller's score of where each word
 * was found, ties in the documents' order. Hand-made: docs/development/decisions.md says why (a
 * library's per-hit work cost a search for a word every module holds about 4 µs a module; this costs a
 * few nanoseconds a posting). What a search touches is in typed arrays by document number, and the
 * arrays it writes are kept from one search to the next: on these machines a fresh array of 100,000
 * numbers cost more than the whole search of them (its memory's first touches).
 */
export class TermIndex<D> {
  private readonly terms = new Map<string, Term>()
  private readonly postings = new PostingLists()
  /** Every term, in its word's string order: a prefix's terms are a run of it. */
  private readonly vocabulary = new SortedKeys<Term>((term) => term.word)
  /** By number; a document discarded leaves a hole until the next sweep. */
  private documents: Array<Pick<IndexEntry<D>, 'document' | 'title'> | undefined> = []
  private readonly numbers = new Map<string, number>()
  private holes = 0
  /** By number: the document's group (groupIds; NO_GROUP once discarded) and its title's hash. */
  private groupOf = new Int32Array(1024)
  private titleHashOf = new Int32Array(1024)
  /** Each group's number, from 1: a discarded document's group is NO_GROUP, which no search reads. */
  private readonly groupIds = new Map<string, number>()
  /** By number, what ties go by: kept for a discarded document until the next sweep, so that the order it has a place in stays sorted. */
  private orders: string[] = []
  /** Numbers in the documents' order (ties), and each number's place in it. */
  private readonly ordered = new SortedKeys<number>((number) => this.orders[number]!)
  private rankOf = new Int32Array(1024)
  private ranked = true
  /** Arrays a search writes, kept between searches: a byte per document per word (zeroed after each), the documents found, their sort keys. */
  private masks: Uint8Array[] = []
  private found = new Int32Array(1024)
  private keys = new Float64Array(1024)

  constructor(private readonly fieldCount: number) {
    if (fieldCount > FIELD_SHIFT) throw new Error(`A term index holds at most ${FIELD_SHIFT} fields`)
  }

  get size(): number {
    return this.numbers.size
  }

  has(id: string): boolean {
    return this.numbers.has(id)
  }

  /** Indexes `entry` under `id`, replacing what was indexed under it. */
  add(id: string, entry: IndexEntry<D>): void {
    this.discard(id)
    if (this.documents.length >= MOST_DOCUMENTS) this.sweep()
    if (this.documents.length >= MOST_DOCUMENTS) throw new Error(`A term index holds at most ${MOST_DOCUMENTS} documents`)
    const number = this.documents.length
    this.documents.push({ document: entry.document, title: entry.title })
    this.orders.push(entry.order)
    this.numbers.set(id, number)
    this.fit(number + 1)
    let group = this.groupIds.get(entry.group)
    if (group === undefined) this.groupIds.set(entry.group, (group = this.groupIds.size + 1))
    this.groupOf[number] = group
    this.titleHashOf[number] = hash(entry.title)
    this.ordered.add(number)
    this.ranked = false
    const masks = new Map<string, number>()
    for (let field = 0; field < this.fieldCount; field++) for (const word of entry.fields[field] ?? []) masks.set(word, (masks.get(word) ?? 0) | (1 << field))
    for (const [word, mask] of masks) {
      let term = this.terms.get(word)
      if (!term) {
        term = { word, at: 0, count: 0, room: 0 }
        this.terms.set(word, term)
        this.vocabulary.add(term)
      }
      this.postings.add(term, (number << FIELD_SHIFT) | mask)
    }
  }

  /** Forgets the document indexed under `id`, if any: its postings stay until the next sweep, and no search finds them. */
  discard(id: string): void {
    const number = this.numbers.get(id)
    if (number === undefined) return
    this.numbers.delete(id)
    this.documents[number] = undefined
    this.groupOf[number] = NO_GROUP
    this.holes++
    if (this.holes > 1000 && this.holes > this.documents.length * SWEEP_AT) this.sweep()
  }

  /** Puts what was added in order now rather than at the next search, and packs the postings (a build's last step). */
  settle(): void {
    this.vocabulary.settle()
    this.rank()
    this.postings.compact(this.terms.values())
  }

  /**
   * The best `limit` documents of `groups` holding every one of `words` (each as a word of their fields
   * or the start of one), best first by `score`, ties in the documents' order; and how many hold them
   * in all. None for no word.
   */
  search(words: readonly string[], groups: ReadonlySet<string>, limit: number, score: Scorer): { hits: Array<TermHit<D>>; total: number } {
    // A byte per group: 1 for those the search reads (never NO_GROUP's).
    const allowed = new Uint8Array(this.groupIds.size + 1)
    let reads = 0
    for (const group of groups) {
      const id = this.groupIds.get(group)
      if (id !== undefined) reads = allowed[id] = 1
    }
    if (words.length === 0 || reads === 0) return { hits: [], total: 0 }
    this.rank()
    const expansions = words.map((word) => this.vocabulary.withPrefix(word))
    const postings = expansions.map(({ from, to }) => {
      let count = 0
      for (let index = from; index < to; index++) count += this.vocabulary.at(index).count
      return count
    })
    // The rarest word first: it lists the candidates, and each other word's postings (read whole) only strike some off.
    const order = words.map((_, index) => index).sort((a, b) => postings[a]! - postings[b]!)
    const masks = this.masksFor(words.length)
    try {
      let count = this.collect(expansions[order[0]!]!, masks[order[0]!]!)
      for (const at of order.slice(1)) {
        if (count === 0) break
        count = this.keep(count, expansions[at]!, masks[at]!)
      }
      return this.best(count, words, masks, allowed, limit, score)
    } finally {
      for (const mask of masks) mask.fill(0)
    }
  }

  /** Marks the fields of the first word's documents in `mask`, and lists them in `found`: how many. */
  private collect({ from, to }: Expansion, mask: Uint8Array): number {
    const { found } = this
    const { data } = this.postings
    let count = 0
    for (let term = from; term < to; term++) {
      const { at, count: postings } = this.vocabulary.at(term)
      for (let place = at; place < at + postings; place++) {
        const posting = data[place]!
        const number = posting >>> FIELD_SHIFT
        if (mask[number] === 0) found[count++] = number
        mask[number]! |= posting & FIELD_MASK
      }
    }
    return count
  }

  /** Marks another word's fields in `mask`, and keeps in `found` those of its `count` documents that hold it: how many. */
  private keep(count: number, { from, to }: Expansion, mask: Uint8Array): number {
    const { data } = this.postings
    for (let term = from; term < to; term++) {
      const { at, count: postings } = this.vocabulary.at(term)
      for (let place = at; place < at + postings; place++) mask[data[place]! >>> FIELD_SHIFT]! |= data[place]! & FIELD_MASK
    }
    const { found } = this
    let kept = 0
    for (let index = 0; index < count; index++) if (mask[found[index]!] !== 0) found[kept++] = found[index]!
    return kept
  }

  /** The best `limit` of the `count` documents found, by a key per document that sorts them as the ranking does (the score, then the order). */
  private best(count: number, words: readonly string[], masks: Uint8Array[], allowed: Uint8Array, limit: number, score: Scorer): { hits: Array<TermHit<D>>; total: number } {
    const title = words.join(' ')
    const titleHash = hash(title)
    const counts = new Float64Array(FIELD_MASK + 1)
    for (let fields = 1; fields <= FIELD_MASK; fields++) counts[fields] = score.word(fields)
    const { found, groupOf, titleHashOf, rankOf, keys } = this
    const most = Math.min(limit, count)
    let kept = 0
    let total = 0
    for (let index = 0; index < count; index++) {
      const number = found[index]!
      if (allowed[groupOf[number]!] === 0) continue
      total++
      let points = 0
      for (let word = 0; word < masks.length; word++) points += counts[masks[word]![number]!]!
      if (titleHashOf[number] === titleHash && this.documents[number]!.title === title) points += score.title
      // A score past the cap (a query of thousands of words, each found) ranks as the cap.
      const key = (SCORE_CAP - 1 - Math.min(points, SCORE_CAP - 1)) * MOST_DOCUMENTS + rankOf[number]!
      if (most === count) keys[kept++] = key
      else if (kept < most || key < keys[kept - 1]!) kept = insert(keys, kept, most, key)
    }
    const sorted = most === count ? keys.subarray(0, kept).sort() : keys.subarray(0, kept)
    const hits: Array<TermHit<D>> = []
    for (const key of sorted) {
      const number = this.ordered.at(key % MOST_DOCUMENTS)
      let fields = 0
      for (const mask of masks) fields |= mask[number]!
      hits.push({ document: this.documents[number]!.document, score: SCORE_CAP - 1 - Math.floor(key / MOST_DOCUMENTS), fields })
    }
    return { hits, total }
  }

  /** Each number's place in the documents' order, after what was added since. */
  private rank(): void {
    if (this.ranked) return
    this.ordered.settle()
    for (let rank = 0; rank < this.ordered.length; rank++) this.rankOf[this.ordered.at(rank)] = rank
    this.ranked = true
  }

  /** `count` zeroed arrays of a byte per document number. */
  private masksFor(count: number): Uint8Array[] {
    while (this.masks.length < count) this.masks.push(new Uint8Array(this.found.length))
    return this.masks.slice(0, count)
  }

  /** Grows the arrays by number to hold `length` documents. */
  private fit(length: number): void {
    if (length <= this.found.length) return
    const size = Math.max(length, Math.ceil(this.found.length * 1.5))
    const grown = (array: Int32Array) => {
      const larger = new Int32Array(size)
      larger.set(array)
      return larger
    }
    this.groupOf = grown(this.groupOf)
    this.titleHashOf = grown(this.titleHashOf)
    this.rankOf = grown(this.rankOf)
    this.found = new Int32Array(size)
    this.keys = new Float64Array(size)
    this.masks = []
  }

  /** Numbers the documents afresh without the holes, and rewrites every posting so (and drops a word no document holds now). */
  private sweep(): void {
    const renumbered = new Int32Array(this.documents.length).fill(-1)
    const documents: Array<Pick<IndexEntry<D>, 'document' | 'title'>> = []
    const orders: string[] = []
    // Renumbered in the order they were numbered: a number only ever moves down, so the arrays by number are rewritten in place.
    for (const [id, number] of [...this.numbers].sort((a, b) => a[1] - b[1])) {
      renumbered[number] = documents.length
      this.groupOf[documents.length] = this.groupOf[number]!
      this.titleHashOf[documents.length] = this.titleHashOf[number]!
      this.numbers.set(id, documents.length)
      documents.push(this.documents[number]!)
      orders.push(this.orders[number]!)
    }
    const emptied: string[] = []
    const renumber = (posting: number) => {
      const number = renumbered[posting >>> FIELD_SHIFT]!
      return number < 0 ? -1 : (number << FIELD_SHIFT) | (posting & FIELD_MASK)
    }
    for (const term of this.terms.values()) {
      this.postings.rewrite(term, renumber)
      if (term.count === 0) emptied.push(term.word)
    }
    for (const word of emptied) this.terms.delete(word)
    this.postings.compact(this.terms.values())
    this.vocabulary.reset(this.terms.values())
    this.documents = documents
    this.orders = orders
    this.ordered.reset(this.numbers.values())
    this.ranked = false
    this.holes = 0
  }
}

/** Puts `key` in its place among the `kept` sorted keys, keeping at most `most`: how many are kept. */
function insert(keys: Float64Array, kept: number, most: number, key: number): number {
  let low = 0
  let high = kept
  while (low < high) {
    const middle = (low + high) >>> 1
    if (keys[middle]! <= key) low = middle + 1
    else high = middle
  }
  const length = Math.min(kept + 1, most)
  keys.copyWithin(low + 1, low, length - 1)
  keys[low] = key
  return length
}

/** A string's 32-bit FNV-1a hash: a title compared as a number first. */
function hash(text: string): number {
  let value = 0x811c9dc5
  for (let index = 0; index < text.length; index++) value = Math.imul(value ^ text.charCodeAt(index), 0x01000193)
  return value | 0
}
