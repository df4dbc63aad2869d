import { describe, expect, it } from 'vitest'
import { GroupIndex } from '../../src-main/server/store/engine/group-index.js'

describe('a group index', () => {
  it('holds each key’s ids, one as well as many, through adds and removes', () => {
    const index = new GroupIndex()
    index.add('org-a', 'mod-1')
    index.add('org-a', 'mod-1')
    expect([index.ids('org-a'), index.size('org-a')]).toEqual([['mod-1'], 1])
    index.add('org-a', 'mod-2')
    index.add('org-a', 'mod-3')
    index.add('org-b', 'mod-4')
    expect([index.ids('org-a'), index.size('org-a')]).toEqual([['mod-1', 'mod-2', 'mod-3'], 3])
    index.remove('org-a', 'mod-2')
    index.remove('org-a', 'mod-9')
    index.remove('org-c', 'mod-1')
    expect(index.ids('org-a')).toEqual(['mod-1', 'mod-3'])
    index.remove('org-a', 'mod-1')
    expect([index.ids('org-a'), index.size('org-a')]).toEqual([['mod-3'], 1])
    index.add('org-a', 'mod-5')
    expect(index.ids('org-a')).toEqual(['mod-3', 'mod-5'])
    expect([...index.entries()].map(([key, ids, size]) => [key, [...ids], size])).toEqual([
      ['org-a', ['mod-3', 'mod-5'], 2],
      ['org-b', ['mod-4'], 1]
    ])
    index.remove('org-a', 'mod-3')
    index.remove('org-a', 'mod-5')
    index.remove('org-b', 'mod-4')
    expect([[...index.keys()], index.ids('org-a'), index.size('org-b')]).toEqual([[], [], 0])
  })
})
