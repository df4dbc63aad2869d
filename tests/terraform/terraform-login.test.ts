import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createOrganization, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { HAS_TERRAFORM, NEEDS_TERRAFORM } from '../helpers/terraform-binary.js'
import { HOMEPORT_CLI } from '../helpers/cli.js'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
let test: TestServer
let work: string

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'homeport-login-'))
  test = await startTestServer()
  await createOrganization(test, 'acme')
  await publish(test, 'acme', 'network', 'aws', '1.0.0', { 'main.tf': 'output "ok" {\n  value = true\n}\n' })
  await test.api('POST', '/organizations/acme/teams', { body: doc('teams', { name: 'platform' }) })
})
afterAll(async () => {
  await test.close()
  await rm(work, { recursive: true, force: true })
})

/** The environment of a user with nothing else set up: this HOME, no TF_CLI_CONFIG_FILE, and no browser to open. */
async function userEnvironment(home: string): Promise<NodeJS.ProcessEnv> {
  const bin = join(work, 'bin')
  await mkdir(bin, { recursive: true })
  const { stdout } = await run('sh', ['-c', 'command -v terraform'])
  await symlink(stdout.trim(), join(bin, 'terraform')).catch(() => undefined)
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, PATH: bin, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' }
  delete env.TF_CLI_CONFIG_FILE
  return env
}

describe('terraform login against Homeport', () => {
  it(`saves a token the user approves in the GUI, which terraform init then uses${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    const home = join(work, 'home')
    await mkdir(home, { recursive: true })
    // The setup step: the login configuration, written where Terraform reads it (and ~/.terraform.d made).
    const setup = await run(process.execPath, [...HOMEPORT_CLI, 'terraform-config', '--login', '--url', test.url], { cwd: ROOT, env: { ...process.env, HOME: home } })
    expect(setup.stdout).toContain('terraform login homeport.localhost')
    const env = await userEnvironment(home)

    const login = spawn('terraform', ['login', 'homeport.localhost'], { env, cwd: home })
    let output = ''
    let answered = false
    let approved = false
    const done = new Promise<number>((resolve) => login.on('exit', (code) => resolve(code ?? -1)))
    login.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    login.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (!answered && output.includes('Enter a value:')) {
        answered = true
        login.stdin.write('yes\n')
      }
      const link = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(output)?.[1]
      if (link && !approved) {
        approved = true
        void (async () => {
          // The browser: the GUI page's approval by the signed-in user, then the redirect to Terraform's listener.
          const query = new URL(link).searchParams
          const platform = ((await test.api('GET', '/organizations/acme/teams')).body.data as Array<{ id: string; attributes: { name: string } }>).find((team) => team.attributes.name === 'platform')!.id
          const approval = await test.api('POST', '/oauth-authorizations', {
            body: doc('oauth-authorizations', {
              'client-id': query.get('client_id'),
              'redirect-uri': query.get('redirect_uri'),
              'code-challenge': query.get('code_challenge'),
              'code-challenge-method': query.get('code_challenge_method'),
              state: query.get('state'),
              organization: 'acme',
              'team-id': platform
            })
          })
          // Terraform may close its listener as soon as it has the code, before its page is read: the browser's
          // error is no failure (the token saved, below, is what shows the code arrived).
          await fetch(approval.body.data.attributes['redirect-url'] as string).catch(() => undefined)
        })()
      }
    })
    expect(await done, output).toBe(0)
    // eslint-disable-next-line no-control-regex -- Terraform colours its output; the words are what matter.
    expect(output.replace(/\u001b\[[0-9;]*m/g, '')).toContain('Success! Terraform has obtained and saved an API token.')
    const saved = JSON.parse(await readFile(join(home, '.terraform.d', 'credentials.tfrc.json'), 'utf8')) as { credentials: Record<string, { token: string }> }
    const token = saved.credentials['homeport.localhost']!.token
    expect((await test.api('GET', '/account/details', { token })).body.data.attributes.username).toBe('api-team_platform')

    // The saved token is used: terraform init of a module that needs it.
    const config = join(work, 'config')
    await mkdir(config, { recursive: true })
    await writeFile(join(config, 'main.tf'), 'module "network" {\n  source  = "homeport.localhost/acme/network/aws"\n  version = "1.0.0"\n}\n')
    const init = await run('terraform', ['init', '-input=false', '-no-color', '-backend=false'], { cwd: config, env })
    expect(init.stdout).toContain('Downloading homeport.localhost/acme/network/aws 1.0.0 for network...')
  }, 120_000)
})
