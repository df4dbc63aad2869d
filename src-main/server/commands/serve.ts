import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startServer } from '../boot/start-server.js'
import { isLoopback, SERVE_FLAGS, serveOptionsFrom, settingsUsage, UsageError } from '../boot/options.js'
import { command } from './command.js'

export const serve = command({
  name: 'serve',
  synopsis: '[options]',
  description: 'runs the Homeport registry headless: the API, the registry protocol and the GUI (the command when none is named).',
  options: SERVE_FLAGS,
  async run({ values, positionals }) {
    if (positionals.length > 0) throw new UsageError(`homeport serve takes options only, not "${positionals[0]}".`)
    const options = serveOptionsFrom(values, process.env)
    // The built GUI sits beside the CLI's folder: out/main/cli.js → out/renderer.
    const rendererDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'renderer')
    // Set before anything starts: a stop at any moment after spawn is orderly. One that comes while
    // the server starts (it may already answer requests) closes it as soon as the start is done.
    let stopping = false
    // Known once the start is done.
    const running: { server?: Awaited<ReturnType<typeof startServer>> } = {}
    const closeAndExit = (running: { close(): Promise<void> }) =>
      running.close().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`homeport: could not stop cleanly: ${(error as Error).message}`)
          process.exit(1)
        }
      )
    const stop = (signal: string) => {
      if (stopping) return
      stopping = true
      console.log(`${signal}: ${running.server ? 'finishing requests in flight…' : 'stopping once the start is done…'}`)
      if (running.server) void closeAndExit(running.server)
    }
    process.on('SIGINT', () => stop('SIGINT'))
    process.on('SIGTERM', () => stop('SIGTERM'))

    const server = (running.server = await startServer({ ...options, rendererDir }))
    if (stopping) return void closeAndExit(server)
    const { source } = server.adminToken
    console.log(`Data directory: ${options.dataDir}`)
    console.log(
      source.kind === 'environment'
        ? 'Admin token: from HOMEPORT_ADMIN_TOKEN'
        : `Admin token: in ${source.path}${source.created ? ' (new)' : ''}`
    )
    if (server.tls) {
      console.log(`TLS: clients must trust ${server.tls.trustPath} (for Terraform on Linux: SSL_CERT_FILE=${server.tls.trustPath})`)
      if (server.tls.newCa && server.tls.generated) {
        console.log('TLS: this is a new CA (the first, or one for new host names): trust it again, and remove an older Homeport CA from your trust store.')
      }
    }
    if (server.writesRefused) console.warn(`WARNING: started read-only. ${server.writesRefused}`)
    if (!isLoopback(options.host)) {
      console.warn(
        `WARNING: listening on ${options.host}: other machines on the network can reach this registry. ` +
          'Anyone with a token can publish; protect the tokens, or use --host 127.0.0.1.'
      )
    }
    console.log(`Homeport listening on ${server.url}`)
  }
})

/** The options part of the usage text: each setting's flag and variable. */
export const serveOptionsUsage = () => `Options of serve (each also an environment variable; a flag wins over its variable):\n${settingsUsage()}\n`
