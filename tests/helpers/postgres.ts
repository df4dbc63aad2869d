import { execFile, execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'

const run = promisify(execFile)

/**
 * Where Debian's PostgreSQL keeps its programs (`/usr/lib/postgresql/<version>/bin`, not on PATH),
 * the newest version first; `HOMEPORT_PG_BIN` names another folder.
 */
export function findPostgres(): string | undefined {
  const given = process.env.HOMEPORT_PG_BIN
  if (given) return existsSync(join(given, 'initdb')) ? given : undefined
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] ? join(root, versions[0], 'bin') : undefined
}

/** Why the PostgreSQL runs are skipped on this machine, for the run's output. */
export const NO_POSTGRES = 'PostgreSQL not found (no initdb in /usr/lib/postgresql/*/bin, nor in HOMEPORT_PG_BIN): the store and API suites run on the file store only. `apt-get install postgresql` (as .ci/run does) to run them on PostgreSQL too.'

export interface TestPostgres {
  /** The server's address, as the `homeport` role, without a database name. */
  url: string
  /** Freezes the server and every backend (SIGSTOP): connections stay open, and nothing answers. */
  pause(): Promise<void>
  /** Lets a paused server go on (SIGCONT). */
  resume(): Promise<void>
  stop(): Promise<void>
}

/** Databases of their own for tests, on the server at `url`: each test server gets a fresh one. */
export function postgresDatabases(url: string) {
  const admin = async <R>(work: (client: pg.Client) => Promise<R>): Promise<R> => {
    const client = new pg.Client({ connectionString: `${url}/postgres` })
    await client.connect()
    try {
      return await work(client)
    } finally {
      await client.end()
    }
  }
  return {
    /** A new empty database, and its URL. */
    async create(): Promise<string> {
      const name = `homeport_${process.pid}_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`
      await admin((client) => client.query(`CREATE DATABASE ${name}`))
      return `${url}/${name}`
    },
    async drop(database: string): Promise<void> {
      const name = new URL(database).pathname.slice(1)
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/**
 * A PostgreSQL server of its own for a test run, on a temporary data directory and a free port,
 * trusting local connections, with fsync off (a crash of the test machine loses nothing anyone
 * needs). PostgreSQL refuses to run as root: as root, it runs as Debian's `postgres` user.
 */
export async function startPostgres(bin: string): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'homeport-pg-'))
  const data = join(dir, 'data')
  const asRoot = process.getuid?.() === 0
  const as = (command: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), args))
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
    chownSync(dir, uid, gid)
  }
  await as('initdb', ['-D', data, '-U', 'homeport', '-A', 'trust', '--no-sync', '-E', 'UTF8'])
  const port = await freePort()
  await as('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`, 'start'])
  /** The postmaster (the first line of its pid file) and every process it started. */
  const processes = async (): Promise<number[]> => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
    const { stdout } = await run('pgrep', ['-P', String(postmaster)]).catch(() => ({ stdout: '' }))
    return [postmaster, ...stdout.split('\n').filter(Boolean).map(Number)]
  }
  const signal = async (name: NodeJS.Signals) => {
    for (const pid of await processes()) process.kill(pid, name)
  }
  return {
    url: `postgres://homeport@127.0.0.1:${port}`,
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    async stop() {
      // A paused server would never stop.
      await signal('SIGCONT').catch(() => undefined)
      await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
