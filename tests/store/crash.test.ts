import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exited, spawnServer } from '../helpers/process.js'

const ADMIN_TOKEN = 'crash-test-admin-token-0123456789'
const ROUNDS = 6
const CLIENTS = 8

let dataDir: string
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'homeport-crash-'))
})
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

const headers = { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' }

/** Creates organizations one after another until the server goes away; returns those acknowledged. */
async function createUntilKilled(url: string, prefix: string): Promise<string[]> {
  const acknowledged: string[] = []
  for (let i = 0; ; i++) {
    const name = `${prefix}-${i}`
    try {
      const response = await fetch(`${url}/api/v2/organizations`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ data: { type: 'organizations', attributes: { name, email: `${name}@example.com` } } })
      })
      if (response.status === 201) acknowledged.push(name)
      else throw new Error(`unexpected ${response.status}: ${await response.text()}`)
    } catch (error) {
      if ((error as Error).message.startsWith('unexpected')) throw error
      return acknowledged
    }
  }
}

describe('a server killed while it writes', () => {
  it('loses nothing it acknowledged, round after round', async () => {
    const acknowledged: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const server = await spawnServer(['--port', '0', '--data-dir', dataDir], { HOMEPORT_ADMIN_TOKEN: ADMIN_TOKEN })
      const clients = Array.from({ length: CLIENTS }, (_, client) => createUntilKilled(server.url, `r${round}-c${client}`))
      await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 500))
      server.child.kill('SIGKILL')
      await exited(server.child)
      for (const names of await Promise.all(clients)) acknowledged.push(...names)
    }
    expect(acknowledged.length).toBeGreaterThan(ROUNDS * CLIENTS)

    const server = await spawnServer(['--port', '0', '--data-dir', dataDir], { HOMEPORT_ADMIN_TOKEN: ADMIN_TOKEN })
    try {
      const response = await fetch(`${server.url}/api/v2/organizations`, { headers })
      const body = (await response.json()) as { data: Array<{ id: string }> }
      const stored = new Set(body.data.map((org) => org.id))
      const lost = acknowledged.filter((name) => !stored.has(name))
      expect(lost).toEqual([])
      // Loading swept away what interrupted writes left behind.
      const files = await readdir(join(dataDir, 'organizations'))
      expect(files.filter((file) => !file.endsWith('.json'))).toEqual([])
    } finally {
      server.child.kill('SIGTERM')
      expect(await exited(server.child)).toBe(0)
    }
  }, 120_000)
})

describe('stopping', () => {
  it('exits 0 on SIGINT and SIGTERM, keeping every write it acknowledged', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const server = await spawnServer(['--port', '0', '--data-dir', dataDir], { HOMEPORT_ADMIN_TOKEN: ADMIN_TOKEN })
      const requests = Array.from({ length: 10 }, (_, i) => {
        const name = `graceful-${signal}-${i}`
        return fetch(`${server.url}/api/v2/organizations`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ data: { type: 'organizations', attributes: { name, email: `${name}@example.com` } } })
        }).then(
          (response) => (response.status === 201 ? name : undefined),
          () => undefined
        )
      })
      await new Promise((resolve) => setTimeout(resolve, 5))
      server.child.kill(signal)
      expect(await exited(server.child)).toBe(0)
      expect(server.output()).toContain(`${signal}: finishing requests in flight`)
      await expect(readdir(dataDir)).resolves.not.toContain('homeport.lock')
      const acknowledged = (await Promise.all(requests)).filter((name) => name !== undefined)

      const restarted = await spawnServer(['--port', '0', '--data-dir', dataDir], { HOMEPORT_ADMIN_TOKEN: ADMIN_TOKEN })
      const body = (await (await fetch(`${restarted.url}/api/v2/organizations`, { headers })).json()) as { data: Array<{ id: string }> }
      const stored = new Set(body.data.map((org) => org.id))
      expect(acknowledged.filter((name) => !stored.has(name))).toEqual([])
      restarted.child.kill('SIGTERM')
      await exited(restarted.child)
    }
  }, 60_000)
})
