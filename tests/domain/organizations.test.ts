import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { InvalidInputError, NotFoundError } from '../../src-main/server/domain/core/errors.js'
import { ADMIN, domain, type Domain } from './domain.js'

let d: Domain
beforeEach(async () => {
  d = await domain()
  await d.services.organizations.create(ADMIN, { name: 'acme', email: 'platform@acme.example' })
})
afterEach(async () => {
  await d.close()
})

describe('organizations, teams and tokens, on the memory store', () => {
  it('lets only the site admin create organizations, and only owners change them', async () => {
    const owners = await d.owners('acme')
    const reader = await d.team('acme', 'readers')
    const { organizations } = d.services
    await expect(organizations.create(owners, { name: 'mine', email: 'a@b.example' })).rejects.toThrow()
    await expect(organizations.update(reader, 'acme', { email: 'new@acme.example' })).rejects.toBeInstanceOf(NotFoundError)
    const renamed = await organizations.update(owners, 'acme', { name: 'acme-corp' })
    expect(renamed.name).toBe('acme-corp')
    // Names are unique without regard to case.
    await organizations.create(ADMIN, { name: 'other', email: 'o@o.example' })
    await expect(organizations.update(ADMIN, 'other', { name: 'ACME-corp' })).rejects.toBeInstanceOf(InvalidInputError)
  })

  it('authenticates a team token until it is replaced, and never keeps the token itself', async () => {
    const { teams, authenticator, store } = d.services
    const { team } = await teams.create(ADMIN, 'acme', { name: 'ci', manageModules: true })
    const first = await teams.createToken(ADMIN, team.id, { description: null })
    expect(await authenticator.authenticate(first.token)).toMatchObject({ kind: 'team', teamId: team.id })
    expect(JSON.stringify(await store.organizations.all())).not.toContain(first.token)
    const second = await teams.createToken(ADMIN, team.id, { description: null })
    expect(await authenticator.authenticate(first.token)).toBeUndefined()
    expect(await authenticator.authenticate(second.token)).toMatchObject({ teamId: team.id })
    expect(await authenticator.authenticate('domain-test-admin-token-0123456789')).toEqual({ kind: 'site-admin' })
  })

  it('destroys an organization with its modules', async () => {
    const { organizations, modules, store } = d.services
    await modules.create(ADMIN, 'acme', { name: 'network', provider: 'aws' })
    await organizations.destroy(ADMIN, 'acme')
    expect(await store.modules.all()).toEqual([])
    await expect(organizations.read(ADMIN, 'acme')).rejects.toBeInstanceOf(NotFoundError)
  })
})
