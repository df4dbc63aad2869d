import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rm } from 'node:fs/promises'
import { eventually } from '../helpers/eventually.js'
import { findPostgres, postgresDatabases, startPostgres, type TestPostgres } from '../helpers/postgres.js'
import { createOrganization, publish, startTestServer, type TestServer } from '../helpers/server.js'

/**
 * A running Homeport whose PostgreSQL stops answering (every process of the database frozen with
 * SIGSTOP: connections stay open, nothing comes back), on a database server of the test's own so
 * that no other suite is frozen with it. Short timeouts stand in for the production ones (10 s to
 * connect, 60 s per query).
 */
const bin = findPostgres()
let database: TestPostgres
let test: TestServer
const MODULE_VERSIONS = '/api/registry/v1/modules/acme/network/aws/versions'

describe.skipIf(!bin)('a running Homeport whose database stops answering', () => {
  beforeAll(async () => {
    database = await startPostgres(bin!)
    test = await startTestServer({ database: await postgresDatabases(database.url).create(), databaseTimeouts: { connectMs: 1000, queryMs: 1500 } })
    await createOrganization(test, 'acme')
    await publish(test, 'acme', 'network', 'aws', '1.0.0', { 'main.tf': 'variable "cidr" {\n  type = string\n}\n' })
  }, 60_000)
  afterAll(async () => {
    await database?.resume()
    await test?.close()
    await database?.stop()
    if (test) await rm(test.dataDir, { recursive: true, force: true })
  })

  it('keeps answering what it holds, answers 503 with the reason for the rest, and recovers by itself', async () => {
    // terraform init's version list, answered once: the answer is kept for a minute.
    const listed = await test.api('GET', MODULE_VERSIONS)
    expect(listed.status).toBe(200)

    await database.pause()
    expect((await test.api('GET', '/ping', { token: null })).status).toBe(204)
    // Kept answers still serve terraform init.
    const cached = await test.api('GET', MODULE_VERSIONS)
    expect(cached.status).toBe(200)
    expect(cached.body).toEqual(listed.body)
    // What needs the database gets a clear 503 once the query times out, not a hang and not a 500.
    const organization = await test.api('GET', '/organizations/acme')
    expect(organization.status).toBe(503)
    expect(organization.body.errors[0]).toMatchObject({ status: '503', code: 'database-unreachable' })
    expect(organization.body.errors[0].detail).toMatch(/cannot reach its database just now: nothing was written/)
    const write = await test.api('POST', '/organizations/acme/registry-modules', { body: { data: { type: 'registry-modules', attributes: { name: 'paused', provider: 'aws' } } } })
    expect(write.status).toBe(503)

    await database.resume()
    // No restart: the next requests find the database again.
    const back = await eventually(async () => {
      const answer = await test.api('GET', '/organizations/acme')
      expect(answer.status).toBe(200)
      return answer
    })
    expect(back.body.data.id).toBe('acme')
    // The write refused while the database was away left nothing behind, and goes through now.
    const created = await test.api('POST', '/organizations/acme/registry-modules', { body: { data: { type: 'registry-modules', attributes: { name: 'paused', provider: 'aws' } } } })
    expect(created.status).toBe(201)
  }, 60_000)
})
