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
  it('writes the site admin’s token, from HOMEPORT_ADMIN_TOKEN, only when --admin asks for it', async () => {
    const { stdout } = await run(process.execPath, [...HOMEPORT_CLI, 'terraform-config', '--data-dir', '/nonexistent-homeport', '--admin'], {
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
  it('prints every command’s usage for --help alone, a command’s own for <command> --help, and nothing else', async () => {
    const questions: Array<[string[], RegExp]> = [
      [['--help'], /^Usage: homeport \[serve\][\s\S]*homeport backup[\s\S]*Options of serve/],
      [['-h'], /^Usage: homeport \[serve\][\s\S]*homeport backup/],
      [['serve', '--help'], /^Usage: homeport \[serve\] [^\n]*\n\n[\s\S]*Options of serve/],
      [['serve', '--port', '1', '--help'], /^Usage: homeport \[serve\] /],
      [['backup', '--help'], /^Usage: homeport backup [^\n]*\n\nA consistent snapshot/],
      [['terraform-config', '--help'], /^Usage: homeport terraform-config /]
    ]
    const answers = await Promise.all(questions.map(([args]) => run(process.execPath, [...HOMEPORT_CLI, ...args], { cwd: ROOT })))
    for (const [index, { stdout, stderr }] of answers.entries()) {
      const [args, expected] = questions[index]!
      expect(stdout, args.join(' ')).toMatch(expected)
      if (args[0] !== '--help' && args[0] !== '-h') expect(stdout, args.join(' ')).not.toContain('homeport mcp')
      expect(stderr.replace(/npm warn.*\n/g, '')).toBe('')
    }
  })

  it('answers a usage error with one line and the command’s own usage, not the whole help', async () => {
    const failed = await run(process.execPath, [...HOMEPORT_CLI, 'terraform-config', '--no-such-flag'], { cwd: ROOT }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error
    )
    expect(failed?.code).toBe(2)
    const lines = failed!.stderr.replace(/npm warn.*\n/g, '').trimEnd().split('\n')
    expect(lines[0]).toMatch(/^homeport: Unknown option '--no-such-flag'/)
    expect(lines[1]).toMatch(/^Usage: homeport terraform-config /)
    expect(lines[2]).toBe('Run homeport terraform-config --help for more.')
    expect(lines).toHaveLength(3)
  })
})
