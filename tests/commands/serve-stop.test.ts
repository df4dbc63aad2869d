import { afterEach, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LOCK_FILE } from '../../src-main/server/data-dir/layout.js'
import { HOMEPORT_CLI } from '../helpers/cli.js'
import { eventually } from '../helpers/eventually.js'
import { exited } from '../helpers/process.js'

/**
 * `homeport serve` stops in order whenever the signal comes: while it starts (it takes its data
 * directory's lock first, and may answer requests before the start is done) as well as once it listens.
 */
const folders: string[] = []
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })))
})

async function serve() {
  const dataDir = await mkdtemp(join(tmpdir(), 'homeport-stop-'))
  folders.push(dataDir)
  const child = spawn(process.execPath, [...HOMEPORT_CLI, 'serve', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return { child, dataDir, output: () => output }
}

/** Starts `serve`, waits until `ready` says the moment has come, sends SIGTERM, and checks the stop was orderly and said `said`. */
async function stopsInOrder(ready: (dataDir: string, output: string) => boolean, said: string): Promise<void> {
  const { child, dataDir, output } = await serve()
  try {
    await eventually(() => expect(ready(dataDir, output())).toBe(true))
    child.kill('SIGTERM')
    expect(await exited(child)).toBe(0)
    expect(output()).toContain(said)
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false)
  } finally {
    child.kill('SIGKILL')
  }
}

describe('homeport serve, stopped', () => {
  it('stops in order on a SIGTERM that comes while it starts', async () => {
    // The lock is the start's first step: from then on the server may answer before it says it listens.
    await stopsInOrder((dataDir) => existsSync(join(dataDir, LOCK_FILE)), 'SIGTERM: ')
  }, 60_000)

  it('stops in order on a SIGTERM once it listens', async () => {
    await stopsInOrder((_dataDir, output) => output.includes('Homeport listening on'), 'SIGTERM: finishing requests in flight…')
  }, 60_000)
})
