import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrganization, startTestServer, type TestServer } from '../helpers/server.js'

let test: TestServer
beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
})
afterAll(async () => {
  await test.close()
})

describe('a method a path does not take', () => {
  it('answers 405 with Allow on the management API, in JSON:API', async () => {
    const response = await test.api('PUT', '/organizations/acme', { body: { data: { type: 'organizations', attributes: {} } } })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH'])
    expect(response.body.errors[0]).toMatchObject({ status: '405', title: 'method not allowed', detail: expect.stringMatching(/PUT is not allowed here/) })
    // A path that does not exist is still 404.
    expect((await test.api('PUT', '/nothing/here')).status).toBe(404)
  })

  it('answers 405 with Allow on the registry protocol, in its format', async () => {
    const response = await test.api('POST', '/api/registry/v1/modules/acme/network/aws/versions')
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toContain('GET')
    expect(response.body).toEqual({ errors: [expect.stringMatching(/POST is not allowed here/)], code: 'method-not-allowed' })
    expect((await test.api('GET', '/api/registry/v9/nothing')).status).toBe(404)
  })
})
