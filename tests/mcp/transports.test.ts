import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { NETWORK_MODULE } from '../helpers/archives.js'
import { createOrganization, createTeamWithToken, publish, startTestServer, type TestServer } from '../helpers/server.js'
import { HOMEPORT_CLI } from '../helpers/cli.js'

/**
 * `homeport mcp`, the stdio relay desktop assistants start, driven by the SDK's client and by a
 * client no one here wrote: the MCP Inspector's command-line mode (0.15, the newest that runs on
 * Node 20). Every tool is called through both.
 */
const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const HOMEPORT = [process.execPath, ...HOMEPORT_CLI]
const INSPECTOR = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/inspector/cli/build/cli.js', import.meta.url))

let test: TestServer
let team: string
beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  await publish(test, 'acme', 'network', 'aws', '1.0.0', NETWORK_MODULE)
  await publish(test, 'acme', 'network', 'aws', '1.1.0', NETWORK_MODULE)
  team = (await createTeamWithToken(test, 'acme', 'assistants')).token
}, 60_000)
afterAll(async () => {
  await test.close()
})

/** An SDK client on `homeport mcp` with these arguments and environment. */
async function relay(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'homeport-tests', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: HOMEPORT[0]!, args: [...HOMEPORT.slice(1), 'mcp', ...args], cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe' }))
  return client
}

/** What the Inspector's CLI prints for one method against `homeport mcp` (its JSON), or its failure. */
async function inspector(method: string[], token = team): Promise<{ ok: true; json: Record<string, unknown> } | { ok: false; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [INSPECTOR, '--cli', '-e', `HOMEPORT_TOKEN=${token}`, ...HOMEPORT, 'mcp', '--url', test.url, ...method], { cwd: ROOT, timeout: 60_000 })
    return { ok: true, json: JSON.parse(stdout) as Record<string, unknown> }
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    return { ok: false, output: stdout + stderr }
  }
}

describe('homeport mcp over stdio', () => {
  it('relays to the Homeport at --url with --token-file, as that token', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'homeport-mcp-'))
    await writeFile(join(folder, 'token'), `${team}\n`, { mode: 0o600 })
    const client = await relay(['--url', test.url, '--token-file', join(folder, 'token')]).finally(() => rm(folder, { recursive: true, force: true }))
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'homeport' })
      expect((await client.listTools()).tools).toHaveLength(TOOL_CALLS.length)
      const found = await client.callTool({ name: 'search_modules', arguments: { query: 'network' } })
      expect(found.structuredContent).toMatchObject({ total: 1, modules: [{ address: 'homeport.localhost/acme/network/aws', latest_version: '1.1.0' }] })
    } finally {
      await client.close()
    }
  })

  it('takes HOMEPORT_URL and HOMEPORT_TOKEN, and with neither the Homeport running on the data directory', async () => {
    const byEnvironment = await relay([], { HOMEPORT_URL: test.url, HOMEPORT_TOKEN: team })
    expect((await byEnvironment.listTools()).tools.length).toBe(TOOL_CALLS.length)
    await byEnvironment.close()
    const local = await relay(['--data-dir', test.dataDir], { HOMEPORT_ADMIN_TOKEN: test.adminToken })
    expect((await local.listResources()).resources.map((resource) => resource.uri)).toEqual(['homeport://modules/private/acme/network/aws/1.1.0/readme'])
    await local.close()
  })

  it('warns on stderr that a token on the command line is seen in ps, and relays all the same', async () => {
    const child = spawn(HOMEPORT[0]!, [...HOMEPORT.slice(1), 'mcp', '--url', test.url, '--token', team], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdin.end()
    await new Promise((resolve) => child.once('exit', resolve))
    expect(stderr).toContain('other users of this machine see it (ps)')
    expect(stderr).not.toContain(team)
  })

  it('says why Homeport refused, rather than hanging', async () => {
    await expect(relay(['--url', test.url, '--token', 'not-a-token'])).rejects.toThrow(/The API token is not valid: it is unknown, expired, or was replaced or deleted/)
    await expect(relay(['--url', test.url])).rejects.toThrow()
  })
})

