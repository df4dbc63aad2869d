import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readdir, rm, statfs, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { moduleArchive } from '../helpers/archives.js'
import { exited, spawnServer } from '../helpers/process.js'
import { createModule, createOrganization, createVersion, doc, settledVersion, startTestServer, upload, type TestServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'

/**
 * A real small file system (tmpfs) under the data directory, filled up or made read-only. It
 * needs the right to mount (root, as on the build machines); elsewhere these tests are skipped.
 */
let mountPoint: string
let mounted = false
beforeAll(async () => {
  mountPoint = await mkdtemp(join(tmpdir(), 'homeport-smallfs-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint], { stdio: 'ignore' })
    mounted = true
  } catch {
    mounted = false
  }
})
afterAll(async () => {
  if (mounted) execFileSync('umount', [mountPoint])
  await rm(mountPoint, { recursive: true, force: true })
})

describe('a full disk and a read-only data directory', () => {
  let test: TestServer
  const filler = () => join(mountPoint, 'filler')

  it('answers a write on a full disk with 507, writes nothing, and works again once there is room', async ({ skip }) => {
    if (!mounted) skip('mounting a small file system needs root')
    test = await startTestServer({ dataDir: join(mountPoint, 'data') })
    await createOrganization(test, 'kept')
    await createModule(test, 'kept', 'vpc', 'aws')
    const version = await createVersion(test, 'kept', 'vpc', 'aws', '1.0.0')
    const before = await readdir(join(test.dataDir, 'organizations'))
    // Fill the file system to the last byte.
    try {
      await writeFile(filler(), Buffer.alloc(16 * 1024 * 1024))
    } catch {
      // ENOSPC: exactly what was wanted.
    }
    const refused = await test.api('POST', '/organizations', { body: doc('organizations', { name: 'new-one', email: 'a@b.example' }) })
    expect(refused.status).toBe(507)
    expect(refused.body.errors[0].detail).toMatch(/disk .* is full: nothing was written/)
    const uploadRefused = await upload(version.links.upload, Buffer.alloc(64 * 1024, 7))
    expect(uploadRefused.status).toBe(507)
    expect(await readdir(join(test.dataDir, 'organizations'))).toEqual(before)
    expect((await test.api('GET', '/organizations/kept')).status).toBe(200)

    await rm(filler())
    const accepted = await test.api('POST', '/organizations', { body: doc('organizations', { name: 'new-one', email: 'a@b.example' }) })
    expect(accepted.status).toBe(201)
    await test.restart()
    expect((await test.api('GET', '/organizations/kept')).status).toBe(200)
    expect((await test.api('GET', '/organizations/new-one')).status).toBe(200)
    expect(await readdir(join(test.dataDir, 'uploads'))).toEqual([])
  })

  it('answers a write on a read-only data directory with 503 and keeps serving reads', async ({ skip }) => {
    if (!mounted) skip('mounting a small file system needs root')
    execFileSync('mount', ['-o', 'remount,ro', mountPoint])
    try {
      const refused = await test.api('POST', '/organizations', { body: doc('organizations', { name: 'read-only', email: 'a@b.example' }) })
      expect(refused.status).toBe(503)
      expect(refused.body.errors[0].detail).toMatch(/cannot write to its data directory/)
      expect((await test.api('GET', '/organizations/kept')).status).toBe(200)
      expect((await test.api('GET', '/api/registry/v1/modules')).status).toBe(200)
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint])
    }
    expect((await test.api('GET', '/organizations/read-only')).status).toBe(404)
    await test.stop()
  })

  it('fails an upload that meets a full disk with that reason, not as interrupted', async ({ skip }) => {
    if (!mounted) skip('mounting a small file system needs root')
    const server = await startTestServer({ dataDir: join(mountPoint, 'data') })
    try {
      const version = await createVersion(server, 'kept', 'vpc', 'aws', '1.1.0')
      // Room for a record, not for the archive.
      await fillLeaving(64 * 1024)
      expect((await upload(version.links.upload, randomBytes(1024 * 1024))).status).toBe(507)
      const { entry } = await settledVersion(server, 'kept', 'vpc', 'aws', '1.1.0')
      expect(entry).toMatchObject({ status: 'reg_ingress_failed', error: expect.stringMatching(/disk that holds Homeport’s data is full: the archive was not stored/) })
    } finally {
      await rm(filler(), { force: true })
      await server.stop()
    }
  })

  it('starts read-only on a full disk: reads served, writes refused with the reason', async ({ skip }) => {
    if (!mounted) skip('mounting a small file system needs root')
    await fillLeaving(0)
    const server = await startTestServer({ dataDir: join(mountPoint, 'data') })
    try {
      expect(server.server.writesRefused).toMatch(/was full when Homeport started/)
      expect((await server.api('GET', '/organizations/kept')).status).toBe(200)
      expect((await server.api('GET', '/api/registry/v1/modules')).status).toBe(200)
      const refused = await server.api('POST', '/organizations', { body: doc('organizations', { name: 'nope', email: 'a@b.example' }) })
      expect(refused.status).toBe(507)
      expect(refused.body.errors[0].detail).toMatch(/was full when Homeport started, so it serves reads only: nothing was written/)
    } finally {
      await server.stop()
      await rm(filler(), { force: true })
    }
  })

  it('starts read-only on a read-only mount, stale lock and all, and names the cause', async ({ skip }) => {
    if (!mounted) skip('mounting a small file system needs root')
    const dataDir = join(mountPoint, 'data')
    // A lock left by a process that is gone.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid
    await writeFile(join(dataDir, 'homeport.lock'), String(gone))
    execFileSync('mount', ['-o', 'remount,ro', mountPoint])
    try {
      const server = await startTestServer({ dataDir })
      try {
        expect((await server.api('GET', '/organizations/kept')).status).toBe(200)
        const refused = await server.api('POST', '/organizations', { body: doc('organizations', { name: 'nope', email: 'a@b.example' }) })
        expect(refused.status).toBe(503)
        expect(refused.body.errors[0].detail).toMatch(/data directory is read-only .* serves reads only/)
      } finally {
        await server.stop()
      }
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint])
      await rm(join(dataDir, 'homeport.lock'), { force: true })
    }
  })

  it('keeps serving when download counts cannot be written, and a stop says what it lost', async ({ skip }) => {
    if (!mounted) skip('mounting a small file system needs root')
    const token = 'disk-fault-admin-token-0123456789'
    const server = await spawnServer(['--port', '0', '--data-dir', join(mountPoint, 'data')], { HOMEPORT_ADMIN_TOKEN: token })
    let status: number | string
    try {
      const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/vnd.api+json' }
      const created = (await (
        await fetch(`${server.url}/api/v2/organizations/kept/registry-modules/private/kept/vpc/aws/versions`, {
          method: 'POST',
          headers,
          body: JSON.stringify(doc('registry-module-versions', { version: '2.0.0' }))
        })
      ).json()) as { data: { links: { upload: string } } }
      expect((await upload(created.data.links.upload, await moduleArchive({ 'main.tf': 'output "x" {\n  value = 1\n}\n' }))).status).toBe(200)
      await eventually(async () => expect((await fetch(`${server.url}/api/registry/v1/modules/kept/vpc/aws/2.0.0`, { headers })).status).toBe(200))
      // A first count written before the disk fills: that first write removes the saved indexes of the
      // counts (a clean close's), which on a full disk would free the room the next write needs.
      expect((await fetch(`${server.url}/api/registry/v1/modules/kept/vpc/aws/2.0.0/download`, { headers })).status).toBe(204)
      await eventually(async () => expect((await readdir(join(mountPoint, 'data', 'downloads'))).filter((name) => name.endsWith('.json'))).toHaveLength(1))
      await fillLeaving(0)
      for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/api/registry/v1/modules/kept/vpc/aws/2.0.0/download`, { headers })).status).toBe(204)
      // The flush (the server's own job, every two seconds) fails; the server goes on, and says so once.
      await eventually(() => expect(server.output()).toMatch(/download counts could not be written; they are kept in memory/))
      expect((await fetch(`${server.url}/api/registry/v2/modules/kept/vpc/aws/downloads/summary`, { headers })).status).toBe(200)
      expect(server.output().match(/download counts could not be written; they are kept in memory/g)).toHaveLength(1)
      // Stopping frees a little room (server.json goes), so make sure nothing can be written then.
      execFileSync('mount', ['-o', 'remount,ro', mountPoint])
    } finally {
      server.child.kill('SIGTERM')
      status = await exited(server.child)
      execFileSync('mount', ['-o', 'remount,rw', mountPoint])
      await rm(filler(), { force: true })
    }
    expect(status).toBe(0)
    expect(server.output()).toMatch(/3 downloads of 1 module could not be written and are lost from the counts/)
  }, 30_000)
})

/** Fills the small file system until only `room` bytes are free. */
async function fillLeaving(room: number): Promise<void> {
  const { bavail, bsize } = await statfs(mountPoint)
  const size = Math.max(0, bavail * bsize - room)
  try {
    await writeFile(join(mountPoint, 'filler'), Buffer.alloc(size))
  } catch {
    // ENOSPC: the disk is as full as it gets.
  }
}
