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

describe('homeport serve, stopped', () => {
  it('stops in order on a SIGTERM that comes while it starts', async () => {
    const { child, dataDir, output } = await serve()
    try {
      // The lock is the start's first step: from then on the server may answer before it says it listens.
      await eventually(() => expect(existsSync(join(dataDir, LOCK_FILE))).toBe(true))
      child.kill('SIGTERM')
      expect(await exited(child)).toBe(0)
      expect(output()).toContain('SIGTERM: ')
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false)
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('stops in order on a SIGTERM once it listens', async () => {
    const { child, dataDir, output } = await serve()
    try {
      await eventually(() => expect(output()).toContain('Homeport listening on'))
      child.kill('SIGTERM')
      expect(await exited(child)).toBe(0)
      expect(output()).toContain('SIGTERM: finishing requests in flight…')
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false)
    } finally {
      child.kill('SIGKILL')
    }
  })
})
