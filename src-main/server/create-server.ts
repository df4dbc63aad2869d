import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createApp } from './app.js'
import { gracefulServer } from './http/graceful-close.js'
import { resolveAdminToken, type AdminToken } from './admin-token.js'
import type { Edition } from './domain/edition.js'
import { createServices, type Services } from './services.js'
import { openFileStore } from './store/file-store.js'

export interface ServerOptions {
  dataDir: string
  host: string
  /** 0 picks any free port. */
  port: number
  edition: Edition
  baseUrl?: string
  rendererDir?: string
  /** HOMEPORT_ADMIN_TOKEN; when absent the token lives in the data directory. */
  adminToken?: string
  /** Whether organizations may curate public modules (hosted edition); default true. */
  publicCuration?: boolean
  /** Largest archive upload accepted, in bytes. */
  maxArchiveBytes?: number
}

export interface RunningServer {
  /** The URL it listens on. */
  url: string
  port: number
  adminToken: AdminToken
  services: Services
  /** Stops accepting requests, lets those in flight finish, writes everything, releases the data dir. */
  close(): Promise<void>
}

/** Opens the data directory and serves Homeport on it. Used by the CLI, Electron and the tests. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const store = await openFileStore(options.dataDir)
  let server: Server | undefined
  try {
    const adminToken = await resolveAdminToken(options.dataDir, options.adminToken)
    const services = createServices(store, {
      edition: options.edition,
      adminToken: adminToken.token,
      publicCuration: options.publicCuration,
      maxArchiveBytes: options.maxArchiveBytes
    })
    await services.modules.recover()
    const app = createApp(services, { baseUrl: options.baseUrl, rendererDir: options.rendererDir })
    app.on('error', (error: Error) => {
      console.error(`homeport: ${error.stack ?? error.message}`)
    })
    const handle = app.callback()
    const graceful = gracefulServer(createServer, (req, res) => {
      void handle(req, res)
    })
    const listening = graceful.server
    server = listening
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject)
      listening.listen(options.port, options.host, () => resolve())
    })
    const { port } = listening.address() as AddressInfo
    const host = options.host.includes(':') ? `[${options.host}]` : options.host
    let closing: Promise<void> | undefined
    return {
      url: `http://${host}:${port}`,
      port,
      adminToken,
      services,
      close() {
        closing ??= (async () => {
          await graceful.close()
          await services.ingest.idle()
          await store.close()
        })()
        return closing
      }
    }
  } catch (error) {
    server?.close()
    await store.close()
    throw error
  }
}
