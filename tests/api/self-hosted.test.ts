import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrganization, createTeamWithToken, doc, ownersToken, startTestServer, type TestServer } from '../helpers/server.js'

let test: TestServer
beforeAll(async () => {
  test = await startTestServer({ edition: 'self-hosted' })
  await createOrganization(test, 'consumer')
  await createOrganization(test, 'producer-a')
  await createOrganization(test, 'producer-b')
  await createOrganization(test, 'bystander')
})
afterAll(async () => {
  await test.close()
})

describe('organizations in the self-hosted edition', () => {
  it('leaves out the hosted-only attributes and links the self-hosted relationships', async () => {
    const { data } = (await test.api('GET', '/organizations/consumer')).body
    expect(data.attributes).not.toHaveProperty('two-factor-conformant')
    expect(data.attributes).not.toHaveProperty('assessments-enforced')
    expect(data.attributes['plan-is-enterprise']).toBe(true)
    expect(data.relationships['module-producers'].links.related).toBe('/api/v2/organizations/consumer/module-producers')
    expect(data.relationships['data-retention-policy']).toEqual({
      data: null,
      links: { related: '/api/v2/organizations/consumer/data-retention-policy' }
    })
  })

  it('keeps passing statuses for untriggered plans false', async () => {
    const create = await test.api('POST', '/organizations', {
      body: doc('organizations', {
        name: 'passing',
        email: 'a@b.example',
        'send-passing-statuses-for-untriggered-speculative-plans': true
      })
    })
    expect(create.status).toBe(422)
    expect(create.body.errors[0].source.pointer).toBe('/data/attributes/send-passing-statuses-for-untriggered-speculative-plans')
    const update = await test.api('PATCH', '/organizations/consumer', {
      body: doc('organizations', { 'send-passing-statuses-for-untriggered-speculative-plans': false })
    })
    expect(update.status).toBe(200)
  })

  it('keeps an organization’s cost estimation choice as Terraform Enterprise does, beside the site-level switch', async () => {
    // go-tfe's fixtures create organizations with cost estimation on while the site's switch is off.
    const created = await test.api('POST', '/organizations', { body: doc('organizations', { name: 'estimating', email: 'e@example.com', 'cost-estimation-enabled': true }) })
    expect(created.status).toBe(201)
    expect(created.body.data.attributes['cost-estimation-enabled']).toBe(true)
    expect((await test.api('GET', '/admin/cost-estimation-settings')).body.data.attributes.enabled).toBe(false)
    // go-tfe sends the site setting with an empty data.type.
    const settings = await test.api('PATCH', '/admin/cost-estimation-settings', { body: { data: { type: '', attributes: { enabled: true } } } })
    expect(settings.status).toBe(200)
    expect(settings.body.data.attributes.enabled).toBe(true)
    const updated = await test.api('PATCH', '/organizations/consumer', { body: doc('organizations', { 'cost-estimation-enabled': true }) })
    expect(updated.status).toBe(200)
    expect(updated.body.data.attributes['cost-estimation-enabled']).toBe(true)
  })

  it('ignores assessments-enforced, which only the hosted edition has', async () => {
    const response = await test.api('PATCH', '/organizations/consumer', { body: doc('organizations', { 'assessments-enforced': true }) })
    expect(response.status).toBe(200)
    expect(response.body.data.attributes).not.toHaveProperty('assessments-enforced')
  })
})

