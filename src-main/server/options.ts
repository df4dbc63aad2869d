import { delimiter, isAbsolute } from 'node:path'
import { parseArgs } from 'node:util'
import { EDITIONS, type Edition } from './domain/edition.js'
import { defaultDataDir } from './data-dir.js'
import { DEFAULT_MAX_ARCHIVE_BYTES } from './domain/uploads.js'
import { DEFAULT_UPSTREAM } from './domain/upstream.js'
import { DEFAULT_POLL_INTERVAL_MS } from './domain/vcs/builds.js'
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from './http/rate-limit.js'
import { DEFAULT_REGISTRY_HOSTNAME, isRegistryHostname } from '../shared/terraform-config.js'

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
  rateLimitPerMinute: number
  tls: boolean
  tlsCert?: string
  tlsKey?: string
  registryHostname: string
  upstream: string
  upstreamToken?: string
  vcsPollIntervalMs: number
  allowedHosts: string[]
  /** Folders under which organization owners may connect repositories (the site admin may connect any). */
  gitRoots: string[]
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
      'max-archive-size': { type: 'string' },
      'rate-limit': { type: 'string' },
      tls: { type: 'boolean' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'registry-hostname': { type: 'string' },
      upstream: { type: 'string' },
      'upstream-token': { type: 'string' },
      'vcs-poll-interval': { type: 'string' },
      'allowed-hosts': { type: 'string' },
      'git-roots': { type: 'string' }
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
  const rateLimit = Number(values['rate-limit'] ?? env.HOMEPORT_RATE_LIMIT ?? DEFAULT_RATE_LIMIT_PER_MINUTE)
  if (!Number.isInteger(rateLimit) || rateLimit < 0) throw new UsageError('--rate-limit is a whole number of requests per minute (0: no limit).')
  const registryHostname = (values['registry-hostname'] ?? env.HOMEPORT_REGISTRY_HOSTNAME ?? DEFAULT_REGISTRY_HOSTNAME).toLowerCase()
  if (!isRegistryHostname(registryHostname)) {
    throw new UsageError('--registry-hostname must be a hostname with at least one dot (Terraform requires it), like homeport.localhost.')
  }
  const upstream = values.upstream ?? env.HOMEPORT_UPSTREAM ?? DEFAULT_UPSTREAM
  if (!/^https?:\/\/[^/]+\/?$/.test(upstream)) throw new UsageError('--upstream is a registry address, like https://registry.terraform.io.')
  const pollSeconds = Number(values['vcs-poll-interval'] ?? env.HOMEPORT_VCS_POLL_INTERVAL ?? DEFAULT_POLL_INTERVAL_MS / 1000)
  if (!Number.isFinite(pollSeconds) || pollSeconds < 1) throw new UsageError('--vcs-poll-interval is a number of seconds, at least 1.')
  const tlsCert = values['tls-cert'] ?? env.HOMEPORT_TLS_CERT
  const tlsKey = values['tls-key'] ?? env.HOMEPORT_TLS_KEY
  if (Boolean(tlsCert) !== Boolean(tlsKey)) throw new UsageError('--tls-cert and --tls-key go together.')
  const gitRoots = (values['git-roots'] ?? env.HOMEPORT_GIT_ROOTS ?? '').split(delimiter).filter(Boolean)
  if (gitRoots.some((root) => !isAbsolute(root))) throw new UsageError(`--git-roots lists absolute folders, separated by "${delimiter}".`)
  return {
    port,
    host: values.host ?? env.HOMEPORT_HOST ?? DEFAULT_HOST,
    dataDir: values['data-dir'] ?? env.HOMEPORT_DATA_DIR ?? defaultDataDir(),
    edition: edition as Edition,
    baseUrl: baseUrl || undefined,
    publicCuration: curation === 'on' || curation === 'true',
    maxArchiveBytes: Math.floor(maxArchiveMb * 1024 * 1024),
    rateLimitPerMinute: rateLimit,
    tls: values.tls === true || ['1', 'true', 'on'].includes((env.HOMEPORT_TLS ?? '').toLowerCase()) || Boolean(tlsCert),
    tlsCert,
    tlsKey,
    registryHostname,
    upstream,
    upstreamToken: values['upstream-token'] ?? env.HOMEPORT_UPSTREAM_TOKEN,
    vcsPollIntervalMs: pollSeconds * 1000,
    allowedHosts: (values['allowed-hosts'] ?? env.HOMEPORT_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
    gitRoots
  }
}

/** Whether a listen address is reachable from other machines. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}

export interface TerraformConfigOptions {
  url: string
  hostname: string
  token?: string
  dataDir: string
  output?: string
}

/** `homeport terraform-config` options; the URL defaults to where `homeport serve` listens by default. */
export function parseTerraformConfigOptions(args: string[], env: NodeJS.ProcessEnv = process.env): TerraformConfigOptions {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      hostname: { type: 'string' },
      token: { type: 'string' },
      'data-dir': { type: 'string' },
      output: { type: 'string', short: 'o' }
    },
    strict: true,
    allowPositionals: false
  })
  const tls = ['1', 'true', 'on'].includes((env.HOMEPORT_TLS ?? '').toLowerCase())
  const url = values.url ?? `${tls ? 'https' : 'http'}://${env.HOMEPORT_HOST ?? DEFAULT_HOST}:${env.HOMEPORT_PORT ?? DEFAULT_PORT}`
  if (!/^https?:\/\/[^/]+\/?$/.test(url)) throw new UsageError('--url is the server URL, like http://127.0.0.1:4780.')
  const hostname = (values.hostname ?? env.HOMEPORT_REGISTRY_HOSTNAME ?? DEFAULT_REGISTRY_HOSTNAME).toLowerCase()
  if (!isRegistryHostname(hostname)) throw new UsageError('--hostname must contain a dot (Terraform requires it), like homeport.localhost.')
  return {
    url,
    hostname,
    token: values.token ?? env.HOMEPORT_TOKEN,
    dataDir: values['data-dir'] ?? env.HOMEPORT_DATA_DIR ?? defaultDataDir(),
    output: values.output
  }
}
