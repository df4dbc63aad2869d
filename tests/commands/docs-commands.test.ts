import { execFile } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrganization, createTeamWithToken, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM } from '../helpers/terraform-binary.js'

const run = promisify(execFile)
const ROOT = join(import.meta.dirname, '..', '..')

/**
 * Every shell block of the README and the guide pages says whether it is run here: `<!-- runnable -->`
 * on the line before its fence, and this test runs it as written against a running Homeport, or
 * `<!-- not runnable: <why> -->`. A runnable block runs in bash (`-e`, `-o pipefail`) in an empty folder
 * holding the checkout's `out/` (for `node out/main/cli.js`), with `homeport` on the PATH, a HOME of its
 * own, and the environment Homeport was started with (HOMEPORT_DATA_DIR, HOMEPORT_PORT), `$TOKEN` the
 * admin token; `http://127.0.0.1:4780` is where that Homeport listens and `<a team token>` a team's.
 */
interface Block {
  page: string
  line: number
  text: string
  /** Undefined for a runnable block; else why it is not run. */
  notRun?: string
  /** What it needs that a machine may lack. */
  needsTerraform: boolean
}

function pages(): string[] {
  return ['README.md', ...readdirSync(join(ROOT, 'docs', 'guide')).filter((name) => name.endsWith('.md')).map((name) => join('docs', 'guide', name))]
}

function blocks(page: string): Array<Block | { page: string; line: number; unmarked: true }> {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n')
  const found: Array<Block | { page: string; line: number; unmarked: true }> = []
  for (let index = 0; index < lines.length; index++) {
    if (!/^```(sh|bash|shell)\s*$/.test(lines[index]!)) continue
    const end = lines.indexOf('```', index + 1)
    const text = lines.slice(index + 1, end).join('\n')
    let before = index - 1
    while (before >= 0 && lines[before]!.trim() === '') before--
    const marker = /^<!-- (runnable|not runnable: (.+)) -->$/.exec(lines[before]?.trim() ?? '')
    if (!marker) found.push({ page, line: index + 1, unmarked: true })
    else found.push({ page, line: index + 1, text, notRun: marker[2], needsTerraform: /^\s*(terraform|tofu) /m.test(text) })
    index = end
  }
  return found
}

const all = pages().flatMap(blocks)
const runnable = all.filter((block): block is Block => !('unmarked' in block) && block.notRun === undefined)

let homeport: TestServer
let work: string
let teamToken: string

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-docs-commands-'))
  homeport = await startTestServer({ dataDir: join(work, 'data') })
  // What the pages say is there: the organization acme with its network module for aws (needing no provider, which would be fetched from the internet).
  await createOrganization(homeport, 'acme')
  await publish(homeport, 'acme', 'network', 'aws', '1.2.0', { 'README.md': '# Network\n\nA VPC.\n', 'main.tf': 'variable "cidr_block" {\n  type = string\n}\n\noutput "cidr_block" {\n  value = var.cidr_block\n}\n' })
  teamToken = (await createTeamWithToken(homeport, 'acme', 'ci')).token
  // `homeport` as an installed CLI would be: the built one.
  await mkdir(join(work, 'bin'))
  await writeFile(join(work, 'bin', 'homeport'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'out', 'main', 'cli.js')}" "$@"\n`)
  await chmod(join(work, 'bin', 'homeport'), 0o755)
}, 60_000)
afterAll(async () => {
  await homeport.close()
  await rm(work, { recursive: true, force: true })
})

describe('the shell blocks of the README and the guide pages', () => {
  it('each say whether the tests run them, and why not when they do not', () => {
    expect(all.filter((block) => 'unmarked' in block).map(({ page, line }) => `${page}:${line}`)).toEqual([])
    expect(runnable.length).toBeGreaterThan(0)
  })

  for (const block of runnable) {
    const skip = block.needsTerraform && !HAS_TERRAFORM
    it.skipIf(skip)(`${block.page}:${block.line} runs as written${block.needsTerraform ? NEEDS_TERRAFORM : ''}`, async () => {
      expect(existsSync(join(ROOT, 'out', 'main', 'cli.js')), 'the build (npm run build) comes first: the blocks run node out/main/cli.js').toBe(true)
      const folder = await mkdtemp(join(work, 'block-'))
      const home = join(folder, 'home')
      await mkdir(home)
      await symlink(join(ROOT, 'out'), join(folder, 'out'))
      const script = block.text.replaceAll('http://127.0.0.1:4780', homeport.url).replaceAll('<a team token>', teamToken)
      const env = {
        PATH: `${join(work, 'bin')}:${process.env.PATH}`,
        HOME: home,
        HOMEPORT_DATA_DIR: homeport.dataDir,
        HOMEPORT_PORT: String(new URL(homeport.url).port),
        TOKEN: homeport.adminToken,
        // Terraform: no checkpoint call, plugins nowhere shared.
        CHECKPOINT_DISABLE: '1'
      }
      const result = await run('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: folder, env, timeout: 120_000 }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`${block.page}:${block.line} failed:\n${error.stderr || error.stdout || error.message}`)
      })
      expect(result.stderr).not.toMatch(/error/i)
      // What the block writes into its HOME stays there: a configuration that names this Homeport.
      for (const written of [join(home, '.homeport.tfrc')].filter((path) => existsSync(path))) {
        expect(await readFile(written, 'utf8')).toContain(homeport.url)
      }
    }, 150_000)
  }
})
