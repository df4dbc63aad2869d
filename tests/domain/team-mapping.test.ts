import { describe, expect, it } from 'vitest'
import { groupsOf, membershipsFrom } from '../../src-main/server/domain/people/team-mapping.js'
import type { OrganizationRecord } from '../../src-main/server/store/records.js'

const acme = { id: 'org-acme', name: 'acme', teams: [{ id: 'team-platform', name: 'platform' }, { id: 'team-owners', name: 'owners' }] } as unknown as OrganizationRecord
const byName = (name: string) => Promise.resolve(name.toLowerCase() === 'acme' ? acme : undefined)

describe('teams from the identity provider’s groups', () => {
  it('makes `<organization>/<team>` that team, exactly by name, and a Keycloak full path the same', async () => {
    const mapped = await membershipsFrom(['acme/platform', '/acme/owners', 'acme/platform'], byName)
    expect(mapped.map(({ organizationId, teamId, group }) => [organizationId, teamId, group])).toEqual([
      ['org-acme', 'team-platform', 'acme/platform'],
      ['org-acme', 'team-owners', '/acme/owners']
    ])
  })

  it('gives nothing for a group of another form, another case, or a team or organization that does not exist, and makes none', async () => {
    const groups = ['ACME/platform', 'acme/Platform', 'acme/nonexistent', 'initech/platform', 'acme', 'acme/platform/extra', 'platform', '']
    expect(await membershipsFrom(groups, byName)).toEqual([])
  })

  it('reads the groups claim as a list of strings, a single string as one group, anything else as none', () => {
    expect(groupsOf(['a/b', 3, null, 'c/d'])).toEqual(['a/b', 'c/d'])
    expect(groupsOf('a/b')).toEqual(['a/b'])
    expect(groupsOf(undefined)).toEqual([])
    expect(groupsOf({ a: 'b' })).toEqual([])
  })
})
