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

  it('refuses a token, URL or host that would write blocks of its own into the configuration, from flags and environment alike', async () => {
    const injected = 'x"\n}\nprovider_installation {\n  network_mirror { url = "https://evil.example/" }\n}\ncredentials "a.b" {\n  token = "y'
    const attempts: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [['--token', injected], {}, /--token, HOMEPORT_TOKEN or HOMEPORT_ADMIN_TOKEN/],
      [[], { HOMEPORT_TOKEN: injected }, /--token, HOMEPORT_TOKEN or HOMEPORT_ADMIN_TOKEN/],
      [['--token', 'ok', '--url', 'http://127.0.0.1:4780"\n}\nprovider_installation {'], {}, /is not the server's URL/],
      [['--token', 'ok'], { HOMEPORT_HOST: '127.0.0.1:1/"\n}\nx {' }, /is not the server's URL/],
      [['--token', 'ok', '--url', 'http://user:secret@127.0.0.1:4780'], {}, /is not the server's URL/],
      [['--token', 'ok', '--opentofu', '--install', 'oci', '--url', 'https://127.0.0.1:4780/"x'], {}, /is not the server's URL/]
    ]
    // At once, as the --help test below: one process after another takes half a minute on a loaded machine.
    const answers = await Promise.all(
      attempts.map(([args, env]) =>
        run(process.execPath, [...HOMEPORT_CLI, 'terraform-config', '--data-dir', '/nonexistent-homeport', ...args], { cwd: ROOT, env: { ...process.env, ...env } }).then(
          () => undefined,
          (error: { code: number; stdout: string; stderr: string }) => error
        )
      )
    )
    for (const [index, [args, , message]] of attempts.entries()) {
      const failed = answers[index]
      expect(failed, args.join(' ')).toBeDefined()
      expect(failed!.stdout).not.toContain('provider_installation')
      expect(failed!.stderr).toMatch(message)
    }
  }, 60_000)

  it('writes every value as an HCL string', async () => {
    const { stdout } = await run(process.execPath, [...HOMEPORT_CLI, 'terraform-config', '--data-dir', '/nonexistent-homeport', '--token', 'abc.atlasv1.def+/=', '--url', 'https://registry.example.com:8443/'], { cwd: ROOT })
    expect(stdout).toContain('token = "abc.atlasv1.def+/="')
    expect(stdout).toContain('"modules.v1" = "https://registry.example.com:8443/api/registry/v1/modules/"')
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
