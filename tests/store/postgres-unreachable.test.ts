import { afterEach, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { toHttpError } from '../../src-main/server/http/errors.js'
import { DatabaseUnreachableError } from '../../src-main/server/store/errors.js'
import { openPostgresStore } from '../../src-main/server/store/postgres/pg-store.js'
import { HOMEPORT_CLI } from '../helpers/cli.js'

/**
 * A PostgreSQL database Homeport cannot reach: it says so at once, naming the database (never its
 * password) and how to check, rather than hanging or printing a bare ECONNREFUSED. These need no
 * PostgreSQL: a socket that never answers, and a port where nothing listens, stand in for it.
 */
const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A TCP server that takes connections and never says a word (a host behind a broken proxy, a paused database). */
async function silentServer(): Promise<number> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => void sockets.add(socket))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  return (server.address() as { port: number }).port
}

/** A port nothing listens on: one the OS gave a server that is closed again. */
async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('a PostgreSQL database out of reach', () => {
  it('fails the start after the connect timeout, naming the database and how to check, never the password', async () => {
    const port = await silentServer()
    const opening = openPostgresStore(`postgres://homeport:s3cret-password@127.0.0.1:${port}/registry`, { connectTimeoutMs: 300 })
    const error = (await opening.catch((caught: unknown) => caught)) as Error
    expect(error).toBeInstanceOf(DatabaseUnreachableError)
    expect(error.message).toBe(
      `The PostgreSQL database at 127.0.0.1:${port} (database registry) could not be reached: it did not answer within 0.3 s. Check that PostgreSQL runs there and takes connections (pg_isready -h 127.0.0.1 -p ${port}), and the URL's host and port.`
    )
  })

  it('makes homeport serve exit at once, saying nothing listens there', async () => {
    const port = await deadPort()
    const dataDir = await mkdtemp(join(tmpdir(), 'homeport-pg-unreachable-'))
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }))
    const failed = await run(process.execPath, [...HOMEPORT_CLI, '--port', '0', '--data-dir', dataDir, '--database', `postgres://homeport:s3cret-password@127.0.0.1:${port}/registry`], {
      cwd: ROOT,
      env: { ...process.env, HOMEPORT_ADMIN_TOKEN: 'pg-unreachable-admin-token-0123456789' }
    }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error
    )
    expect(failed?.code).toBe(1)
    expect(failed?.stderr).toContain(`homeport: The PostgreSQL database at 127.0.0.1:${port} (database registry) could not be reached: nothing listens there.`)
    expect(failed?.stderr).not.toContain('s3cret')
  })

  it('answers a request the database cannot serve with 503 and a reason, not a 500', () => {
    for (const cause of [Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }), new Error('Query read timeout'), Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' })]) {
      const answer = toHttpError(cause)
      expect(answer.status).toBe(503)
      expect(answer.code).toBe('database-unreachable')
      expect(answer.message).toMatch(/cannot reach its database just now: nothing was written/)
    }
  })
})
