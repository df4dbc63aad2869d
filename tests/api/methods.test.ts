import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { createOrganization, startTestServer, type TestServer } from '../helpers/server.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)
let test: TestServer
beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
})
afterAll(async () => {
  await test.close()
})

describe('a method a path does not take', () => {
  it('answers 405 with Allow on the management API, in JSON:API', async () => {
    const response = await test.api('PUT', '/organizations/acme', { body: { data: { type: 'organizations', attributes: {} } } })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH'])
    expect(response.body.errors[0]).toMatchObject({ status: '405', title: 'method not allowed', detail: expect.stringMatching(/PUT is not allowed here/) })
    // A path that does not exist is still 404.
    expect((await test.api('PUT', '/nothing/here')).status).toBe(404)
  })

  it('answers 405 with Allow on the registry protocol, in its format', async () => {
    const response = await test.api('POST', '/api/registry/v1/modules/acme/network/aws/versions')
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toContain('GET')
    expect(response.body).toEqual({ errors: [expect.stringMatching(/POST is not allowed here/)], code: 'method-not-allowed' })
    expect((await test.api('GET', '/api/registry/v9/nothing')).status).toBe(404)
  })
})

describe('homeport terraform-config', () => {
  it('uses HOMEPORT_ADMIN_TOKEN when it is set and no --token is given', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src-main/server/cli.ts', 'terraform-config', '--data-dir', '/nonexistent-homeport'], {
      cwd: ROOT,
      env: { ...process.env, HOMEPORT_ADMIN_TOKEN: 'admin-token-from-the-environment' }
    })
    expect(stdout).toContain('token = "admin-token-from-the-environment"')
  })
})

describe('homeport --help', () => {
  it('prints the usage for any command, and nothing else', async () => {
    for (const args of [['--help'], ['serve', '--help'], ['-h'], ['backup', '--help'], ['serve', '--port', '1', '--help']]) {
      const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src-main/server/cli.ts', ...args], { cwd: ROOT })
      expect(stdout, args.join(' ')).toMatch(/^Usage: homeport \[serve\]/)
      expect(stderr.replace(/npm warn.*\n/g, '')).toBe('')
    }
  })
})
