import { afterEach, describe, expect, it } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../../src-main/server/boot/start-server.js'
import { DataDirInUseError } from '../../src-main/server/data-dir/lock.js'
import { StoreLoadError } from '../../src-main/server/store/errors.js'
import { moduleArchive } from '../helpers/archives.js'
import { exited } from '../helpers/process.js'
import { createOrganization, createTeamWithToken, startTestServer, upload, type TestServer } from '../helpers/server.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!()
})

async function server(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const test = await startTestServer(options)
  cleanup.push(() => test.close())
  return test
}

describe('the data directory', () => {
  it('keeps organizations, teams and tokens across a restart', async () => {
    const test = await server()
    await createOrganization(test, 'durable')
    const team = await createTeamWithToken(test, 'durable', 'keepers')
    await test.restart()
    expect((await test.api('GET', '/organizations/durable')).status).toBe(200)
    expect((await test.api('GET', '/organizations/durable', { token: team.token })).status).toBe(200)
  })

  it('generates the admin token once, readable by its owner only, and keeps it', async () => {
    const test = await server()
    const path = join(test.dataDir, 'admin-token')
    const token = (await readFile(path, 'utf8')).trim()
    expect(token).toBe(test.adminToken)
    expect((await stat(path)).mode & 0o777).toBe(0o600)
    expect((await stat(test.dataDir)).mode & 0o777).toBe(0o700)
    await test.restart()
    expect(test.adminToken).toBe(token)
    expect(test.server.adminToken.source).toEqual({ kind: 'file', path, created: false })
  })

  it('takes the admin token from HOMEPORT_ADMIN_TOKEN when given, and refuses a short one', async () => {
    const test = await server({ adminToken: 'a-long-enough-admin-token' })
    expect((await test.api('GET', '/organizations', { token: 'a-long-enough-admin-token' })).status).toBe(200)
    await expect(readdir(test.dataDir)).resolves.not.toContain('admin-token')
    const dataDir = await mkdtemp(join(tmpdir(), 'homeport-short-'))
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
    await expect(startServer({ dataDir, host: '127.0.0.1', port: 0, edition: 'hosted', adminToken: 'short' })).rejects.toThrow(
      /too short/
    )
  })

  it('lets one Homeport at a time use a data directory, and takes over a stale lock', async () => {
    const test = await server()
    const error = await startServer({ dataDir: test.dataDir, host: '127.0.0.1', port: 0, edition: 'hosted' }).then(
      () => undefined,
      (caught: unknown) => caught
    )
    expect(error).toBeInstanceOf(DataDirInUseError)
    expect((error as Error).message).toContain(String(process.pid))
    await test.stop()
    // A lock left by a process that no longer exists does not keep Homeport from starting.
    await writeFile(join(test.dataDir, 'homeport.lock'), '2147483646')
    await test.restart()
    expect((await test.api('GET', '/organizations')).status).toBe(200)
  })

  it('gives a stale lock to exactly one of many Homeports starting at the same moment', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'homeport-lock-race-'))
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
    const lockModule = pathToFileURL(join(ROOT, 'src-main/server/data-dir/lock.ts')).toString()
    // Each contender says it is ready, waits for "go", takes the lock (or is refused) and says which, then
    // holds what it got until its input ends: the winner is alive until every contender has answered, however
    // slowly a loaded machine starts them (a winner gone too early would leave a stale lock a late one may take).
    const contender = `import { lockDataDir } from ${JSON.stringify(lockModule)}
      import { createInterface } from 'node:readline'
      const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
      console.log('READY')
      await lines.next()
      try { await lockDataDir(${JSON.stringify(dataDir)}); console.log('LOCKED') }
      catch (error) { console.log(error.name === 'DataDirInUseError' ? 'REFUSED' : 'ERROR ' + error.message) }
      await lines.next()`
    for (let round = 0; round < 2; round++) {
      // A lock left by a process that is gone (its pid is free).
      const gone = spawnSync(process.execPath, ['-e', '0']).pid
      await writeFile(join(dataDir, 'homeport.lock'), String(gone))
      const contenders = Array.from({ length: 8 }, () => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', contender], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] })
        return { child, lines: createInterface({ input: child.stdout })[Symbol.asyncIterator]() }
      })
      const said = () => Promise.all(contenders.map(async ({ lines }) => ((await lines.next()).value as string | undefined)?.trim()))
      expect(await said()).toEqual(Array(8).fill('READY'))
      for (const { child } of contenders) child.stdin.write('go\n')
      const outcomes = await said()
      for (const { child } of contenders) child.stdin.end()
      await Promise.all(contenders.map(({ child }) => exited(child)))
      expect(outcomes.filter((outcome) => outcome === 'LOCKED'), `round ${round}: ${outcomes.join(', ')}`).toHaveLength(1)
      expect(outcomes.filter((outcome) => outcome === 'REFUSED')).toHaveLength(7)
      // The winner, gone too, left its lock behind: the next round starts from a stale lock again.
      await rm(join(dataDir, 'homeport.lock'), { force: true })
    }
    expect((await readdir(dataDir)).filter((name) => name.startsWith('homeport.lock'))).toEqual([])
  }, 60_000)

  it('refuses to start on an organization file it cannot read, naming it', async () => {
    const test = await server()
    const org = await createOrganization(test, 'broken')
    await test.stop()
    const path = join(test.dataDir, 'organizations', `${org.attributes['external-id'] as string}.json`)
    await writeFile(path, '{"schemaVersion": 1, "record": ')
    const error = await startServer({ dataDir: test.dataDir, host: '127.0.0.1', port: 0, edition: 'hosted' }).then(
      () => undefined,
      (caught: unknown) => caught
    )
    expect(error).toBeInstanceOf(StoreLoadError)
    expect((error as Error).message).toContain(path)
    expect(await readFile(path, 'utf8')).toBe('{"schemaVersion": 1, "record": ')
    // The failed start released the data directory.
    await expect(readdir(test.dataDir)).resolves.not.toContain('homeport.lock')
    await rm(path)
    await test.restart()
  })
})

