import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import autocannon from 'autocannon'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { createOrganization, publish, startTestServer, type TestServer } from '../helpers/server.js'

/**
 * A sustained load on the registry protocol's read paths (what `terraform init` loops hit),
 * from autocannon on loopback: every answer must be right. Throughput and latency are printed;
 * the targets for them are checked by `npm run bench`, not here.
 */
let test: TestServer
beforeAll(async () => {
  test = await startTestServer({ rateLimitPerMinute: 0 })
  await createOrganization(test, 'acme')
  for (const version of ['1.0.0', '1.1.0', '2.0.0']) await publish(test, 'acme', 'network', 'aws', version, NETWORK_MODULE)
})
afterAll(async () => {
  await test.close()
})

describe('the protocol under load', () => {
  it('answers every request of a sustained load correctly', async () => {
    const headers = { Authorization: `Bearer ${test.adminToken}` }
    const result = await autocannon({
      url: test.url,
      connections: 16,
      duration: 5,
      requests: [
        { method: 'GET', path: '/api/registry/v1/modules/acme/network/aws/versions', headers },
        { method: 'GET', path: '/api/registry/v1/modules/acme/network/aws/1.1.0', headers },
        { method: 'GET', path: '/api/registry/v1/modules/acme/network/aws/2.0.0/download', headers },
        { method: 'GET', path: '/api/registry/v1/modules/acme/network/aws', headers }
      ]
    })
    console.log(
      `protocol reads: ${Math.round(result.requests.average)} req/s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${result.requests.total} requests`
    )
    expect(result.errors).toBe(0)
    expect(result.timeouts).toBe(0)
    expect(result.non2xx).toBe(0)
    expect(result.requests.total).toBeGreaterThan(1000)
    // Every download location was counted.
    const summary = await test.api('GET', '/api/registry/v2/modules/acme/network/aws/downloads/summary')
    expect(summary.body.data.attributes.total).toBeGreaterThan(100)
  }, 30_000)
})
