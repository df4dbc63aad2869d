import { describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { HOMEPORT_CLI } from '../helpers/cli.js'

// The command line as a process: what it prints, and what it reads from the environment. No store
// is involved, so these run once, not again on PostgreSQL.
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

describe('homeport terraform-config', () => {
  it('uses HOMEPORT_ADMIN_TOKEN when it is set and no --token is given', async () => {
    const { stdout } = await run(process.execPath, [...HOMEPORT_CLI, 'terraform-config', '--data-dir', '/nonexistent-homeport'], {
      cwd: ROOT,
      env: { ...process.env, HOMEPORT_ADMIN_TOKEN: 'admin-token-from-the-environment' }
    })
    expect(stdout).toContain('token = "admin-token-from-the-environment"')
  })
})

describe('homeport --help', () => {
  it('prints the usage for any command, and nothing else', async () => {
    const questions = [['--help'], ['serve', '--help'], ['-h'], ['backup', '--help'], ['serve', '--port', '1', '--help']]
    const answers = await Promise.all(questions.map((args) => run(process.execPath, [...HOMEPORT_CLI, ...args], { cwd: ROOT })))
    for (const [index, { stdout, stderr }] of answers.entries()) {
      expect(stdout, questions[index]!.join(' ')).toMatch(/^Usage: homeport \[serve\]/)
      expect(stderr.replace(/npm warn.*\n/g, '')).toBe('')
    }
  })
})
