import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createOrganization, doc, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { Browser, startOpenIdProvider } from '../helpers/openid-provider.js'
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

/**
 * Runs the real `terraform login homeport.localhost` for a user whose HOME is `home`, answering its
 * question, and does the browser's part with `approve` (given the authorization link Terraform prints,
 * it ends by calling the redirect URL with the code); resolves with Terraform's exit code and output.
 */
async function terraformLogin(server: TestServer, home: string, approve: (link: URL) => Promise<string>): Promise<{ code: number; output: string; env: NodeJS.ProcessEnv }> {
  await mkdir(home, { recursive: true })
  // The setup step: the login configuration, written where Terraform reads it (and ~/.terraform.d made).
  const setup = await run(process.execPath, [...HOMEPORT_CLI, 'terraform-config', '--login', '--url', server.url], { cwd: ROOT, env: { ...process.env, HOME: home } })
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
      void approve(new URL(link))
        // Terraform may close its listener as soon as it has the code, before its page is read: the browser's
        // error is no failure (the token saved, below, is what shows the code arrived).
        .then((redirect) => fetch(redirect))
        .catch(() => undefined)
    }
  })
  const code = await done
  // eslint-disable-next-line no-control-regex -- Terraform colours its output; the words are what matter.
  return { code, output: output.replace(/\u001b\[[0-9;]*m/g, ''), env }
}

/** The token `terraform login` saved for Homeport in `home`. */
async function savedToken(home: string): Promise<string> {
  const saved = JSON.parse(await readFile(join(home, '.terraform.d', 'credentials.tfrc.json'), 'utf8')) as { credentials: Record<string, { token: string }> }
  return saved.credentials['homeport.localhost']!.token
}

/** What the approval page sends, from the query Terraform's link carries. */
function approvalOf(query: URLSearchParams, more: Record<string, string> = {}) {
  return doc('oauth-authorizations', {
    'client-id': query.get('client_id'),
    'redirect-uri': query.get('redirect_uri'),
    'code-challenge': query.get('code_challenge'),
    'code-challenge-method': query.get('code_challenge_method'),
    state: query.get('state'),
    ...more
  })
}

describe('terraform login against Homeport', () => {
  it(`saves a token the user approves in the GUI, which terraform init then uses${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    const home = join(work, 'home')
    const { code, output, env } = await terraformLogin(test, home, async (link) => {
      // The browser: the GUI page's approval by the signed-in user, then the redirect to Terraform's listener.
      const platform = ((await test.api('GET', '/organizations/acme/teams')).body.data as Array<{ id: string; attributes: { name: string } }>).find((team) => team.attributes.name === 'platform')!.id
      const approval = await test.api('POST', '/oauth-authorizations', { body: approvalOf(link.searchParams, { organization: 'acme', 'team-id': platform }) })
      return approval.body.data.attributes['redirect-url'] as string
    })
    expect(code, output).toBe(0)
    expect(output).toContain('Success! Terraform has obtained and saved an API token.')
    const token = await savedToken(home)
    expect((await test.api('GET', '/account/details', { token })).body.data.attributes.username).toBe('api-team_platform')

    // The saved token is used: terraform init of a module that needs it.
    const config = join(work, 'config')
    await mkdir(config, { recursive: true })
    await writeFile(join(config, 'main.tf'), 'module "network" {\n  source  = "homeport.localhost/acme/network/aws"\n  version = "1.0.0"\n}\n')
    const init = await run('terraform', ['init', '-input=false', '-no-color', '-backend=false'], { cwd: config, env })
    expect(init.stdout).toContain('Downloading homeport.localhost/acme/network/aws 1.0.0 for network...')
  }, 120_000)

  it(`sends the browser through single sign-on, and saves a token that acts with the person’s teams${NEEDS_TERRAFORM}`, async () => {
    if (!HAS_TERRAFORM) return
    const idp = await startOpenIdProvider([{ sub: 'sub-alice', preferred_username: 'alice', groups: ['acme/platform'] }])
    const sso = await startTestServer({ oidcIssuer: idp.issuer, oidcClientId: idp.clientId, oidcClientSecret: idp.clientSecret })
    try {
      await createOrganization(sso, 'acme')
      await createOrganization(sso, 'globex')
      await sso.api('POST', '/organizations/acme/teams', { body: doc('teams', { name: 'platform' }) })
      const home = join(work, 'sso-home')
      const { code, output } = await terraformLogin(sso, home, async (link) => {
        // The browser: Terraform's link, through the provider's sign-in, back to the approval page, approved there.
        const browser = new Browser()
        const page = await browser.visit(link.href, 'alice', new RegExp(`^${sso.url}/authorize\\?`))
        expect(page.url.startsWith(`${sso.url}/authorize?`)).toBe(true)
        const approval = await browser.fetch(`${sso.url}/api/v2/oauth-authorizations`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/vnd.api+json', 'Sec-Fetch-Site': 'same-origin' },
          body: JSON.stringify(approvalOf(link.searchParams))
        })
        return ((await approval.json()) as { data: { attributes: { 'redirect-url': string } } }).data.attributes['redirect-url']
      })
      expect(code, output).toBe(0)
      expect(output).toContain('Success! Terraform has obtained and saved an API token.')
      const token = await savedToken(home)
      expect((await sso.api('GET', '/account/details', { token })).body.data.attributes.username).toBe('alice')
      expect((await sso.api('GET', '/organizations/acme', { token })).status).toBe(200)
      expect((await sso.api('GET', '/organizations/globex', { token })).status).toBe(404)
    } finally {
      await sso.close()
      await idp.close()
    }
  }, 120_000)
})
