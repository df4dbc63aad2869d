import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrganization, createTeamWithToken, startTestServer, type TestServer } from '../helpers/server.js'

/**
 * The MCP sessions' bounds, with an injected clock: at most two sessions a caller and three in all
 * here, each closed after a minute unused. Raw requests, so that nothing happens in between the test's own (the SDK's client
 * opens an event stream of its own accord).
 */
let now = Date.parse('2026-11-26T09:00:00Z')
let test: TestServer
beforeAll(async () => {
  test = await startTestServer({ mcpSessions: { max: 3, perCaller: 2, idleMs: 60_000 }, clock: () => now })
})
afterAll(async () => {
  await test.close()
})

async function post(body: unknown, session?: string, token = test.adminToken): Promise<Response> {
  return fetch(`${test.url}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Protocol-Version': '2025-06-18',
      ...(session ? { 'Mcp-Session-Id': session } : {})
    },
    body: JSON.stringify(body)
  })
}

function initialize(token?: string): Promise<Response> {
  return post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'sessions', version: '1' } } }, undefined, token)
}

/** A new session, initialized: its id. */
async function open(token?: string): Promise<string> {
  const answer = await initialize(token)
  expect(answer.status).toBe(200)
  await answer.text()
  const id = answer.headers.get('mcp-session-id')!
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, id, token)).status).toBe(202)
  return id
}

/** What a session answers a tools/list with: 200, or 404 once it is gone. */
async function use(id: string, token?: string): Promise<number> {
  const answer = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, id, token)
  await answer.text()
  return answer.status
}

describe('MCP sessions', () => {
  it('keeps at most a caller’s bound, closing that caller’s session idle longest to make room', async () => {
    const first = await open()
    now += 1000
    const second = await open()
    now += 1000
    expect(await use(first)).toBe(200)
    now += 1000
    const third = await open()
    // The second was idle longest: it is gone, and the protocol says so with a 404 (the client opens another).
    expect(await use(second)).toBe(404)
    expect(await use(first)).toBe(200)
    expect(await use(third)).toBe(200)
  })

  it('closes a session unused for longer than the idle time, when another opens', async () => {
    const kept = await open()
    now += 30_000
    expect(await use(kept)).toBe(200)
    now += 31_000
    await open()
    // 61 s after the earlier test's sessions were last used, 31 s after this one was.
    expect(await use(kept)).toBe(200)
    now += 61_000
    await open()
    expect(await use(kept)).toBe(404)
  })

  it('never ends one caller’s session for another’s: past the bound for all, a caller replaces its own, and one with none waits', async () => {
    now += 120_000
    const owners = [await open(), await open()]
    await createOrganization(test, 'sessions')
    const reader = (await createTeamWithToken(test, 'sessions', 'readers')).token
    const readers = [await open(reader)]
    // A read-only team opening session after session (the bound for all is reached) ends only its own.
    for (let index = 0; index < 5; index++) readers.push(await open(reader))
    for (const id of owners) expect(await use(id)).toBe(200)
    expect(await use(readers[0]!, reader)).toBe(404)
    expect(await use(readers.at(-1)!, reader)).toBe(200)
    // A caller with no session, while every place is taken: refused until one ends, and nobody's closed for it.
    const other = (await createTeamWithToken(test, 'sessions', 'others')).token
    const refused = await initialize(other)
    await refused.text()
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('60')
    for (const id of owners) expect(await use(id)).toBe(200)
  })
})
