import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { Agent, fetch as undiciFetch } from 'undici'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer, type RunningServer, type ServerOptions } from '../../src-main/server/boot/start-server.js'
import { inject } from 'vitest'
import { moduleArchive } from './archives.js'
import { postgresDatabases } from './postgres.js'
import { eventually } from './eventually.js'

export interface ApiResponse {
  status: number
  headers: Headers
  // Test code reads arbitrary JSON:API documents; `any` keeps the assertions readable.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
}

export interface RequestOptions {
  token?: string | null
  body?: unknown
  /** A raw body, sent as is (with contentType). */
  raw?: string
  contentType?: string
}

export interface TestServer {
  url: string
  dataDir: string
  adminToken: string
  server: RunningServer
  /** fetch, trusting the server's own CA when it serves HTTPS. */
  fetch: typeof fetch
  /** Calls a path under /api/v2 (or one starting /api/ or /.well-known/, or a full URL), as site admin unless told otherwise. */
  api(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>
  /** Stops the server; the data directory stays for a restart. */
  stop(): Promise<void>
  /** Starts a new server on the same data directory. */
  restart(): Promise<void>
  /** Stops the server and removes its data directory. */
  close(): Promise<void>
}

/** The database each data directory's registry is kept in, in the `postgres` project's run: a restart finds its data again. */
const databases = new Map<string, string>()

/**
 * Where the registry of `dataDir` is kept: in the `postgres` project (vitest.config.ts), a database
 * of its own on the run's PostgreSQL server; otherwise the data directory itself (undefined).
 */
export async function testDatabase(dataDir: string): Promise<string | undefined> {
  if (process.env.HOMEPORT_TEST_STORE !== 'postgres') return undefined
  let database = databases.get(dataDir)
  if (!database) {
    database = await postgresDatabases(inject('postgresUrl')).create()
    databases.set(dataDir, database)
  }
  return database
}

/** A real Homeport on an ephemeral port over a fresh temporary data directory (and, in the `postgres` project, a fresh database). */
export async function startTestServer(options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'homeport-test-')))
  const database = options.database ?? (await testDatabase(dataDir))
  // An archive no version refers to goes at once, as in the file store (the grace for other replicas has its own test).
  const launch = () => startServer({ host: '127.0.0.1', port: 0, edition: 'hosted', archiveGraceMs: 0, ...options, dataDir, database })
  let server = await launch()
  let agent: { path: string; dispatcher: Agent } | undefined
  const trusted = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (!server.tls) return fetch(input, init)
    if (agent?.path !== server.tls.trustPath) {
      agent = { path: server.tls.trustPath, dispatcher: new Agent({ connect: { ca: await readFile(server.tls.trustPath, 'utf8') } }) }
    }
    const { dispatcher } = agent
    return (await undiciFetch(input as never, { ...init, dispatcher } as never)) as unknown as Response
  }
  const test: TestServer = {
    fetch: trusted,
    get url() {
      return server.url
    },
    dataDir,
    get adminToken() {
      return server.adminToken.token
    },
    get server() {
      return server
    },
    async api(method, path, request = {}) {
      const headers: Record<string, string> = {}
      const token = request.token === undefined ? server.adminToken.token : request.token
      if (token !== null) headers.Authorization = `Bearer ${token}`
      let body: string | undefined
      if (request.raw !== undefined) {
        body = request.raw
        if (request.contentType) headers['Content-Type'] = request.contentType
      } else if (request.body !== undefined) {
        body = JSON.stringify(request.body)
        headers['Content-Type'] = request.contentType ?? 'application/vnd.api+json'
      }
      const url = /^https?:/.test(path)
        ? path
        : /^\/(api|\.well-known)\//.test(path)
          ? `${server.url}${path}`
          : `${server.url}/api/v2${path}`
      const response = await trusted(url, { method, headers, body })
      const text = await response.text()
      let parsed: unknown = text
      if (text && (response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text)
      return { status: response.status, headers: response.headers, body: parsed }
    },
    async stop() {
      await server.close()
    },
    async restart() {
      await server.close()
      server = await launch()
    },
    async close() {
      await server.close()
      await rm(dataDir, { recursive: true, force: true })
      if (database && databases.get(dataDir) === database) {
        databases.delete(dataDir)
        await postgresDatabases(inject('postgresUrl')).drop(database)
      }
    }
  }
  return test
}

