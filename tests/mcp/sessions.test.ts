import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { startTestServer, type TestServer } from '../helpers/server.js'

/** The MCP sessions' bounds, with an injected clock: at most two sessions here, each closed after a minute unused. */
let now = Date.parse('2026-11-26T09:00:00Z')
let test: TestServer
beforeAll(async () => {
  test = await startTestServer({ mcpSessions: { max: 2, idleMs: 60_000 }, clock: () => now })
})
afterAll(async () => {
  await test.close()
})

async function session(): Promise<Client> {
  const client = new Client({ name: 'sessions', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${test.adminToken}` } } }))
  return client
}

describe('MCP sessions', () => {
  it('keeps at most the bound, closing the one idle longest to make room', async () => {
    const first = await session()
    now += 1000
    const second = await session()
    now += 1000
    await first.listTools()
    now += 1000
    const third = await session()
    // The second was idle longest: its session is gone, and the protocol says so with a 404.
    await expect(second.listTools()).rejects.toThrow(/unknown or has ended/)
    expect((await first.listTools()).tools.length).toBe(8)
    expect((await third.listTools()).tools.length).toBe(8)
    for (const client of [first, second, third]) await client.close()
  })

  it('closes a session unused for longer than the idle time, when another opens', async () => {
    const idle = await session()
    now += 61_000
    const fresh = await session()
    await expect(idle.listTools()).rejects.toThrow(/unknown or has ended/)
    expect((await fresh.listTools()).tools.length).toBe(8)
    for (const client of [idle, fresh]) await client.close()
  })
})
