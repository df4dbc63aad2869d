import { describe, expect, it } from 'vitest'
import { PostingLists, type PostingList } from '../../src-main/server/domain/search/posting-lists.js'

const read = (lists: PostingLists, list: PostingList) => [...lists.data.subarray(list.at, list.at + list.count)]

describe('posting lists', () => {
  it('keeps many lists, added to in turn, each as it was added to, through moves, rewrites and compactions', () => {
    const lists = new PostingLists()
    // A few long lists and many short ones, interleaved as a build adds them (one document's words at a time).
    const held = Array.from({ length: 500 }, () => ({ list: { at: 0, count: 0, room: 0 }, expected: [] as number[] }))
    let posting = 0
    for (let document = 0; document < 2000; document++) {
      for (const [index, { list, expected }] of held.entries()) {
        if (index < 3 || (index * 7 + document) % 401 === 0) {
          lists.add(list, posting)
          expected.push(posting++)
        }
      }
    }
    for (const { list, expected } of held) expect(read(lists, list)).toEqual(expected)
    // A rewrite drops what it answers a negative number for, and changes the rest in place.
    for (const { list, expected } of held) {
      lists.rewrite(list, (value) => (value % 2 === 0 ? -1 : value * 2))
      expected.splice(0, expected.length, ...expected.filter((value) => value % 2 !== 0).map((value) => value * 2))
    }
    for (const { list, expected } of held) expect(read(lists, list)).toEqual(expected)
    lists.compact(held.map(({ list }) => list))
    // Compacted: the postings only, each list with an eighth of room to spare.
    const total = held.reduce((sum, { expected }) => sum + expected.length, 0)
    expect(held.reduce((sum, { list }) => sum + list.room, 0)).toBeLessThanOrEqual(total * 1.125)
    for (const { list, expected } of held) expect(read(lists, list)).toEqual(expected)
    // Added to after a compaction: the lists that outgrow their room move, and none overwrites another.
    for (let round = 0; round < 50; round++) {
      for (const { list, expected } of held) {
        lists.add(list, posting)
        expected.push(posting++)
      }
    }
    for (const { list, expected } of held) expect(read(lists, list)).toEqual(expected)
  })

  it('grows the last list where it is, and moves another that outgrows its room to the end', () => {
    const lists = new PostingLists()
    const first = { at: 0, count: 0, room: 0 }
    const second = { at: 0, count: 0, room: 0 }
    lists.add(first, 1)
    lists.add(second, 2)
    lists.add(second, 3)
    expect(second).toEqual({ at: 1, count: 2, room: 2 })
    lists.add(first, 4)
    // The first was not last: moved past the second, with twice its room.
    expect(first).toEqual({ at: 3, count: 2, room: 2 })
    lists.add(first, 5)
    // Now last: grown where it is.
    expect(first).toEqual({ at: 3, count: 3, room: 4 })
    expect(read(lists, first)).toEqual([1, 4, 5])
    expect(read(lists, second)).toEqual([2, 3])
  })
})