/** Each tool with arguments, and what its text answer says about the fixture. */
const TOOL_CALLS: Array<[string, Record<string, string>, RegExp]> = [
  ['search_modules', { query: 'network' }, /homeport\.localhost\/acme\/network\/aws 1\.1\.0/],
  ['get_module', { module: 'acme/network/aws' }, /Required inputs: cidr_block, db_password/],
  ['list_versions', { module: 'acme/network/aws' }, /- 1\.1\.0: ok[\s\S]*- 1\.0\.0: ok/],
  ['usage_snippet', { module: 'acme/network/aws' }, /source {2}= "homeport\.localhost\/acme\/network\/aws"/],
  ['compare_versions', { module: 'acme/network/aws' }, /1\.0\.0 → 1\.1\.0: none/],
  ['check_configuration', { text: 'module "n" {\n  source  = "homeport.localhost/acme/network/aws"\n  version = "~> 1.0"\n}\n' }, /Required input cidr_block \(string\) is not set/],
  ['search_providers', { query: 'widget' }, /No provider matches "widget"/],
  ['get_provider', { provider: 'acme/widget' }, /No provider acme\/widget you may install is here/],
  ['search_provider_docs', { provider: 'acme/widget', query: 'server' }, /No provider acme\/widget you may install is here/],
  ['get_provider_doc', { provider: 'acme/widget', slug: 'server' }, /No provider acme\/widget you may install is here/]
]

describe('every tool through homeport mcp', () => {
  it('answers each call over stdio, as the team’s token reads', async () => {
    const client = await relay(['--url', test.url, '--token', team])
    try {
      for (const [tool, args, expected] of TOOL_CALLS) {
        const answer = await client.callTool({ name: tool, arguments: args })
        expect((answer.content as Array<{ text: string }>)[0]!.text, tool).toMatch(expected)
      }
    } finally {
      await client.close()
    }
  })
})

// The Inspector is a second, independent client: each kind of request once (a process pair per
// request, so not every tool again).
describe('the MCP Inspector’s command-line mode', () => {
  it('lists the tools, resources and prompt, and calls a tool through homeport mcp', async () => {
    const tools = await inspector(['--method', 'tools/list'])
    expect(tools.ok && (tools.json.tools as Array<{ name: string }>).map((tool) => tool.name).sort()).toEqual(TOOL_CALLS.map(([name]) => name).sort())
    const [tool, args, expected] = TOOL_CALLS.find(([name]) => name === 'check_configuration')!
    const answer = await inspector(['--method', 'tools/call', '--tool-name', tool, ...Object.entries(args).flatMap(([key, value]) => ['--tool-arg', `${key}=${value}`])])
    if (!answer.ok) throw new Error(`${tool}: ${answer.output}`)
    expect((answer.json.content as Array<{ text: string }>)[0]!.text).toMatch(expected)
    const resources = await inspector(['--method', 'resources/list'])
    expect(resources.ok && resources.json.resources).toEqual([expect.objectContaining({ uri: 'homeport://modules/private/acme/network/aws/1.1.0/readme' })])
    const prompts = await inspector(['--method', 'prompts/list'])
    expect(prompts.ok && prompts.json.prompts).toEqual([expect.objectContaining({ name: 'use-private-module' })])
  }, 60_000)

  it('is refused over stdio with a bad token, and over Streamable HTTP without one', async () => {
    const badToken = await inspector(['--method', 'tools/list'], 'not-a-token')
    expect(!badToken.ok && badToken.output).toMatch(/The API token is not valid/)
    // Over HTTP, Inspector 0.15 sends no headers, so it reaches /mcp with no token at all.
    try {
      await run(process.execPath, [INSPECTOR, '--cli', `${test.url}/mcp`, '--transport', 'http', '--method', 'tools/list'], { cwd: ROOT, timeout: 60_000 })
      expect.unreachable('the Inspector was let in without a token')
    } catch (error) {
      expect(String((error as { stdout?: string }).stdout) + String((error as { stderr?: string }).stderr)).toMatch(/This endpoint needs an API token/)
    }
  }, 60_000)
})
