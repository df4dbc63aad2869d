import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createModule, createOrganization, createVersion, doc, startTestServer, upload, type TestServer } from '../helpers/server.js'

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
})
