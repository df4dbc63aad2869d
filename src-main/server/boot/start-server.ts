import { rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { makeFolder, writeInside } from '../files/folder-writes.js'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { createApp, signedLocations } from '../api/app.js'
import { assistantContext } from '../api/mcp/assistant-context.js'
import { McpSessions, type SessionLimits } from '../api/mcp/mcp-router.js'
import { gracefulServer } from '../http/graceful-close.js'
import { stopInOrder } from './stop-steps.js'
import { isClientGone } from '../http/errors.js'
import { allowedHosts } from '../http/doors.js'
import { ProtocolCache, serveFromCache } from '../http/protocol-cache.js'
import { serveSignedFile } from '../http/signed-files.js'
import { RateLimiter } from '../http/rate-limit.js'
import { parseServeOptions, type ServeOptions } from './options.js'
import { resolveAdminToken, type AdminToken } from './admin-token.js'
import { createServices } from './services.js'
import type { Services } from '../domain/services.js'
import { Background } from '../domain/core/background.js'
import { jobTable, startPeriodicJobs } from './jobs.js'
import { openFileStore } from '../store/file/file-store.js'
import type { TlsMaterial } from '../data-dir/tls.js'
import { ARCHIVE_CACHE_DIR, BUNDLES_DIR, MIRRORS_DIR, SERVER_FILE } from '../data-dir/layout.js'

/**
 * How long a connection with no request in progress is kept, 5 s in Node. A client that keeps one
 * longer (Terraform's Go client keeps them 90 s) may send a request on it just as the server hangs
 * up: a GET is sent again by Go, but an upload fails with "connection reset". Kept longer than the
 * clients do, the client always lets go first; Node tells each client so (`Keep-Alive: timeout=95`).
 */
const KEEP_ALIVE_MS = 95_000

/**
 * What startServer takes: any of the serve options (options.ts, where each has its default),
 * the data directory, and what only the desktop app and the tests set.
 */
export type ServerOptions = Partial<ServeOptions> & {
  dataDir: string
  /** The built GUI to serve at `/`; none: the API only. */
  rendererDir?: string
  /** How long an upstream answer is served without asking again (tests shorten it). */
  upstreamMaxAgeMs?: number
  /** PostgreSQL only: how long an archive stays after it was last stored (tests shorten it; see pg-archives.ts). */
  archiveGraceMs?: number
  /** PostgreSQL only: how long a connection and a query may take before the request is answered 503 (tests shorten them). */
  databaseTimeouts?: { connectMs: number; queryMs: number }
  /** How many MCP sessions are kept, and for how long unused (tests lower them). */
  mcpSessions?: SessionLimits
  /** The time, for time-based rules (the audit trail's retention); tests move it instead of waiting. */
  clock?: () => number
}

export interface RunningServer {
  /** The URL it listens on. */
  url: string
  port: number
  adminToken: AdminToken
  services: Services
  /** With TLS: the certificate clients should trust. */
  tls?: TlsMaterial
  /** Why the server serves reads only (it could not write its data directory at start), if it does. */
  writesRefused?: string
  /**
   * Resolves once no background task runs (ingests, builds, syncs, and what they start meanwhile):
   * what a test awaits for work off the request path, instead of polling or waiting on the clock.
   */
  idle(): Promise<void>
  /** Stops accepting requests, lets those in flight finish, writes everything, releases the data dir. */
  close(): Promise<void>
}

/** Opens the data directory and serves Homeport on it. Used by the CLI, Electron and the tests. */
export async function startServer(given: ServerOptions): Promise<RunningServer> {
  const options = { ...parseServeOptions([], {}), ...given }
  // PostgreSQL when a database is named (the data directory still keeps the admin token, TLS files and caches); else the data directory's own files.
  // The PostgreSQL client and the certificate code are loaded only when asked for, as they slow every start.
  if (options.database) await makeFolder(options.dataDir, undefined, 0o700)
  const store = options.database ? await (await import('../store/postgres/pg-store.js')).openPostgresStore(options.database, {
        archiveGraceMs: given.archiveGraceMs,
        connectTimeoutMs: given.databaseTimeouts?.connectMs,
        queryTimeoutMs: given.databaseTimeouts?.queryMs,
        archiveCache: { dir: join(options.dataDir, ARCHIVE_CACHE_DIR), maxBytes: options.archiveCacheBytes }
      }) : await openFileStore(options.dataDir)
  const background = new Background({ jobs: jobTable(options), leases: store.leases })
  let server: Server | undefined
  try {
    const adminToken = await resolveAdminToken(options.dataDir, options.adminToken)
    const services = createServices(store, background, { ...options, adminToken: adminToken.token, mirrorsDir: join(options.dataDir, MIRRORS_DIR), bundlesDir: join(options.dataDir, BUNDLES_DIR) })
    // Recovery writes; a read-only store has nothing it could finish.
    if (!store.writesRefused) {
      await background.run('start-up recovery', () => services.recover())
      await services.bundles.start()
      // Not waited for: OCI clients are told a version without its zip is not there yet, and everything else is served meanwhile.
      void background.run('version backfill', (signal) => services.ingest.backfillPublished(signal))
    }
    const limiter = new RateLimiter(options.rateLimitPerMinute)
    const protocolCache = new ProtocolCache(() => store.revision(), undefined, () => services.downloads.changes, options.clock)
    const hosts = allowedHosts(options.host, options.baseUrl, options.allowedHosts, options.registryHostname)
    const mcp = new McpSessions(assistantContext(services, options.registryHostname), given.mcpSessions, options.clock)
    const app = createApp(services, {
      mcp,
      baseUrl: options.baseUrl,
      rendererDir: options.rendererDir,
      rateLimiter: limiter,
      protocolCache,
      registryHostname: options.registryHostname,
      allowedHosts: hosts,
      clock: options.clock
    })
    const fastPath = { cache: protocolCache, limiter, downloads: services.downloads, allowedHosts: hosts }
    const signedFiles = { locations: signedLocations(services), limiter, allowedHosts: hosts, callerOf: (token: string) => protocolCache.callerOf(token) }
    app.on('error', (error: Error) => {
      if (!isClientGone(error)) console.error(`homeport: ${error.stack ?? error.message}`)
    })
    const handle = app.callback()
    const tls = options.tls
      ? await (await import('../data-dir/tls.js')).resolveTls(options.dataDir, {
          certPath: options.tlsCert,
          keyPath: options.tlsKey,
          hostnames: [
            ...(options.registryHostname ? [options.registryHostname.split(':')[0]!] : []),
            ...options.allowedHosts,
            ...(options.baseUrl ? [new URL(options.baseUrl).hostname.replace(/^\[|\]$/g, '')] : [])
          ]
        })
      : undefined
    const graceful = gracefulServer(
      (handler) => (tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, handler) : createServer(handler)),
      (req, res) => {
        // The two most frequent requests, answered before Koa when all is plainly well; the rest go to Koa.
        const protocol = tls ? 'https' : 'http'
        if (serveFromCache(req, res, fastPath, protocol)) return
        const download = serveSignedFile(req, res, signedFiles, protocol)
        if (download === false) void handle(req, res)
        else
          void download.then(
            (answered) => answered || void handle(req, res),
            // Nothing the fast path does should throw; if something did, Koa answers (or the answer begun is cut off).
            () => (res.headersSent ? res.destroy() : void handle(req, res))
          )
      }
    )
    const listening = graceful.server
    listening.keepAliveTimeout = KEEP_ALIVE_MS
    server = listening
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject)
      listening.listen(options.port, options.host, () => resolve())
    })
    const { port } = listening.address() as AddressInfo
    // The periodic jobs (boot/jobs.ts); the services start the others on demand (ingest, git syncs and builds, bundles).
    startPeriodicJobs(background, services, !store.writesRefused)
    if (!store.writesRefused) await services.vcsBuilds.resumeBuilds() // builds a crash interrupted
    const url = `${tls ? 'https' : 'http'}://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`
    // Where this server listens, for `homeport backup` to find it.
    if (!store.writesRefused) await writeInside(options.dataDir, SERVER_FILE, JSON.stringify({ pid: process.pid, url }), { atomic: true })
    // Once listening, so that it takes none of the start's time; a search that comes before it is done waits for it.
    const building = background.run('search index build', (signal) => services.moduleIndex.built(signal))
    let closing: Promise<void> | undefined
    // Then what a crash left (an archive stored for a version never written), so that it takes none of the first answers' time either
    // (an archive is kept while a version is about to name it: ArchiveKeeper.pin); not once a stop has cancelled the build.
    if (!store.writesRefused) void building.then(() => (closing ? undefined : background.run('archive sweep', () => services.sweepArchives())))
    return {
      url,
      port,
      adminToken,
      services,
      tls,
      writesRefused: store.writesRefused?.message,
      idle: () => background.idle(),
      close() {
        // The order in which Homeport stops, each step waiting for the one before.
        closing ??= stopInOrder(
          [
            // 0. assistants' sessions end, and their open event streams with them
            { waitsFor: 'the assistants’ (MCP) sessions to end', run: () => mcp.close() },
            // 1. no new connections; requests in flight are answered
            { waitsFor: 'requests in flight to be answered', run: () => graceful.close() },
            // 2. timers stop (git poll, count flush); syncs, builds and ingests in flight finish, or are cancelled after a grace period
            { waitsFor: 'background jobs in flight (syncs, builds, ingests) to finish', run: () => background.close() },
            // 3. the HCL parser's worker thread ends
            { waitsFor: 'the Terraform parser’s worker to end', run: () => services.ingest.close() },
            // 4. the last download counts are written, or their loss reported
            { waitsFor: 'the last download counts to be written', run: () => services.downloads.close() },
            // 5. `homeport backup` stops looking for this server (best effort: a read-only directory must not fail the stop)
            {
              waitsFor: `${SERVER_FILE} to be removed`,
              run: async () => (store.writesRefused ? undefined : rm(join(options.dataDir, SERVER_FILE), { force: true }).catch(() => undefined))
            },
            // 6. writes in flight reach the disk; the data directory is released
            { waitsFor: 'the store to finish its writes in flight', run: () => store.close() }
          ],
          (line) => console.error(line)
        )
        return closing
      }
    }
  } catch (error) {
    server?.close()
    await background.close()
    await store.close()
    throw error
  }
}
