import { afterAll, describe, expect, inject, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { moduleArchive } from '../helpers/archives.js'
import { postgresDatabases } from '../helpers/postgres.js'
import { exited, spawnServer, type ServerProcess } from '../helpers/process.js'

/** The run's PostgreSQL server, which the slow project starts where one is installed. */
const POSTGRES_URL = inject('postgresUrl')
const ADMIN = 'crash-admin-token-0123456789abcdef'
const cleanups: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
})

/** A request as a client makes it; a replica that is gone answers nothing, which acknowledges nothing. */
async function call(replica: ServerProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: { data?: { attributes: Record<string, unknown>; links?: Record<string, string> } } } | undefined> {
  try {
    const response = await fetch(`${replica.url}/api/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/vnd.api+json' },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: response.status, body: (await response.json().catch(() => ({}))) as never }
  } catch {
    return undefined
  }
}

describe.skipIf(!POSTGRES_URL)(`two replicas on one database, one killed mid-work${POSTGRES_URL ? '' : ' (skipped: no PostgreSQL is installed)'}`, () => {
  it('loses nothing acknowledged, and every acknowledged upload is published, the dead replica’s ingests taken over', async () => {
    const databases = postgresDatabases(POSTGRES_URL)
    const database = await databases.create()
    cleanups.push(() => databases.drop(database))
    const start = async () => {
      const dir = await mkdtemp(join(tmpdir(), 'homeport-crash-replica-'))
      cleanups.push(() => rm(dir, { recursive: true, force: true }))
      const replica = await spawnServer(['serve', '--port', '0', '--data-dir', dir], { HOMEPORT_DATABASE_URL: database, HOMEPORT_ADMIN_TOKEN: ADMIN, HOMEPORT_UPSTREAM: 'http://127.0.0.1:9' })
      cleanups.push(async () => {
        replica.child.kill('SIGKILL')
        await exited(replica.child)
      })
      return replica
    }
    const survivor = await start()
    const victim = await start()
    expect((await call(survivor, 'POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'crash', email: 'crash@example.com' } } }))?.status).toBe(201)
    expect((await call(victim, 'POST', '/organizations/crash/registry-modules', { data: { type: 'registry-modules', attributes: { name: 'load', provider: 'aws' } } }))?.status).toBe(201)

    const acknowledged: string[] = []
    const uploaded: string[] = []
    let killed = false
    // The victim dies at a random moment while eight clients write through both.
    const killer = new Promise<void>((resolve) =>
      setTimeout(() => {
        victim.child.kill('SIGKILL')
        killed = true
        resolve()
      }, 500 + Math.random() * 1500)
    )
    const archive = await moduleArchive({ 'main.tf': 'variable "name" {\n  type = string\n}\n\noutput "name" {\n  value = var.name\n}\n' })
    const client = async (id: number) => {
      for (let round = 0; round < 12; round++) {
        const version = `1.${id}.${round}`
        const replica = !killed && round % 2 ? victim : survivor
        const created = await call(replica, 'POST', '/organizations/crash/registry-modules/private/crash/load/aws/versions', { data: { type: 'registry-module-versions', attributes: { version } } })
        if (created?.status !== 201) continue
        acknowledged.push(version)
        const link = created.body.data!.links!.upload!
        const put = await fetch(link, { method: 'PUT', body: new Uint8Array(archive) }).catch(() => undefined)
        if (put?.status === 200) uploaded.push(version)
      }
    }
    await Promise.all([killer, ...Array.from({ length: 8 }, (_, id) => client(id))])
    expect(killed).toBe(true)
    expect(uploaded.length).toBeGreaterThan(20)

    // Every acknowledged version is there; every acknowledged upload ends published (taken over within a lease).
    const statuses = async () => {
      const module = await call(survivor, 'GET', '/organizations/crash/registry-modules/private/crash/load/aws')
      return new Map((module!.body.data!.attributes['version-statuses'] as Array<{ version: string; status: string }>).map((entry) => [entry.version, entry.status]))
    }
    for (const version of acknowledged) expect((await statuses()).has(version), version).toBe(true)
    await expect
      .poll(async () => {
        const now = await statuses()
        return uploaded.filter((version) => now.get(version) !== 'ok')
      }, { timeout: 90_000, interval: 1000 })
      .toEqual([])
  }, 150_000)
})