describe('schema migrations', () => {
  it('upgrades organizations and modules written by the first schema, and keeps serving them', async () => {
    const test = await server()
    const org = await createOrganization(test, 'old-timer')
    await test.api('POST', '/organizations/old-timer/registry-modules', {
      body: { data: { type: 'registry-modules', attributes: { name: 'legacy', provider: 'aws' } } }
    })
    await test.api('POST', '/organizations/old-timer/registry-modules/private/old-timer/legacy/aws/versions', {
      body: { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } }
    })
    await test.stop()
    // Rewrite both files as schema 1 wrote them: no VCS fields.
    const orgPath = join(test.dataDir, 'organizations', `${org.attributes['external-id'] as string}.json`)
    const orgFile = JSON.parse(await readFile(orgPath, 'utf8')) as { schemaVersion: number; record: Record<string, unknown> }
    delete orgFile.record.vcsConnections
    delete orgFile.record.token
    for (const team of orgFile.record.teams as Array<{ token: Record<string, unknown> | null }>) if (team.token) delete team.token.expiredAt
    await writeFile(orgPath, JSON.stringify({ ...orgFile, schemaVersion: 1 }))
    const [moduleFile] = (await readdir(join(test.dataDir, 'modules'))).filter((name) => name.endsWith('.json'))
    const modulePath = join(test.dataDir, 'modules', moduleFile!)
    const module = JSON.parse(await readFile(modulePath, 'utf8')) as { record: Record<string, unknown> }
    delete module.record.vcsRepo
    // Schema 1 and 2 stored each version's upload link; schema 3 derives it.
    for (const version of module.record.versions as Array<Record<string, unknown>>) {
      delete version.tag
      delete version.linkGeneration
      version.upload = { nonce: 'n', digest: 'd'.repeat(64), expiresAt: new Date().toISOString(), usedAt: null }
    }
    await writeFile(modulePath, JSON.stringify({ schemaVersion: 1, record: module.record }))

    await test.restart()
    expect((await test.api('GET', '/organizations/old-timer/oauth-clients')).body.data).toEqual([])
    expect((await test.api('GET', '/organizations/old-timer/registry-modules/private/old-timer/legacy/aws')).status).toBe(200)
    expect(JSON.parse(await readFile(orgPath, 'utf8'))).toMatchObject({ schemaVersion: 6, record: { vcsConnections: [], token: null, cliTokens: [], loginCodes: [] } })
    const upgraded = JSON.parse(await readFile(modulePath, 'utf8')) as { schemaVersion: number; record: { vcsRepo: null; versions: Array<Record<string, unknown>> } }
    expect(upgraded).toMatchObject({ schemaVersion: 5, record: { vcsRepo: null, versions: [{ version: '1.0.0', tag: null, deprecation: null, revocation: null }] } })
    expect(upgraded.record.versions[0]).not.toHaveProperty('upload')
    expect(upgraded.record.versions[0]).not.toHaveProperty('linkGeneration')
    const version = await test.api('GET', '/organizations/old-timer/registry-modules/private/old-timer/legacy/aws/version?module_version=1.0.0')
    expect((await upload(version.body.data.links.upload as string, await moduleArchive({ 'main.tf': '' }))).status).toBe(200)
  })
})

describe('concurrent writes', () => {
  it('creates fifty organizations at once without losing one', async () => {
    const test = await server()
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => createOrganization(test, `burst-${i}`)))
    expect(responses).toHaveLength(50)
    await test.restart()
    const list = await test.api('GET', '/organizations?q=burst-')
    expect(list.body.data).toHaveLength(50)
  })

  it('gives exactly one of many racing creates of one name its 201', async () => {
    const test = await server()
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        test
          .api('POST', '/organizations', {
            body: { data: { type: 'organizations', attributes: { name: 'contested', email: 'a@b.example' } } }
          })
          .then((response) => response.status)
      )
    )
    expect(statuses.filter((status) => status === 201)).toHaveLength(1)
    expect(statuses.filter((status) => status === 422)).toHaveLength(19)
  })

  it('keeps every team when many are added to one organization at once', async () => {
    const test = await server()
    await createOrganization(test, 'crowded')
    await Promise.all(Array.from({ length: 30 }, (_, i) => createTeamWithToken(test, 'crowded', `team-${i}`)))
    await test.restart()
    const teams = await test.api('GET', '/organizations/crowded/teams?page[size]=100')
    expect(teams.body.data).toHaveLength(31)
  })
})
