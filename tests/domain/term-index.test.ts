import { describe, expect, it } from 'vitest'
import { SortedKeys } from '../../src-main/server/domain/search/sorted-keys.js'
import { TermIndex, type Scorer } from '../../src-main/server/domain/search/term-index.js'

/** Two fields: a word in the first counts 10, in the second 1; a title that is the query, 100 more. */
const score: Scorer = { word: (fields) => (fields & 1 ? 10 : fields & 2 ? 1 : 0), title: 100 }

function entry(id: string, title: string, body: string, group = 'a') {
  return { document: id, group, order: id, title, fields: [title.split(' '), body.split(' ').filter((word) => word !== '')] }
}

const ids = (index: TermIndex<string>, words: string[], limit = Infinity, groups: ReadonlySet<string> = new Set(['a', 'b'])) => index.search(words, groups, limit, score).hits.map((hit) => hit.document)

describe('the term index', () => {
  it('ranks by the caller’s score of where each word was found, ties in the documents’ order, with how many hold every word', () => {
    const index = new TermIndex<string>(2)
    index.add('m3', entry('m3', 'queue', 'a queue of messages'))
    index.add('m1', entry('m1', 'vpc', 'a network with a queue'))
    index.add('m2', entry('m2', 'queue worker', 'messages'))
    const { hits, total } = index.search(['queue'], new Set(['a']), Infinity, score)
    expect(total).toBe(3)
    // m3's title is the query: 110; m2's title holds it: 10; m1's body: 1.
    expect(hits).toEqual([
      { document: 'm3', score: 110, fields: 3 },
      { document: 'm2', score: 10, fields: 1 },
      { document: 'm1', score: 1, fields: 2 }
    ])
    expect(ids(index, ['queue', 'messages'])).toEqual(['m2', 'm3'])
    expect(ids(index, ['a'])).toEqual(['m1', 'm3'])
    expect(ids(index, ['kafka'])).toEqual([])
    expect(ids(index, [])).toEqual([])
  })

  it('finds a word by its start, and keeps the best few of many in order whichever way it keeps them', () => {
    const index = new TermIndex<string>(2)
    const names = Array.from({ length: 300 }, (_, n) => `m${String(n).padStart(3, '0')}`)
    // Added out of order: ties go by the documents' order, not by when they came.
    for (const id of [...names].reverse()) index.add(id, entry(id, `net${id}`, Number(id.slice(1)) % 3 === 0 ? 'network' : 'netbox'))
    const all = ids(index, ['net'])
    expect(all).toEqual(names)
    expect(ids(index, ['net'], 5)).toEqual(names.slice(0, 5))
    expect(ids(index, ['netw'], 3)).toEqual(['m000', 'm003', 'm006'])
    expect(index.search(['netw'], new Set(['a']), 3, score).total).toBe(100)
    expect(ids(index, ['netx'])).toEqual([])
  })

  it('answers for the groups it is asked about only', () => {
    const index = new TermIndex<string>(2)
    index.add('m1', entry('m1', 'vpc', '', 'a'))
    index.add('m2', entry('m2', 'vpc', '', 'b'))
    expect(ids(index, ['vpc'], Infinity, new Set(['b']))).toEqual(['m2'])
    expect(ids(index, ['vpc'], Infinity, new Set(['c']))).toEqual([])
  })

  it('tells the score a title is the query only when it is, word for word', () => {
    const index = new TermIndex<string>(2)
    index.add('m1', entry('m1', 's3 bucket', ''))
    expect(index.search(['s3', 'bucket'], new Set(['a']), 1, score).hits[0]!.score).toBe(120)
    expect(index.search(['bucket', 's3'], new Set(['a']), 1, score).hits[0]!.score).toBe(20)
    expect(index.search(['s3', 'buck'], new Set(['a']), 1, score).hits[0]!.score).toBe(20)
  })

  it('replaces and discards documents, and still answers after sweeping away what they left', () => {
    const index = new TermIndex<string>(2)
    for (let n = 0; n < 3000; n++) index.add(`m${n}`, entry(`m${n}`, `module${n}`, 'common'))
    // Every document replaced (a new version each), then most discarded: two sweeps on the way.
    for (let n = 0; n < 3000; n++) index.add(`m${n}`, entry(`m${n}`, `module${n}`, n % 2 === 0 ? 'even' : 'odd'))
    for (let n = 0; n < 3000; n += 3) index.discard(`m${n}`)
    expect(index.size).toBe(2000)
    expect(index.has('m0')).toBe(false)
    expect(index.has('m1')).toBe(true)
    expect(ids(index, ['common'])).toEqual([])
    const even = index.search(['even'], new Set(['a']), 4, score)
    expect(even.total).toBe(1000)
    expect(even.hits.map((hit) => hit.document)).toEqual(['m10', 'm100', 'm1000', 'm1004'])
    expect(ids(index, ['module2999'])).toEqual(['m2999'])
    expect(ids(index, ['module2997'])).toEqual([])
    // Added again after the sweeps.
    index.add('m0', entry('m0', 'module0', 'even'))
    expect(index.search(['even'], new Set(['a']), 2, score).hits.map((hit) => hit.document)).toEqual(['m0', 'm10'])
  })
})

describe('keys kept in order', () => {
  it('puts a few added items in place, sorts and merges many, and finds a prefix’s run', () => {
    const keys = new SortedKeys<string>((key) => key)
    for (const word of ['net', 'apple', 'network', 'zebra']) keys.add(word)
    const run = (prefix: string) => {
      const { from, to } = keys.withPrefix(prefix)
      return Array.from({ length: to - from }, (_, index) => keys.at(from + index))
    }
    expect(run('net')).toEqual(['net', 'network'])
    const many = Array.from({ length: 500 }, (_, n) => `w${String((n * 7919) % 500).padStart(3, '0')}`)
    for (const word of many) keys.add(word)
    keys.add('nest')
    expect(keys.length).toBe(505)
    expect(run('ne')).toEqual(['nest', 'net', 'network'])
    expect(run('w00')).toEqual(['w000', 'w001', 'w002', 'w003', 'w004', 'w005', 'w006', 'w007', 'w008', 'w009'])
    expect(run('x')).toEqual([])
    expect(Array.from({ length: keys.length }, (_, index) => keys.at(index))).toEqual(['apple', 'nest', 'net', 'network', ...[...many].sort(), 'zebra'])
    keys.reset(['b', 'a'])
    expect(run('')).toEqual(['a', 'b'])
  })
})
