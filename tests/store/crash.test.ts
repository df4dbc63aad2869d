import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { moduleArchive } from '../helpers/archives.js'
import { exited, spawnServer } from '../helpers/process.js'
import { eventually } from '../helpers/eventually.js'

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
async function createUntilKilled(url: string, prefix: string, onAcknowledged: () => void): Promise<string[]> {
  const acknowledged: string[] = []
  for (let i = 0; ; i++) {
    const name = `${prefix}-${i}`
    try {
      const response = await fetch(`${url}/api/v2/organizations`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ data: { type: 'organizations', attributes: { name, email: `${name}@example.com` } } })
      })
      if (response.status === 201) {
        acknowledged.push(name)
        onAcknowledged()
      } else throw new Error(`unexpected ${response.status}: ${await response.text()}`)
    } catch (error) {
      if ((error as Error).message.startsWith('unexpected')) throw error
      return acknowledged
    }
  }
}

/**
 * SIGKILLs the server at a random moment once `busy` holds (its clients have had answers): a
 * moment picked on the wall clock alone may come before a loaded machine has answered anyone.
 */
async function killOnceBusy(child: ChildProcess, busy: () => boolean): Promise<void> {
  await eventually(() => expect(busy()).toBe(true), { timeoutMs: 60_000, intervalMs: 10 })
  await new Promise((resolve) => setTimeout(resolve, Math.random() * 400))
  child.kill('SIGKILL')
}

describe('a server killed while it writes', () => {
  it('loses nothing it acknowledged, round after round', async () => {
    const acknowledged: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const server = await spawnServer(['--port', '0', '--data-dir', dataDir], { HOMEPORT_ADMIN_TOKEN: ADMIN_TOKEN })
      let roundAcknowledged = 0
      const clients = Array.from({ length: CLIENTS }, (_, client) => createUntilKilled(server.url, `r${round}-c${client}`, () => roundAcknowledged++))
      await killOnceBusy(server.child, () => roundAcknowledged >= CLIENTS)
      await exited(server.child)
      for (const names of await Promise.all(clients)) acknowledged.push(...names)
    }
    expect(acknowledged.length).toBeGreaterThanOrEqual(ROUNDS * CLIENTS)

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

describe('a server killed while it publishes', () => {
  it('keeps every acknowledged module, version and upload, and leaves nothing half-done', async () => {
    const archive = await moduleArchive({ 'main.tf': 'output "x" {\n  value = 1\n}\n', 'README.md': '# x\n' })
    const dir = await mkdtemp(join(tmpdir(), 'homeport-crash-publish-'))
    const acknowledged = { modules: new Set<string>(), versions: new Set<string>(), uploads: new Set<string>() }
    const call = async (url: string, method: string, path: string, body: unknown) => {
      const response = await fetch(`${url}/api/v2${path}`, { method, headers, body: JSON.stringify(body) })
      return { status: response.status, body: (await response.json()) as { data: { links: { upload: string } } } }
    }
    const publisher = async (url: string, name: string) => {
      try {
        const module = await call(url, 'POST', '/organizations/crash/registry-modules', { data: { type: 'registry-modules', attributes: { name, provider: 'aws' } } })
        if (module.status !== 201) return
        acknowledged.modules.add(name)
        for (let i = 0; ; i++) {
          const version = `1.0.${i}`
          const created = await call(url, 'POST', `/organizations/crash/registry-modules/private/crash/${name}/aws/versions`, {
            data: { type: 'registry-module-versions', attributes: { version } }
          })
          if (created.status !== 201) return
          acknowledged.versions.add(`${name}@${version}`)
          const uploaded = await fetch(created.body.data.links.upload, { method: 'PUT', body: new Uint8Array(archive) })
          if (uploaded.status === 200) acknowledged.uploads.add(`${name}@${version}`)
        }
      } catch {
        // The server was killed: what was acknowledged so far is what counts.
      }
    }
    try {
      for (let round = 0; round < 4; round++) {
        const server = await spawnServer(['--port', '0', '--data-dir', dir], { HOMEPORT_ADMIN_TOKEN: ADMIN_TOKEN })
        if (round === 0) await call(server.url, 'POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'crash', email: 'c@example.com' } } })
        const uploadsBefore = acknowledged.uploads.size
        const clients = Array.from({ length: 6 }, (_, client) => publisher(server.url, `m${round}c${client}`))
        await killOnceBusy(server.child, () => acknowledged.uploads.size > uploadsBefore)
        await exited(server.child)
        await Promise.all(clients)
      }
      expect(acknowledged.uploads.size).toBeGreaterThan(0)

      const server = await spawnServer(['--port', '0', '--data-dir', dir], { HOMEPORT_ADMIN_TOKEN: ADMIN_TOKEN })
      try {
        type ModuleList = { data: Array<{ attributes: { name: string; 'version-statuses': Array<{ version: string; status: string }> } }> }
        // Interrupted ingests resume at start; wait for them to settle.
        const modules = await eventually(async () => {
          const list = (await (await fetch(`${server.url}/api/v2/organizations/crash/registry-modules?page[size]=100`, { headers })).json()) as ModuleList
          const busy = list.data.filter((module) => module.attributes['version-statuses'].some((entry) => entry.status === 'reg_ingressing'))
          expect(busy.map((module) => module.attributes.name)).toEqual([])
          return list
        })
        const statuses = new Map<string, string>(
          modules.data.flatMap((module) => module.attributes['version-statuses'].map((entry) => [`${module.attributes.name}@${entry.version}`, entry.status] as [string, string]))
        )
        const names = new Set(modules.data.map((module) => module.attributes.name))
        expect([...acknowledged.modules].filter((name) => !names.has(name))).toEqual([])
        expect([...acknowledged.versions].filter((version) => !statuses.has(version))).toEqual([])
        for (const version of acknowledged.uploads) expect(statuses.get(version), version).toBe('ok')
        expect([...statuses.values()].filter((status) => status === 'reg_ingressing')).toEqual([])
        expect(await readdir(join(dir, 'uploads'))).toEqual([])
        // Every stored file belongs to a version: identical uploads share one archive, and the one zip made of it for OCI clients.
        const archives = (await readdir(join(dir, 'archives'), { recursive: true })).filter((file) => String(file).endsWith('.tar.gz'))
        expect(archives.length).toBeLessThanOrEqual(2)
      } finally {
        server.child.kill('SIGTERM')
        await exited(server.child)
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
