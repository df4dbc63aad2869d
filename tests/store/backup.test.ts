import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { create, extract } from 'tar'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { gunzipSync, gzipSync } from 'node:zlib'
import { BackupError, restoreBackup } from '../../src-main/server/store/file/restore.js'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { exited, spawnServer } from '../helpers/process.js'
import { createOrganization, createTeamWithToken, doc, publish, startTestServer } from '../helpers/server.js'
import { HOMEPORT_CLI } from '../helpers/cli.js'
import { publishProviderWithDocs } from '../helpers/provider-docs.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)
const cli = (...args: string[]) => run(process.execPath, [...HOMEPORT_CLI, ...args], { cwd: ROOT })

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
      const { stdout } = await run(process.execPath, [...HOMEPORT_CLI, 'backup', backupFile(), '--data-dir', original], {
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
    const docs = await publishProviderWithDocs(source, 'acme')
    const team = await createTeamWithToken(source, 'acme', 'readers')
    const response = await source.fetch(`${source.url}/api/homeport/v1/backup`, { headers: { Authorization: `Bearer ${source.adminToken}` } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-disposition')).toMatch(/homeport-backup-\d{4}-\d{2}-\d{2}\.tar\.gz/)
    const file = join(work, 'with-modules.tar.gz')
    await writeFile(file, Buffer.from(await response.arrayBuffer()))
    expect((await source.fetch(`${source.url}/api/homeport/v1/backup`, { headers: { Authorization: `Bearer ${team.token}` } })).status).toBe(404)
    await source.close()

    const target = join(work, 'restored')
    // Another installation made it: the restore says so, and needs the user's word.
    const refused = await cli('restore', file, '--data-dir', target).then(
      () => undefined,
      (error: { stderr: string }) => error.stderr
    )
    expect(refused).toMatch(/cannot vouch for .*--accept-unverified\. Nothing was restored/)
    const { stdout } = await cli('restore', file, '--data-dir', target, '--accept-unverified')
    expect(stdout).toContain(`Restored ${file} into ${target}.`)
    expect(stdout).toContain('this installation did not make it')
    const restored = await startTestServer({ dataDir: target })
    try {
      expect((await restored.api('GET', '/organizations/acme', { token: team.token })).status).toBe(200)
      const detail = await restored.api('GET', '/api/registry/v1/modules/acme/network/aws/1.0.0')
      expect(detail.body.root.inputs.map((input: { name: string }) => input.name)).toContain('region')
      const location = (await restored.api('GET', '/api/registry/v1/modules/acme/network/aws/1.0.0/download')).headers.get('x-terraform-get')!
      expect((await fetch(location)).status).toBe(200)
      expect((await restored.api('GET', '/api/registry/v1/providers/acme/widget/1.0.0', { token: team.token })).body).toEqual(docs)
      expect((await restored.api('GET', `/api/registry/v2/provider-docs/${docs.docs[0]!.id}`, { token: team.token })).body.data.attributes.content).toMatch(/^---/)
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

    const { kept, provenance } = await restoreBackup(backupFile(), target, { acceptUnverified: true })
    expect(provenance).toBe('unverified')
    expect(kept).toMatch(/replaced\.before-restore-/)
    expect((await readdir(join(kept!, 'organizations'))).filter((name) => name.endsWith('.json'))).toHaveLength(1)
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
    await expect(restoreBackup(altered, target, { acceptUnverified: true })).rejects.toThrow(/damaged: .* altered\. Nothing was restored/)

    const garbage = join(work, 'garbage.tar.gz')
    await writeFile(garbage, 'not a backup')
    await expect(restoreBackup(garbage, target, { acceptUnverified: true })).rejects.toThrow(/is not a Homeport backup/)

    expect(await readdir(join(target, 'organizations'))).toEqual(before)
    expect((await readdir(work)).filter((name) => name.startsWith('untouched.'))).toEqual([])
  })
})

describe('what a backup proves', () => {
  let home: string
  let signed: string
  let org: { id: string; attributes: Record<string, unknown> }
  beforeAll(async () => {
    home = join(work, 'home')
    const server = await startTestServer({ dataDir: home, tls: true })
    org = await createOrganization(server, 'acme')
    await publish(server, 'acme', 'network', 'aws', '1.0.0', NETWORK_MODULE)
    signed = join(work, 'signed.tar.gz')
    await writeFile(signed, Buffer.from(await (await server.fetch(`${server.url}/api/homeport/v1/backup`, { headers: { Authorization: `Bearer ${server.adminToken}` } })).arrayBuffer()))
    await server.stop()
  })

  it('holds neither the CA’s private key nor the backup key', async () => {
    const paths = (JSON.parse(extractManifest(await readFile(signed))) as { files: Array<{ path: string }> }).files.map((file) => file.path)
    expect(paths).toContain('tls/ca.crt')
    expect(paths).not.toContain('tls/ca.key')
    expect(paths).not.toContain('backup-key')
  })

  it('restores this installation’s own backup as signed, without asking', async () => {
    const { provenance } = await restoreBackup(signed, home)
    expect(provenance).toBe('signed')
    // The installation keeps its backup key (and the restored data its CA key stays out of).
    await expect(readFile(join(home, 'backup-key'))).resolves.toHaveLength(32)
  })

  it('refuses a forged backup whose checksums match: a planted owners-team token', async () => {
    const plantedToken = 'hp1.planted-by-whoever-wrote-this-backup'
    const forged = await rewriteBackup(signed, `organizations/${org.attributes['external-id'] as string}.json`, (text) => {
      const file = JSON.parse(text) as { record: { teams: Array<{ owners: boolean; token: unknown }> } }
      file.record.teams.find((team) => team.owners)!.token = { id: 'at-planted', hash: createHash('sha256').update(plantedToken).digest('hex'), createdAt: new Date().toISOString(), description: null }
      return JSON.stringify(file)
    })
    await expect(restoreBackup(forged, home)).rejects.toThrow(/cannot vouch for .*forged backup can carry team tokens/)
    // Nothing changed: the planted token opens nothing.
    const server = await startTestServer({ dataDir: home })
    try {
      expect((await server.api('GET', '/organizations/acme', { token: plantedToken })).status).toBe(401)
    } finally {
      await server.stop()
    }
  })

  it('refuses, whatever the user vouches for, records that would lead outside the data directory', async () => {
    const [moduleFile] = (await readdir(join(home, 'modules'))).filter((name) => name.endsWith('.json'))
    const forged = await rewriteBackup(signed, `modules/${moduleFile!}`, (text) => text.replace(/"sha256":"[0-9a-f]{64}"/, '"sha256":"../../etc/passwd"'))
    await expect(restoreBackup(forged, home, { acceptUnverified: true })).rejects.toThrow(/does not load: [\s\S]*archive is not a SHA-256[\s\S]*Nothing was restored/)
  })
})

/**
 * A backup with one file rewritten and its manifest's checksum fixed to match, as anyone could
 * do with a text editor and sha256sum: the signature is the only thing it cannot fix.
 */
async function rewriteBackup(file: string, path: string, change: (text: string) => string): Promise<string> {
  const dir = await mkdtemp(join(work, 'forge-'))
  await extract({ file, cwd: dir })
  const target = join(dir, 'data', path)
  await writeFile(target, change(await readFile(target, 'utf8')))
  const manifestPath = join(dir, 'homeport-backup.json')
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { files: Array<{ path: string; size: number; sha256: string }> }
  const entry = manifest.files.find((candidate) => candidate.path === path)!
  const content = await readFile(target)
  entry.sha256 = createHash('sha256').update(content).digest('hex')
  entry.size = content.length
  await writeFile(manifestPath, JSON.stringify(manifest))
  const forged = join(work, `forged-${Math.random().toString(36).slice(2)}.tar.gz`)
  await create({ cwd: dir, gzip: true, file: forged, portable: true }, ['homeport-backup.json', 'data'])
  return forged
}

/** The manifest, read from the tar inside the gzip (it is the first entry). */
function extractManifest(archive: Buffer): string {
  const tar = gunzipSync(archive)
  const size = Number.parseInt(tar.subarray(124, 136).toString().trim(), 8)
  return tar.subarray(512, 512 + size).toString()
}
