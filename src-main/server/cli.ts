#!/usr/bin/env node
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startServer } from './create-server.js'
import { isLoopback, parseServeOptions, UsageError } from './options.js'

const USAGE = `Usage: homeport [serve] [options]

Runs the Homeport registry headless: the API, the registry protocol and the GUI.

Options (each also an environment variable):
  --port <n>           HOMEPORT_PORT      port to listen on; 0 picks a free one (default 4780)
  --host <addr>        HOMEPORT_HOST      address to listen on (default 127.0.0.1, this machine only)
  --data-dir <path>    HOMEPORT_DATA_DIR  where the registry lives (default: the desktop app's folder)
  --edition <name>     HOMEPORT_EDITION   hosted | self-hosted (default hosted)
  --base-url <url>     HOMEPORT_BASE_URL  public URL used in links, behind a proxy
  --public-curation <on|off>  HOMEPORT_PUBLIC_CURATION  organizations may curate public modules (default on)
  --max-archive-size <MB>     HOMEPORT_MAX_ARCHIVE_MB   largest module archive accepted (default 100)
                       HOMEPORT_ADMIN_TOKEN  the site-admin token (default: generated into the data dir)
`

async function serve(args: string[]): Promise<void> {
  const options = parseServeOptions(args)
  // The built GUI sits beside this file's folder: out/main/cli.js → out/renderer.
  const rendererDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'renderer')
  const server = await startServer({ ...options, rendererDir, adminToken: process.env.HOMEPORT_ADMIN_TOKEN })
  const { source } = server.adminToken
  console.log(`Data directory: ${options.dataDir}`)
  console.log(
    source.kind === 'environment'
      ? 'Admin token: from HOMEPORT_ADMIN_TOKEN'
      : `Admin token: in ${source.path}${source.created ? ' (new)' : ''}`
  )
  if (!isLoopback(options.host)) {
    console.warn(
      `WARNING: listening on ${options.host}: other machines on the network can reach this registry. ` +
        'Anyone with a token can publish; protect the tokens, or use --host 127.0.0.1.'
    )
  }
  console.log(`Homeport listening on ${server.url}`)

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`${signal}: finishing requests in flight…`)
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`homeport: could not stop cleanly: ${(error as Error).message}`)
        process.exit(1)
      }
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE)
    return
  }
  if (command === undefined || command.startsWith('-')) return serve(argv)
  if (command === 'serve') return serve(rest)
  throw new UsageError(`Unknown command "${command}".`)
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`homeport: ${(error as Error).message}\n\n${USAGE}`)
    process.exit(2)
  }
  console.error(`homeport: ${(error as Error).message}`)
  process.exit(1)
})