/** A JSON:API document for one resource. */
export function doc(type: string, attributes: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return { data: { type, attributes, ...extra } }
}

/** Creates an organization as site admin and returns its response body's data. */
export async function createOrganization(test: TestServer, name: string, attributes: Record<string, unknown> = {}) {
  const response = await test.api('POST', '/organizations', {
    body: doc('organizations', { name, email: `${name}@example.com`, ...attributes })
  })
  if (response.status !== 201) throw new Error(`creating ${name}: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body.data
}

/** Creates a team (optionally with manage-modules) and a token for it. */
export async function createTeamWithToken(test: TestServer, org: string, name: string, manageModules = false) {
  const team = await test.api('POST', `/organizations/${org}/teams`, {
    body: doc('teams', { name, 'organization-access': { 'manage-modules': manageModules } })
  })
  if (team.status !== 201) throw new Error(`creating team ${name}: ${team.status} ${JSON.stringify(team.body)}`)
  const token = await test.api('POST', `/teams/${team.body.data.id}/authentication-token`)
  if (token.status !== 201) throw new Error(`token for ${name}: ${token.status} ${JSON.stringify(token.body)}`)
  return { id: team.body.data.id as string, token: token.body.data.attributes.token as string }
}

/** The owners team's id and a fresh token for it. */
export async function ownersToken(test: TestServer, org: string) {
  const teams = await test.api('GET', `/organizations/${org}/teams`)
  const owners = (teams.body.data as Array<{ id: string; attributes: { name: string } }>).find((t) => t.attributes.name === 'owners')!
  const token = await test.api('POST', `/teams/${owners.id}/authentication-token`)
  return { id: owners.id, token: token.body.data.attributes.token as string }
}

/** Creates a private module as site admin and returns the response body's data. */
export async function createModule(test: TestServer, org: string, name: string, provider: string, attributes: Record<string, unknown> = {}) {
  const response = await test.api('POST', `/organizations/${org}/registry-modules`, {
    body: doc('registry-modules', { name, provider, ...attributes })
  })
  if (response.status !== 201) throw new Error(`creating module ${name}: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body.data
}

/** Creates a version of a private module and returns the response body's data (with links.upload). */
export async function createVersion(test: TestServer, org: string, name: string, provider: string, version: string) {
  const response = await test.api('POST', `/organizations/${org}/registry-modules/private/${org}/${name}/${provider}/versions`, {
    body: doc('registry-module-versions', { version })
  })
  if (response.status !== 201) throw new Error(`creating version ${version}: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body.data
}

/** PUTs an archive to an upload link, without a token, as go-tfe does. */
export async function upload(url: string, archive: Buffer | string, fetcher: typeof fetch = fetch) {
  const response = await fetcher(url, { method: 'PUT', headers: { 'Content-Type': 'application/octet-stream' }, body: typeof archive === 'string' ? archive : new Uint8Array(archive) })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

/** Waits until `version` of a module has left the states in which ingest is still running. */
export function settledVersion(test: TestServer, org: string, name: string, provider: string, version: string) {
  return eventually(async () => {
    const module = await test.api('GET', `/organizations/${org}/registry-modules/private/${org}/${name}/${provider}`)
    const entry = (module.body.data.attributes['version-statuses'] as Array<{ version: string; status: string; error?: string }>).find(
      (candidate) => candidate.version === version
    )
    if (!entry || entry.status === 'reg_ingressing' || entry.status === 'pending') throw new Error(`version ${version} of ${name} did not settle (${entry?.status ?? 'absent'})`)
    return { module: module.body.data, entry }
  })
}

/** Creates the module if needed, then a version from `files`, uploads it and waits for ingest. */
export async function publish(test: TestServer, org: string, name: string, provider: string, version: string, files: Record<string, string | Buffer>) {
  const existing = await test.api('GET', `/organizations/${org}/registry-modules/private/${org}/${name}/${provider}`)
  if (existing.status === 404) await createModule(test, org, name, provider)
  const created = await createVersion(test, org, name, provider, version)
  const archive = await moduleArchive(files)
  const uploaded = await upload(created.links.upload, archive, test.fetch)
  if (uploaded.status !== 200) throw new Error(`upload of ${name} ${version}: ${uploaded.status}`)
  const { entry } = await settledVersion(test, org, name, provider, version)
  return { archive, entry }
}
