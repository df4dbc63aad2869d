import semver from 'semver'
import { describe, expect, it } from 'vitest'
import { latestOf, newestFirst, newestVersionsFirst } from '../../src-main/server/domain/core/newest-first.js'

describe('newest first', () => {
  it('orders as semver.rcompare does: prereleases below their release, build metadata ignored, ties in their order', () => {
    const versions = ['1.0.0', '1.10.0', '1.2.0', '2.0.0-rc.1', '2.0.0-beta.2', '2.0.0', '0.9.9', '2.0.0-rc.10', '1.2.0+build.7', '1.2.0+build.3', '10.0.0-alpha']
    const expected = [...versions].sort(semver.rcompare)
    expect(newestVersionsFirst(versions)).toEqual(expected)
    expect(expected.slice(0, 6)).toEqual(['10.0.0-alpha', '2.0.0', '2.0.0-rc.10', '2.0.0-rc.1', '2.0.0-beta.2', '1.10.0'])
    // Equal versions (build metadata differs) stay as they were given.
    expect(expected.slice(6, 9)).toEqual(['1.2.0', '1.2.0+build.7', '1.2.0+build.3'])
  })

  it('orders records by the version it is given, and leaves the list it was given as it was', () => {
    const records = [{ id: 'a', version: '0.1.0' }, { id: 'b', version: '3.0.0' }, { id: 'c', version: '1.0.0' }]
    expect(newestFirst(records, (record) => record.version).map((record) => record.id)).toEqual(['b', 'c', 'a'])
    expect(records.map((record) => record.id)).toEqual(['a', 'b', 'c'])
  })

  it('takes the newest stable version as the latest, or the newest prerelease when none is stable', () => {
    const versions = (...names: string[]) => newestVersionsFirst(names).map((version) => ({ version }))
    expect(latestOf(versions('2.0.0-rc.1', '1.9.0', '1.10.0'))?.version).toBe('1.10.0')
    expect(latestOf(versions('2.0.0-rc.1', '2.0.0-beta.3'))?.version).toBe('2.0.0-rc.1')
    expect(latestOf([])).toBeUndefined()
  })

  it('refuses a version that is not semantic, as semver does', () => {
    expect(() => newestVersionsFirst(['1.0.0', 'latest'])).toThrow(TypeError)
  })
})
