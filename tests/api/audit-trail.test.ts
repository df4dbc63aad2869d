import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditTrailEvent } from '../../src-main/shared/wire/audit-trail.js'
import { moduleArchive } from '../helpers/archives.js'
import { createOrganization, createTeamWithToken, createVersion, doc, ownersToken, startTestServer, upload, type TestServer } from '../helpers/server.js'

/**
 * The audit trail: every write through any face, with who, what, when and from where; HCP's
 * audit-trails API for the organization's token; owners' and the site admin's views; a retention
 * moved by an injected clock. On the file store and on PostgreSQL.
 */
let test: TestServer
let time = Date.parse('2026-11-25T12:00:00.000Z')
let publisher: { id: string; token: string }
let reader: { id: string; token: string }

beforeAll(async () => {
  test = await startTestServer({ clock: () => time })
  await createOrganization(test, 'acme')
  publisher = await createTeamWithToken(test, 'acme', 'publishers', true)
  reader = await createTeamWithToken(test, 'acme', 'readers')
})
afterAll(() => test.close())

async function trail(org = 'acme', query = '', token?: string) {
  return test.api('GET', `/organizations/${org}/audit-trail${query}`, { token })
}

describe('the audit trail', () => {
  it('records every write with who made it, what, when and from where, and no read or refused write', async () => {
    await test.api('POST', '/organizations/acme/registry-modules', { body: doc('registry-modules', { name: 'network', provider: 'aws' }), token: publisher.token })
    const version = await createVersion(test, 'acme', 'network', 'aws', '1.0.0')
    expect((await upload(version.links.upload, await moduleArchive({ 'main.tf': 'variable "x" {}\n' }), test.fetch)).status).toBe(200)
    await test.api('GET', '/organizations/acme/registry-modules', { token: publisher.token })
    expect((await test.api('POST', '/organizations/acme/registry-modules', { body: doc('registry-modules', { name: 'bad name', provider: 'aws' }), token: publisher.token })).status).toBe(422)
    await test.api('PATCH', '/organizations/acme', { body: doc('organizations', { email: 'security@acme.example' }) })

    const answer = await trail()
    expect(answer.status).toBe(200)
    const events = answer.body.data as AuditTrailEvent[]
    const said = events.map((event) => `${event.auth.description} ${event.resource.action} ${event.resource.type} ${event.resource.id}`)
    expect(said).toEqual(
      expect.arrayContaining([
        'the site admin create teams publishers',
        expect.stringMatching(new RegExp(`^the site admin create teams/authentication-token ${publisher.id}/at-`)),
        'team publishers create registry-modules network/aws',
        'the site admin create registry-modules/versions private/acme/network/aws/1.0.0',
        'the site admin update organizations acme'
      ])
    )
    expect(said.some((line) => line.includes('bad name'))).toBe(false)
    expect(events.some((event) => event.request.method === 'GET')).toBe(false)
    expect(events[0]).toMatchObject({ version: '0', type: 'Resource', auth: { type: 'Client', credential: 'site-admin', impersonator_id: null }, request: { method: 'PATCH', path: '/api/v2/organizations/acme', status: 200 } })
    expect(events[0]!.request.ip).toMatch(/127\.0\.0\.1$/)
    expect(Date.parse(events[0]!.timestamp)).toBe(time)
    // An upload link is no caller: said as a link, in the organization of the version it names, and its path (a credential) is not kept.
    const uploaded = events.find((event) => event.resource.type === 'archivist/object')
    expect(uploaded).toMatchObject({ auth: { credential: 'link' }, resource: { id: 'network/aws/1.0.0', action: 'update' }, request: { method: 'PUT', path: '/archivist/v1/object/:objectId' } })
    const link = new URL(version.links.upload as string).pathname
    expect(JSON.stringify(events)).not.toContain(link.split('/').pop())
  })

  it('is read by the organization’s audit-trails token as on HCP, paginated and since a time, which does not replace its organization token', async () => {
    const organization = await test.api('POST', '/organizations/acme/authentication-token')
    const auditTrails = await test.api('POST', '/organizations/acme/authentication-token?token=audit-trails')
    expect(auditTrails.status).toBe(201)
    expect((await test.api('GET', '/organizations/acme/authentication-token')).body.data.id).toBe(organization.body.data.id)
    expect((await test.api('GET', '/organizations/acme/authentication-token?token=audit-trails')).body.data.id).toBe(auditTrails.body.data.id)
    expect((await test.api('POST', '/organizations/acme/authentication-token?token=team')).status).toBe(422)

    const token = auditTrails.body.data.attributes.token as string
    const page = await test.api('GET', '/organization/audit-trail?page[size]=2', { token })
    expect(page.status).toBe(200)
    expect(page.body.data).toHaveLength(2)
    expect(page.body.pagination).toMatchObject({ current_page: 1, prev_page: null, next_page: 2 })
    expect(page.body.pagination.total_count).toBeGreaterThan(5)
    // The audit-trails token reads the trail and nothing else.
    expect((await test.api('GET', '/organizations/acme/registry-modules', { token })).status).toBe(404)
    // The organization token reads it too; a team's token does not.
    expect((await test.api('GET', '/organization/audit-trail', { token: organization.body.data.attributes.token })).status).toBe(200)
    expect((await test.api('GET', '/organization/audit-trail', { token: publisher.token })).status).toBe(404)

    const temporary = await createTeamWithToken(test, 'acme', 'temporary')
    time += 60_000
    const since = new Date(time - 1).toISOString()
    await test.api('DELETE', `/teams/${temporary.id}/authentication-token`)
    const recent = await test.api('GET', `/organization/audit-trail?since=${encodeURIComponent(since)}`, { token })
    expect(recent.body.data.map((event: AuditTrailEvent) => `${event.resource.action} ${event.resource.type}`)).toEqual(['destroy teams/authentication-token'])
  })

  it('is shown to owners and the site admin, filtered, and to no one else', async () => {
    const owners = await ownersToken(test, 'acme')
    const filtered = await trail('acme', '?filter[type]=registry-modules&filter[action]=create', owners.token)
    expect(filtered.status).toBe(200)
    expect(filtered.body.data.map((event: AuditTrailEvent) => event.auth.description)).toEqual(['team publishers'])
    expect((await trail('acme', '?q=publishers')).body.data.length).toBeGreaterThan(0)
    expect((await trail('acme', '', publisher.token)).status).toBe(404)
    expect((await trail('acme', '', reader.token)).status).toBe(404)
    expect((await trail('acme', '?since=yesterday')).status).toBe(422)
  })

  it('keeps events forever unless the site admin sets a retention, then drops only older ones', async () => {
    expect((await test.api('GET', '/admin/audit-trail-settings')).body.data.attributes['retention-days']).toBeNull()
    expect((await test.api('PATCH', '/admin/audit-trail-settings', { body: doc('audit-trail-settings', { 'retention-days': 0 }) })).status).toBe(422)
    expect((await test.api('PATCH', '/admin/audit-trail-settings', { body: doc('audit-trail-settings', { 'retention-days': 1 }), token: publisher.token })).status).toBe(404)
    const before = (await trail()).body.pagination.total_count as number
    time += 2 * 24 * 60 * 60 * 1000
    expect(await test.server.services.auditTrail.sweep()).toBe(0)
    expect((await test.api('PATCH', '/admin/audit-trail-settings', { body: doc('audit-trail-settings', { 'retention-days': 1 }) })).body.data.attributes['retention-days']).toBe(1)
    const removed = await test.server.services.auditTrail.sweep()
    expect(removed).toBeGreaterThanOrEqual(before)
    // What is left is what happened within the last day: the setting's own change.
    expect((await test.api('GET', '/admin/audit-trail')).body.data.map((event: AuditTrailEvent) => event.resource.type)).toEqual(['admin/audit-trail-settings'])
  })
})
