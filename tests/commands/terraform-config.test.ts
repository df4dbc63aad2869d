import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Agent, fetch as undiciFetch } from 'undici'
import { HOMEPORT_CLI } from '../helpers/cli.js'
import { createOrganization, createTeamWithToken, startTestServer, type TestServer } from '../helpers/server.js'

// `homeport terraform-config` beside a running Homeport (HTTPS, its own CA), as a new user runs it:
// it finds the server from its data directory, and makes a token of least privilege for the file.
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const execute = promisify(execFile)
const { HOMEPORT_ADMIN_TOKEN: _admin, HOMEPORT_TOKEN: _token, ...ENV } = process.env

let test: TestServer
let out: string
beforeAll(async () => {
  test = await startTestServer({ tls: true })
  await createOrganization(test, 'acme')
  await createTeamWithToken(test, 'acme', 'readers')
  out = await mkdtemp(join(tmpdir(), 'homeport-terraform-config-'))
})
afterAll(async () => {
  await test.close()
  await rm(out, { recursive: true, force: true })
})

/** The command as a process; its exit code, stdout and stderr whether it succeeded or not. */
async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  return execute(process.execPath, [...HOMEPORT_CLI, 'terraform-config', ...args], { cwd: ROOT, env: { ...ENV, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr })
  )
}

describe('homeport terraform-config beside a running Homeport', () => {
  it('points at the running server, with a new token acting as the team named, and a CA bundle that trusts it and the public roots', async () => {
    const output = join(out, 'homeport.tfrc')
    const { code, stdout, stderr } = await run(['--data-dir', test.dataDir, '--team', 'acme/readers', '--output', output])
    expect(stderr.replace(/npm warn.*\n/g, '')).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain(`Wrote ${output} for ${test.url}. It holds a new token acting as team acme/readers, which reads acme’s modules and providers`)
    const text = await readFile(output, 'utf8')
    expect(text).toContain(`"modules.v1" = "${test.url}/api/registry/v1/modules/"`)
    const token = /token = "([^"]+)"/.exec(text)![1]!
    expect(token).not.toBe(test.adminToken)
    // The token reads acme and nothing more, and is listed (revocable) with the organization's tokens.
    const asToken = await test.api('GET', '/organizations/acme', { token })
    expect(asToken.body.data.attributes.permissions).toMatchObject({ 'can-create-module': false, 'can-update': false })
    const listed = (await test.api('GET', '/organizations/acme/authentication-tokens')).body.data as Array<{ attributes: Record<string, unknown> }>
    expect(listed.map((entry) => entry.attributes)).toContainEqual(expect.objectContaining({ 'team-name': 'readers', description: 'Terraform CLI configuration for homeport.localhost (homeport terraform-config)' }))
    // The bundle: every public root Node ships and Homeport's CA, which a client given it alone trusts.
    const bundlePath = join(out, 'homeport-ca-bundle.pem')
    expect(stdout).toContain(`export SSL_CERT_FILE=${bundlePath}`)
    const bundle = await readFile(bundlePath, 'utf8')
    expect(bundle.match(/BEGIN CERTIFICATE/g)!.length).toBeGreaterThan(100)
    expect(bundle).toContain((await readFile(join(test.dataDir, 'tls', 'ca.crt'), 'utf8')).trim())
    const ping = await undiciFetch(`${test.url}/api/v2/ping`, { dispatcher: new Agent({ connect: { ca: bundle } }) })
    expect(ping.status).toBe(204)
  })

  it('writes OpenTofu’s mirrors for the running HTTPS server, the public providers through them when asked', async () => {
    const { code, stdout, stderr } = await run(['--data-dir', test.dataDir, '--token', 'a-team-token', '--opentofu', '--install', 'oci', '--mirror-public'])
    expect(code).toBe(0)
    expect(stderr).toContain('It holds the token you gave.')
    expect(stdout).toContain(`oci_credentials "${new URL(test.url).host}"`)
    expect(stdout).toContain('include             = ["homeport.localhost/*/*", "registry.terraform.io/*/*", "registry.opentofu.org/*/*"]')
    // Online: everything else direct, and the public modules too (no host block of theirs).
    expect(stdout).toContain('exclude = ["homeport.localhost/*/*", "registry.terraform.io/*/*", "registry.opentofu.org/*/*"]')
    expect(stdout).not.toContain('host "registry.opentofu.org"')
  })

  it('asks which rights rather than writing the site admin’s token, and says what is wrong when it cannot', async () => {
    const [none, admin, stranger, nowhere, ambiguous, noAdmin] = await Promise.all([
      run(['--data-dir', test.dataDir]),
      run(['--data-dir', test.dataDir, '--admin']),
      run(['--data-dir', test.dataDir, '--team', 'acme/nobody']),
      run(['--data-dir', out, '--team', 'acme/readers']),
      run(['--data-dir', test.dataDir, '--team', 'acme/readers', '--admin']),
      run(['--data-dir', out, '--admin'])
    ])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('Which rights should Terraform have? Pass --team <organization>/<team>')
    expect(none.stdout).toBe('')
    expect(admin.code).toBe(0)
    expect(admin.stdout).toContain(`token = "${test.adminToken}"`)
    expect(admin.stderr).toContain('It holds the site admin’s token: every right on every organization.')
    expect(stranger.stderr).toContain('acme has no team nobody: it has owners, readers.')
    // No Homeport on that folder: said, and --team cannot make its token.
    expect(nowhere.stderr).toContain(`no Homeport is running on ${out}`)
    expect(nowhere.stderr).toContain('--team makes its token through the running Homeport, and none runs on')
    expect(ambiguous.stderr).toContain('Choose one of --team, --token, --login and --admin.')
    // Where the admin token is not, it says why it may not be, not only "start Homeport once".
    expect(noAdmin.stderr).toContain(`${out} holds no admin token: Homeport has not run on it yet (start it once), or it runs with HOMEPORT_ADMIN_TOKEN`)
  })
})