describe('module producers', () => {
  it('lists the organizations that share their modules with this one', async () => {
    const empty = await test.api('GET', '/organizations/consumer/relationships/module-producers')
    expect(empty.status).toBe(200)
    expect(empty.body.data).toEqual([])

    for (const producer of ['producer-a', 'producer-b']) {
      const shared = await test.api('PATCH', `/admin/organizations/${producer}/relationships/module-consumers`, {
        body: { data: [{ type: 'organizations', id: 'consumer' }] }
      })
      expect(shared.status).toBe(204)
    }
    const response = await test.api('GET', '/organizations/consumer/relationships/module-producers')
    expect(response.body.data.map((org: { id: string }) => org.id)).toEqual(['producer-a', 'producer-b'])
    const entry = response.body.data[0]
    expect(entry.type).toBe('organizations')
    expect(Object.keys(entry.attributes).sort()).toEqual(['external-id', 'name'])
    expect(entry.links.self).toBe('/api/v2/organizations/producer-a')
    expect(response.body.meta.pagination).not.toHaveProperty('page-size')
    expect(response.body.meta.pagination['total-count']).toBe(2)
    expect(response.body.links.first).toContain('page%5Bnumber%5D=1')

    const paged = await test.api('GET', '/organizations/consumer/module-producers?page[size]=1&page[number]=2')
    expect(paged.body.data.map((org: { id: string }) => org.id)).toEqual(['producer-b'])

    const consumers = await test.api('GET', '/admin/organizations/producer-a/relationships/module-consumers')
    expect(consumers.body.data.map((org: { id: string }) => org.id)).toEqual(['consumer'])
  })

  it('refuses unknown consumers, and lets only a site admin set them', async () => {
    const unknown = await test.api('PATCH', '/admin/organizations/producer-a/relationships/module-consumers', {
      body: { data: [{ type: 'organizations', id: 'consumer' }, { type: 'organizations', id: 'nobody' }] }
    })
    expect(unknown.status).toBe(422)
    expect(unknown.body.errors[0].source.pointer).toBe('/data/1/id')
    const owners = await ownersToken(test, 'producer-a')
    const asOwner = await test.api('PATCH', '/admin/organizations/producer-a/relationships/module-consumers', {
      token: owners.token,
      body: { data: [] }
    })
    expect(asOwner.status).toBe(404)
    // Nothing changed.
    const producers = await test.api('GET', '/organizations/consumer/relationships/module-producers')
    expect(producers.body.data).toHaveLength(2)
  })

  it('is hidden from teams of other organizations', async () => {
    const team = await createTeamWithToken(test, 'bystander', 'watchers')
    expect((await test.api('GET', '/organizations/consumer/relationships/module-producers', { token: team.token })).status).toBe(404)
  })
})

describe('data retention policy', () => {
  it('returns the installation default until a policy is set, and again after it is deleted', async () => {
    const initial = await test.api('GET', '/organizations/consumer/relationships/data-retention-policy')
    expect(initial.status).toBe(200)
    expect(initial.body.data.type).toBe('data-retention-policy-dont-deletes')

    const created = await test.api('POST', '/organizations/consumer/relationships/data-retention-policy', {
      body: doc('data-retention-policy-delete-olders', { 'delete-older-than-n-days': 30 })
    })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({
      type: 'data-retention-policy-delete-olders',
      attributes: { 'delete-older-than-n-days': 30 }
    })
    const read = await test.api('GET', '/organizations/consumer/data-retention-policy')
    expect(read.body.data).toEqual(created.body.data)
    const org = await test.api('GET', '/organizations/consumer')
    expect(org.body.data.relationships['data-retention-policy'].data).toEqual({
      id: created.body.data.id,
      type: 'data-retention-policy-delete-olders'
    })

    const replaced = await test.api('POST', '/organizations/consumer/relationships/data-retention-policy', {
      body: doc('data-retention-policy-dont-deletes')
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body.data.type).toBe('data-retention-policy-dont-deletes')

    expect((await test.api('DELETE', '/organizations/consumer/relationships/data-retention-policy')).status).toBe(204)
    const after = await test.api('GET', '/organizations/consumer')
    expect(after.body.data.relationships['data-retention-policy'].data).toBeNull()
  })

  it('refuses bad policies and callers outside the owners team', async () => {
    const badType = await test.api('POST', '/organizations/consumer/relationships/data-retention-policy', {
      body: doc('data-retention-policies', { 'delete-older-than-n-days': 3 })
    })
    expect(badType.status).toBe(422)
    expect(badType.body.errors[0].source.pointer).toBe('/data/type')
    const noDays = await test.api('POST', '/organizations/consumer/relationships/data-retention-policy', {
      body: doc('data-retention-policy-delete-olders')
    })
    expect(noDays.status).toBe(422)
    const zero = await test.api('POST', '/organizations/consumer/relationships/data-retention-policy', {
      body: doc('data-retention-policy-delete-olders', { 'delete-older-than-n-days': 0 })
    })
    expect(zero.status).toBe(422)
    expect(zero.body.errors[0].source.pointer).toBe('/data/attributes/delete-older-than-n-days')
    const member = await createTeamWithToken(test, 'consumer', 'members')
    expect((await test.api('GET', '/organizations/consumer/relationships/data-retention-policy', { token: member.token })).status).toBe(200)
    const asMember = await test.api('POST', '/organizations/consumer/relationships/data-retention-policy', {
      token: member.token,
      body: doc('data-retention-policy-dont-deletes')
    })
    expect(asMember.status).toBe(404)
  })
})
