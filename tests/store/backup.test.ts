import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { gunzipSync, gzipSync } from 'node:zlib'
import { BackupError, restoreBackup } from '../../src-main/server/store/backup.js'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { exited, spawnServer } from '../helpers/process.js'
import { createOrganization, createTeamWithToken, doc, publish, startTestServer } from '../helpers/server.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)
const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'src-main/server/cli.ts', ...args], { cwd: ROOT })

let work: string
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-backup-'))
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

describe('backup and restore', () => {
  const backupFile = () => join(work, 'backup.tar.gz')
  let original: string

  it('takes a consistent backup from a running server, with the CLI, while it keeps writing', async () => {
    original = join(work, 'original')
    const token = 'backup-test-admin-token-0123456789'
    const server = await spawnServer(['--port', '0', '--data-dir', original], { HOMEPORT_ADMIN_TOKEN: token })
    try {
      const api = (method: string, path: string, body: unknown) =>
        fetch(`${server.url}/api/v2${path}`, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/vnd.api+json' }, body: JSON.stringify(body) })
      await api('POST', '/organizations', doc('organizations', { name: 'acme', email: 'a@acme.example' }))
      const writer = (async () => {
        for (let i = 0; i < 30; i++) await api('POST', '/organizations/acme/registry-modules', doc('registry-modules', { name: `m${i}`, provider: 'aws' }))
      })()
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src-main/server/cli.ts', 'backup', backupFile(), '--data-dir', original], {
        cwd: ROOT,
        env: { ...process.env, HOMEPORT_ADMIN_TOKEN: token }
      })
      await writer
      expect(stdout).toContain('(from the running server)')
      const manifest = JSON.parse(extractManifest(await readFile(backupFile()))) as { files: Array<{ path: string }> }
      expect(manifest.files.some((file) => file.path.startsWith('organizations/'))).toBe(true)
      expect(manifest.files.some((file) => file.path === 'admin-token')).toBe(false)
    } finally {
      server.child.kill('SIGTERM')
      await exited(server.child)
    }
  }, 60_000)

  it('restores a backup with documented versions into a new data directory', async () => {
    const source = await startTestServer({ dataDir: join(work, 'source') })
    await createOrganization(source, 'acme')
    await publish(source, 'acme', 'network', 'aws', '1.0.0', NETWORK_MODULE)
    const team = await createTeamWithToken(source, 'acme', 'readers')
    const response = await source.fetch(`${source.url}/api/homeport/v1/backup`, { headers: { Authorization: `Bearer ${source.adminToken}` } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-disposition')).toMatch(/homeport-backup-\d{4}-\d{2}-\d{2}\.tar\.gz/)
    const file = join(work, 'with-modules.tar.gz')
    await writeFile(file, Buffer.from(await response.arrayBuffer()))
    expect((await source.fetch(`${source.url}/api/homeport/v1/backup`, { headers: { Authorization: `Bearer ${team.token}` } })).status).toBe(404)
    await source.close()

    const target = join(work, 'restored')
    const { stdout } = await cli('restore', file, '--data-dir', target)
    expect(stdout).toContain(`Restored ${file} into ${target}.`)
    const restored = await startTestServer({ dataDir: target })
    try {
      expect((await restored.api('GET', '/organizations/acme', { token: team.token })).status).toBe(200)
      const detail = await restored.api('GET', '/api/registry/v1/modules/acme/network/aws/1.0.0')
      expect(detail.body.root.inputs.map((input: { name: string }) => input.name)).toContain('region')
      const location = (await restored.api('GET', '/api/registry/v1/modules/acme/network/aws/1.0.0/download')).headers.get('x-terraform-get')!
      expect((await fetch(`${restored.url}${location}`)).status).toBe(200)
    } finally {
      await restored.close()
    }
  })

  it('keeps the data it replaces, and refuses while Homeport runs', async () => {
    const target = join(work, 'replaced')
    const current = await startTestServer({ dataDir: target })
    await createOrganization(current, 'before')
    const refused = await restoreBackup(backupFile(), target).then(
      () => undefined,
      (error: unknown) => error
    )
    expect(refused).toBeInstanceOf(BackupError)
    expect((refused as Error).message).toMatch(/Stop Homeport before restoring/)
    await current.stop()

    const { kept } = await restoreBackup(backupFile(), target)
    expect(kept).toMatch(/replaced\.before-restore-/)
    expect((await readdir(join(kept!, 'organizations'))).length).toBe(1)
    const after = await startTestServer({ dataDir: target })
    try {
      expect((await after.api('GET', '/organizations/acme')).status).toBe(200)
      expect((await after.api('GET', '/organizations/before')).status).toBe(404)
    } finally {
      await after.stop()
    }
  })

  it('checks a backup before it replaces anything', async () => {
    const target = join(work, 'untouched')
    const current = await startTestServer({ dataDir: target })
    await createOrganization(current, 'precious')
    await current.stop()
    const before = await readdir(join(target, 'organizations'))

    const tar = gunzipSync(await readFile(backupFile()))
    const at = tar.indexOf(Buffer.from('"acme"'))
    tar.write('"acmf"', at)
    const altered = join(work, 'altered.tar.gz')
    await writeFile(altered, gzipSync(tar))
    await expect(restoreBackup(altered, target)).rejects.toThrow(/damaged: .* altered\. Nothing was restored/)

    const garbage = join(work, 'garbage.tar.gz')
    await writeFile(garbage, 'not a backup')
    await expect(restoreBackup(garbage, target)).rejects.toThrow(/is not a Homeport backup/)

    expect(await readdir(join(target, 'organizations'))).toEqual(before)
    expect((await readdir(work)).filter((name) => name.startsWith('untouched.'))).toEqual([])
  })
})

/** The manifest, read from the tar inside the gzip (it is the first entry). */
function extractManifest(archive: Buffer): string {
  const tar = gunzipSync(archive)
  const size = Number.parseInt(tar.subarray(124, 136).toString().trim(), 8)
  return tar.subarray(512, 512 + size).toString()
}
