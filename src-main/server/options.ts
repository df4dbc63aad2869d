import { parseArgs } from 'node:util'
import { EDITIONS, type Edition } from './domain/edition.js'
import { defaultDataDir } from './data-dir.js'
import { DEFAULT_MAX_ARCHIVE_BYTES } from './domain/uploads.js'

export const DEFAULT_PORT = 4780
export const DEFAULT_HOST = '127.0.0.1'

export interface ServeOptions {
  port: number
  host: string
  dataDir: string
  edition: Edition
  baseUrl?: string
  publicCuration: boolean
  maxArchiveBytes: number
}


export class UsageError extends Error {}

/**
 * `homeport serve` options. Each flag has an environment variable (HOMEPORT_PORT, …); a flag
 * wins over its variable, and the variable over the default.
 */
export function parseServeOptions(args: string[], env: NodeJS.ProcessEnv = process.env): ServeOptions {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      edition: { type: 'string' },
      'base-url': { type: 'string' },
      'public-curation': { type: 'string' },
      'max-archive-size': { type: 'string' }
    },
    strict: true,
    allowPositionals: false
  })
  const port = Number(values.port ?? env.HOMEPORT_PORT ?? DEFAULT_PORT)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0–65535 (0: any free port).`)
  const edition = values.edition ?? env.HOMEPORT_EDITION ?? 'hosted'
  if (!(EDITIONS as readonly string[]).includes(edition)) throw new UsageError(`--edition must be one of ${EDITIONS.join(', ')}.`)
  const baseUrl = values['base-url'] ?? env.HOMEPORT_BASE_URL
  if (baseUrl !== undefined && !/^https?:\/\/[^/]+(\/.*)?$/.test(baseUrl)) {
    throw new UsageError('--base-url must be an http:// or https:// URL.')
  }
  const curation = (values['public-curation'] ?? env.HOMEPORT_PUBLIC_CURATION ?? 'on').toLowerCase()
  if (!['on', 'off', 'true', 'false'].includes(curation)) throw new UsageError('--public-curation must be on or off.')
  const maxArchiveMb = Number(values['max-archive-size'] ?? env.HOMEPORT_MAX_ARCHIVE_MB ?? DEFAULT_MAX_ARCHIVE_BYTES / (1024 * 1024))
  if (!Number.isFinite(maxArchiveMb) || maxArchiveMb <= 0) throw new UsageError('--max-archive-size is a number of megabytes above 0.')
  return {
    port,
    host: values.host ?? env.HOMEPORT_HOST ?? DEFAULT_HOST,
    dataDir: values['data-dir'] ?? env.HOMEPORT_DATA_DIR ?? defaultDataDir(),
    edition: edition as Edition,
    baseUrl: baseUrl || undefined,
    publicCuration: curation === 'on' || curation === 'true',
    maxArchiveBytes: Math.floor(maxArchiveMb * 1024 * 1024)
  }
}

/** Whether a listen address is reachable from other machines. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}
