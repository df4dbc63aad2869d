import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuditTrailEvent } from '../../src-main/shared/wire/audit-trail.js'
import { moduleArchive } from '../helpers/archives.js'
import { createOrganization, createTeamWithToken, createVersion, doc, ownersToken, startTestServer, upload, type TestServer } from '../helpers/server.js'

/**
 * The audit trail: every change the domain makes through any face, and every write refused, with
 * who, what, when and from where; HCP's audit-trails API for the organization's token; owners' and
 * the site admin's views; a retention moved by an injected clock. On the file store and on PostgreSQL.
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
  it('records each change where the domain makes it: who as account/details says, HCP’s singular types and API ids, and no read or invalid write', async () => {
    const created = await test.api('POST', '/organizations/acme/registry-modules', { body: doc('registry-modules', { name: 'network', provider: 'aws' }), token: publisher.token })
    const version = await createVersion(test, 'acme', 'network', 'aws', '1.0.0')
    expect((await upload(version.links.upload, await moduleArchive({ 'main.tf': 'variable "x" {}\n' }), test.fetch)).status).toBe(200)
    await test.api('GET', '/organizations/acme/registry-modules', { token: publisher.token })
    expect((await test.api('POST', '/organizations/acme/registry-modules', { body: doc('registry-modules', { name: 'bad name', provider: 'aws' }), token: publisher.token })).status).toBe(422)
    await test.api('PATCH', '/organizations/acme', { body: doc('organizations', { email: 'security@acme.example' }) })

    const answer = await trail()
    expect(answer.status).toBe(200)
    const events = answer.body.data as AuditTrailEvent[]
    const said = events.map((event) => `${event.auth.description} ${event.resource.action} ${event.resource.type} ${event.resource.meta.name}`)
    expect(said).toEqual(
      expect.arrayContaining([
        'site-admin create team acme/publishers',
        'site-admin create authentication-token the token of team acme/publishers',
        'api-team_publishers create registry-module acme/network/aws',
        'site-admin create registry-module-version acme/network/aws 1.0.0',
        'an upload link upload registry-module-version acme/network/aws 1.0.0',
        'site-admin update organization acme'
      ])
    )
    expect(said.some((line) => line.includes('bad name'))).toBe(false)
    // API ids, as HCP's trail gives them.
    expect(events.find((event) => event.resource.type === 'registry-module')!.resource.id).toBe(created.body.data.id)
    expect(events.find((event) => event.resource.type === 'registry-module-version' && event.resource.action === 'create')!.resource.id).toBe(version.id)
    expect(events[0]).toMatchObject({ version: '0', type: 'Resource', auth: { type: 'Client', credential: 'site-admin', impersonator_id: null }, resource: { type: 'organization', id: 'acme', action: 'update', meta: { permission: 'manage organization', outcome: 'done' } } })
    expect(events[0]!.request!.ip).toMatch(/127\.0\.0\.1$/)
    expect(Date.parse(events[0]!.timestamp)).toBe(time)
    // The actor is the user account/details names for the same token.
    const account = (await test.api('GET', '/account/details', { token: publisher.token })).body.data
    const published = events.find((event) => event.resource.type === 'registry-module')!
    expect(published.auth).toMatchObject({ accessor_id: account.id, description: account.attributes.username, credential: 'team' })
    // A change through a capability link comes from its request too, as one a caller makes.
    const uploaded = events.find((event) => event.resource.action === 'upload')!
    expect(uploaded.request!.ip).toMatch(/127\.0\.0\.1$/)
    expect(uploaded.request!.id).not.toBe(events[0]!.request!.id)
  })

  it('never records a capability’s path, sent with a token or without one', async () => {
    const version = await createVersion(test, 'acme', 'network', 'aws', '1.1.0')
    const link = version.links.upload as string
    const archive = await moduleArchive({ 'main.tf': 'variable "y" {}\n' })
    // Many HTTP clients send their Authorization header to every URL, upload links too.
    const sent = await test.fetch(link, { method: 'PUT', headers: { Authorization: `Bearer ${publisher.token}`, 'Content-Type': 'application/octet-stream' }, body: new Uint8Array(archive) })
    expect(sent.status).toBe(200)
    const objectId = new URL(link).pathname.split('/').pop()!
    for (const [path, token] of [['/organizations/acme/audit-trail', undefined], ['/admin/audit-trail', undefined]] as const) {
      expect(JSON.stringify((await test.api('GET', path, { token })).body)).not.toContain(objectId)
    }
    const auditTrails = (await test.api('POST', '/organizations/acme/authentication-token?token=audit-trails')).body.data.attributes.token as string
    const seen = JSON.stringify((await test.api('GET', '/organization/audit-trail', { token: auditTrails })).body)
    expect(seen).not.toContain(objectId)
    expect(seen).not.toContain('/archivist/')
  })

  it('records writes refused for want of permission in the organization’s trail, and those with no valid token in the installation’s', async () => {
    const outsider = await createOrganization(test, 'outsiders').then(() => createTeamWithToken(test, 'outsiders', 'intruders', true))
    expect((await test.api('POST', '/organizations/acme/registry-modules', { body: doc('registry-modules', { name: 'planted', provider: 'aws' }), token: reader.token })).status).toBe(404)
    expect((await test.api('DELETE', '/organizations/acme/registry-modules/private/acme/network/aws', { token: outsider.token })).status).toBe(404)
    expect((await test.api('POST', '/organizations/acme/teams', { body: doc('teams', { name: 'sneaky' }), token: publisher.token })).status).toBe(404)
    expect((await test.api('POST', '/organizations/acme/registry-modules', { body: doc('registry-modules', { name: 'planted', provider: 'aws' }), token: 'made-up' })).status).toBe(401)

    const refused = ((await trail()).body.data as AuditTrailEvent[]).filter((event) => event.resource.meta.outcome === 'refused')
    expect(refused.map((event) => `${event.auth.description} ${event.resource.action} ${event.resource.type} ${event.resource.meta.name} (${event.resource.meta.permission})`)).toEqual([
      'api-team_publishers create team acme/sneaky (manage teams)',
      'api-team_intruders destroy registry-module acme/network/aws (manage module)',
      'api-team_readers create registry-module acme/planted/aws (publish module)'
    ])
    // Nothing was changed by them.
    expect((await test.api('GET', '/organizations/acme/registry-modules/private/acme/planted/aws')).status).toBe(404)
    const installation = (await test.api('GET', '/admin/audit-trail')).body.data as AuditTrailEvent[]
    expect(installation[0]).toMatchObject({ auth: { credential: 'anonymous' }, resource: { type: 'request', action: 'write', meta: { outcome: 'refused', permission: 'authenticate', name: 'POST /api/v2/organizations/:org/registry-modules' } } })
  })

  it('records writes with no valid token once a minute for each address and route, so that nobody fills the trail', async () => {
    const anonymous = async () => (await test.api('GET', '/admin/audit-trail?filter[type]=request')).body.pagination.total_count as number
    time += 120_000
    const before = await anonymous()
    for (let attempt = 0; attempt < 20; attempt++) {
      expect((await test.api('DELETE', '/organizations/acme', { token: `made-up-${attempt}` })).status).toBe(401)
    }
    expect(await anonymous()).toBe(before + 1)
    time += 61_000
    expect((await test.api('DELETE', '/organizations/acme', { token: 'made-up' })).status).toBe(401)
    expect(await anonymous()).toBe(before + 2)
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
    expect(recent.body.data.map((event: AuditTrailEvent) => `${event.resource.action} ${event.resource.type}`)).toEqual(['destroy authentication-token'])
  })

  it('is shown to owners and the site admin, filtered, and to no one else', async () => {
    const owners = await ownersToken(test, 'acme')
    const filtered = await trail('acme', '?filter[type]=registry-module&filter[action]=create', owners.token)
    expect(filtered.status).toBe(200)
    expect(filtered.body.data.map((event: AuditTrailEvent) => `${event.auth.description} ${event.resource.meta.outcome}`)).toEqual(['api-team_readers refused', 'api-team_publishers done'])
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
    expect((await test.api('GET', '/admin/audit-trail')).body.data.map((event: AuditTrailEvent) => `${event.resource.type} ${event.resource.id}`)).toEqual(['site-setting audit-trail-retention'])
  })
})
