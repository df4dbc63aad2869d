import { delimiter, isAbsolute } from 'node:path'
import { parseArgs } from 'node:util'
import { EDITIONS, type Edition } from '../domain/organizations/edition.js'
import { resolveDataDir } from '../data-dir/default-dir.js'
import { DEFAULT_MAX_ARCHIVE_BYTES } from '../domain/modules/uploads.js'
import { DEFAULT_OPENTOFU_DOCS, DEFAULT_OPENTOFU_UPSTREAM, DEFAULT_UPSTREAM } from '../domain/upstream/upstream.js'
import { DEFAULT_POLL_INTERVAL_MS } from '../domain/vcs/builds.js'
import { parseDuration } from '../domain/gate/duration.js'
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '../http/rate-limit.js'
import { DEFAULT_REGISTRY_HOSTNAME, isRegistryHostname } from '../../shared/terraform-config.js'

export const DEFAULT_PORT = 4780
export const DEFAULT_HOST = '127.0.0.1'
/** With PostgreSQL, how much of the archives a replica keeps on its own disk (store/postgres/archive-cache.ts). */
export const DEFAULT_ARCHIVE_CACHE_BYTES = 2048 * 1024 * 1024

/** Everything `homeport serve` (and the desktop app, and the tests) configures: one typed object. */
export interface ServeOptions {
  port: number
  host: string
  dataDir: string
  edition: Edition
  baseUrl: string | undefined
  publicCuration: boolean
  maxArchiveBytes: number
  /** With --database: bytes of archives this replica keeps on its own disk (0: none). */
  archiveCacheBytes: number
  rateLimitPerMinute: number
  tls: boolean
  tlsCert: string | undefined
  tlsKey: string | undefined
  registryHostname: string
  upstream: string
  upstreamToken: string | undefined
  /** OpenTofu's public registry, mirrored beside `upstream` (the same address: one mirror answers for both names). */
  openTofuUpstream: string
  openTofuUpstreamToken: string | undefined
  /** OpenTofu's docs API (static files), which its registry's providers' docs are read from when mirrored. */
  openTofuDocs: string
  /** Versions from the public registries younger than this (seconds) are held back (domain/gate/); 0: none. */
  cooldownSeconds: number
  vcsPollIntervalMs: number
  allowedHosts: string[]
  /** Folders under which organization owners may connect repositories (the site admin may connect any). */
  gitRoots: string[]
  /** The site-admin token; undefined: the one in the data directory (made at first start). */
  adminToken: string | undefined
  /** A PostgreSQL database to keep the registry in (`postgres://…`); undefined: the data directory's files. */
  database: string | undefined
  /** The OpenID Provider people sign in with (its issuer URL); undefined: no single sign-on. */
  oidcIssuer: string | undefined
  oidcClientId: string | undefined
  oidcClientSecret: string | undefined
  /** What the sign-in page calls the provider ("Sign in with <name>"). */
  oidcName: string | undefined
  /** The scopes asked for at sign-in (`openid` among them). */
  oidcScopes: string[]
  /** The claim that lists a person's groups (`<organization>/<team>` makes them a member of that team). */
  oidcGroupsClaim: string
  /** The group whose people have the site admin's rights; undefined: nobody, through a group. */
  oidcAdminGroup: string | undefined
}

export class UsageError extends Error {}

/** A public registry's address (scheme and host, nothing after), as `flag` gives it. */
function registryAddress(flag: string, text: string): string {
  if (!/^https?:\/\/[^/]+\/?$/.test(text)) throw new UsageError(`${flag} is a registry address, like https://registry.terraform.io.`)
  return text
}

/** One setting: its flag, its environment variable, its default as people read it, and how its text becomes a value. */
interface Setting<K extends keyof ServeOptions = keyof ServeOptions> {
  key: K
  /** Without it the setting is an environment variable only (a token has no business in `ps`). */
  flag?: string
  env: string
  /** What the flag takes, for the usage text; none for a switch. */
  takes?: string
  /** The default, as the usage text and the docs show it. */
  shown: string
  help: string
  /** The value from the flag's or variable's text; undefined text gives the default. */
  parse(text: string | undefined): ServeOptions[K]
}

/** Checks each entry against its own key: `parse` must give that option's type. */
const setting = <K extends keyof ServeOptions>(spec: Setting<K>): Setting => spec

const ON = ['1', 'true', 'on']
const list = (text: string | undefined, separator: string) => (text ?? '').split(separator).map((item) => item.trim()).filter(Boolean)

/**
 * Every setting of `homeport serve`, once: the parser, the usage text, docs/reference/cli.md and the
 * table in docs/operations/running-headless.md (checked by tests/store/options.test.ts) come from
 * here. A flag wins over its variable, and the variable over the default.
 */
export const SETTINGS: readonly Setting[] = [
  setting({ key: 'port', flag: 'port', env: 'HOMEPORT_PORT', takes: '<n>', shown: String(DEFAULT_PORT), help: 'port to listen on; 0 picks a free one',
    parse(text) {
      const port = Number(text ?? DEFAULT_PORT)
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be 0–65535 (0: any free port).')
      return port
    } }),
  setting({ key: 'host', flag: 'host', env: 'HOMEPORT_HOST', takes: '<addr>', shown: DEFAULT_HOST, help: 'address to listen on',
    parse: (text) => text ?? DEFAULT_HOST }),
  setting({ key: 'dataDir', flag: 'data-dir', env: 'HOMEPORT_DATA_DIR', takes: '<path>', shown: 'the desktop app’s folder', help: 'where the registry lives',
    // The loop below has put the flag or HOMEPORT_DATA_DIR in `text` already.
    parse: (text) => resolveDataDir(text, {}) }),
  setting({ key: 'edition', flag: 'edition', env: 'HOMEPORT_EDITION', takes: '<name>', shown: 'hosted', help: `${EDITIONS.join(' | ')}`,
    parse(text) {
      const edition = text ?? 'hosted'
      if (!(EDITIONS as readonly string[]).includes(edition)) throw new UsageError(`--edition must be one of ${EDITIONS.join(', ')}.`)
      return edition as Edition
    } }),
  setting({ key: 'baseUrl', flag: 'base-url', env: 'HOMEPORT_BASE_URL', takes: '<url>', shown: 'the URL the client called', help: 'public URL used in links, behind a proxy',
    parse(text) {
      if (text !== undefined && text !== '' && !/^https?:\/\/[^/]+(\/.*)?$/.test(text)) throw new UsageError('--base-url must be an http:// or https:// URL.')
      return text || undefined
    } }),
  setting({ key: 'publicCuration', flag: 'public-curation', env: 'HOMEPORT_PUBLIC_CURATION', takes: '<on|off>', shown: 'on', help: 'organizations may curate public modules',
    parse(text) {
      const value = (text ?? 'on').toLowerCase()
      if (!['on', 'off', 'true', 'false'].includes(value)) throw new UsageError('--public-curation must be on or off.')
      return value === 'on' || value === 'true'
    } }),
  setting({ key: 'maxArchiveBytes', flag: 'max-archive-size', env: 'HOMEPORT_MAX_ARCHIVE_MB', takes: '<MB>', shown: String(DEFAULT_MAX_ARCHIVE_BYTES / (1024 * 1024)), help: 'largest module archive accepted, in MB',
    parse(text) {
      const megabytes = Number(text ?? DEFAULT_MAX_ARCHIVE_BYTES / (1024 * 1024))
      if (!Number.isFinite(megabytes) || megabytes <= 0) throw new UsageError('--max-archive-size is a number of megabytes above 0.')
      return Math.floor(megabytes * 1024 * 1024)
    } }),
  setting({ key: 'rateLimitPerMinute', flag: 'rate-limit', env: 'HOMEPORT_RATE_LIMIT', takes: '<n>', shown: String(DEFAULT_RATE_LIMIT_PER_MINUTE), help: 'requests per minute per client (0: no limit)',
    parse(text) {
      const limit = Number(text ?? DEFAULT_RATE_LIMIT_PER_MINUTE)
      if (!Number.isInteger(limit) || limit < 0) throw new UsageError('--rate-limit is a whole number of requests per minute (0: no limit).')
      return limit
    } }),
  setting({ key: 'tls', flag: 'tls', env: 'HOMEPORT_TLS', shown: 'off', help: 'serve HTTPS, with a certificate Homeport makes (trust its ca.crt)',
    parse: (text) => ON.includes((text ?? '').toLowerCase()) }),
  setting({ key: 'tlsCert', flag: 'tls-cert', env: 'HOMEPORT_TLS_CERT', takes: '<file>', shown: 'none', help: '…or your own certificate (with --tls-key)', parse: (text) => text || undefined }),
  setting({ key: 'tlsKey', flag: 'tls-key', env: 'HOMEPORT_TLS_KEY', takes: '<file>', shown: 'none', help: '…and its key', parse: (text) => text || undefined }),
  setting({ key: 'registryHostname', flag: 'registry-hostname', env: 'HOMEPORT_REGISTRY_HOSTNAME', takes: '<name>', shown: DEFAULT_REGISTRY_HOSTNAME, help: 'the host Terraform sources name',
    parse(text) {
      const hostname = (text ?? DEFAULT_REGISTRY_HOSTNAME).toLowerCase()
      if (!isRegistryHostname(hostname)) throw new UsageError('--registry-hostname must be a hostname with at least one dot (Terraform requires it), like homeport.localhost.')
      return hostname
    } }),
  setting({ key: 'upstream', flag: 'upstream', env: 'HOMEPORT_UPSTREAM', takes: '<url>', shown: DEFAULT_UPSTREAM, help: 'the public registry mirrored for registry.terraform.io',
    parse: (text) => registryAddress('--upstream', text ?? DEFAULT_UPSTREAM) }),
  setting({ key: 'upstreamToken', flag: 'upstream-token', env: 'HOMEPORT_UPSTREAM_TOKEN', takes: '<token>', shown: 'none', help: 'a token for that registry, if it wants one', parse: (text) => text || undefined }),
  setting({ key: 'openTofuUpstream', flag: 'opentofu-upstream', env: 'HOMEPORT_OPENTOFU_UPSTREAM', takes: '<url>', shown: DEFAULT_OPENTOFU_UPSTREAM, help: 'the public registry mirrored for registry.opentofu.org',
    parse: (text) => registryAddress('--opentofu-upstream', text ?? DEFAULT_OPENTOFU_UPSTREAM) }),
  setting({ key: 'openTofuDocs', flag: 'opentofu-docs', env: 'HOMEPORT_OPENTOFU_DOCS', takes: '<url>', shown: DEFAULT_OPENTOFU_DOCS, help: 'OpenTofu\'s docs API, where the docs of providers mirrored from registry.opentofu.org are read',
    parse: (text) => registryAddress('--opentofu-docs', text ?? DEFAULT_OPENTOFU_DOCS) }),
  setting({ key: 'openTofuUpstreamToken', flag: 'opentofu-upstream-token', env: 'HOMEPORT_OPENTOFU_UPSTREAM_TOKEN', takes: '<token>', shown: 'none', help: 'a token for that registry, if it wants one', parse: (text) => text || undefined }),
  setting({ key: 'cooldownSeconds', flag: 'cooldown', env: 'HOMEPORT_COOLDOWN', takes: '<duration>', shown: '0 (off; 7d recommended)', help: 'hold versions from the public registries until this old (7d, 36h, 90m)',
    parse(text) {
      try {
        return parseDuration(text ?? '0')
      } catch (error) {
        throw new UsageError(`--cooldown: ${(error as Error).message}`)
      }
    } }),
  setting({ key: 'vcsPollIntervalMs', flag: 'vcs-poll-interval', env: 'HOMEPORT_VCS_POLL_INTERVAL', takes: '<s>', shown: String(DEFAULT_POLL_INTERVAL_MS / 1000), help: 'seconds between checks for new tags',
    parse(text) {
      const seconds = Number(text ?? DEFAULT_POLL_INTERVAL_MS / 1000)
      if (!Number.isFinite(seconds) || seconds < 1) throw new UsageError('--vcs-poll-interval is a number of seconds, at least 1.')
      return seconds * 1000
    } }),
  setting({ key: 'allowedHosts', flag: 'allowed-hosts', env: 'HOMEPORT_ALLOWED_HOSTS', takes: '<a,b>', shown: 'loopback names', help: 'more host names to answer to', parse: (text) => list(text, ',') }),
  setting({ key: 'gitRoots', flag: 'git-roots', env: 'HOMEPORT_GIT_ROOTS', takes: `<dir${delimiter}dir>`, shown: 'none', help: 'folders whose repositories organization owners may connect',
    parse(text) {
      const roots = list(text, delimiter)
      if (roots.some((root) => !isAbsolute(root))) throw new UsageError(`--git-roots lists absolute folders, separated by "${delimiter}".`)
      return roots
    } }),
  setting({ key: 'database', flag: 'database', env: 'HOMEPORT_DATABASE_URL', takes: '<postgres://…>', shown: 'none: the data directory', help: 'keep the registry in PostgreSQL (several Homeports may share it)',
    parse(text) {
      if (!text) return undefined
      if (!/^postgres(ql)?:\/\//.test(text)) throw new UsageError('--database is a PostgreSQL connection URL, like postgres://homeport@db.example/homeport.')
      return text
    } }),
  setting({ key: 'archiveCacheBytes', flag: 'archive-cache-size', env: 'HOMEPORT_ARCHIVE_CACHE_MB', takes: '<MB>', shown: String(DEFAULT_ARCHIVE_CACHE_BYTES / (1024 * 1024)), help: 'with --database: MB of archives kept on local disk, served at a file\'s speed (0: none)',
    parse(text) {
      const megabytes = Number(text ?? DEFAULT_ARCHIVE_CACHE_BYTES / (1024 * 1024))
      if (!Number.isFinite(megabytes) || megabytes < 0) throw new UsageError('--archive-cache-size is a number of megabytes (0: no cache).')
      return Math.floor(megabytes * 1024 * 1024)
    } }),
  setting({ key: 'oidcIssuer', flag: 'oidc-issuer', env: 'HOMEPORT_OIDC_ISSUER', takes: '<url>', shown: 'none: no single sign-on', help: 'the OpenID Provider people sign in with (its issuer URL; https, or http on loopback)',
    parse(text) {
      if (!text) return undefined
      let url: URL
      try {
        url = new URL(text)
      } catch {
        throw new UsageError('--oidc-issuer is the identity provider\'s issuer URL, like https://login.example.com/realms/acme.')
      }
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname.replace(/^\[|\]$/g, '')))) {
        throw new UsageError('--oidc-issuer must be an https:// URL (http:// only for a provider on this machine, as in tests).')
      }
      return text
    } }),
  setting({ key: 'oidcClientId', flag: 'oidc-client-id', env: 'HOMEPORT_OIDC_CLIENT_ID', takes: '<id>', shown: 'none', help: 'Homeport\'s client id at that provider', parse: (text) => text || undefined }),
  setting({ key: 'oidcClientSecret', flag: 'oidc-client-secret', env: 'HOMEPORT_OIDC_CLIENT_SECRET', takes: '<secret>', shown: 'none', help: '…and its client secret (prefer the variable: a flag shows in ps)', parse: (text) => text || undefined }),
  setting({ key: 'oidcName', flag: 'oidc-name', env: 'HOMEPORT_OIDC_NAME', takes: '<name>', shown: 'the issuer\'s host', help: 'the provider\'s name on the sign-in page ("Sign in with <name>")', parse: (text) => text || undefined }),
  setting({ key: 'oidcScopes', flag: 'oidc-scopes', env: 'HOMEPORT_OIDC_SCOPES', takes: '<a b>', shown: 'openid profile email groups', help: 'the scopes asked for at sign-in (leave out groups where the provider has no such scope)',
    parse(text) {
      const scopes = (text ?? 'openid profile email groups').split(/[\s,]+/).filter(Boolean)
      if (!scopes.includes('openid')) throw new UsageError('--oidc-scopes must include openid.')
      return scopes
    } }),
  setting({ key: 'oidcGroupsClaim', flag: 'oidc-groups-claim', env: 'HOMEPORT_OIDC_GROUPS_CLAIM', takes: '<claim>', shown: 'groups', help: 'the claim listing a person\'s groups; <organization>/<team> is that team', parse: (text) => text || 'groups' }),
  setting({ key: 'oidcAdminGroup', flag: 'oidc-admin-group', env: 'HOMEPORT_OIDC_ADMIN_GROUP', takes: '<group>', shown: 'none', help: 'the group whose people are site admins (nobody is one through a group otherwise)', parse: (text) => text || undefined }),
  setting({ key: 'adminToken', env: 'HOMEPORT_ADMIN_TOKEN', shown: 'generated into the data directory', help: 'the site-admin token (16 characters or more)', parse: (text) => text || undefined })
]

/**
 * `homeport serve` options, from flags over environment variables over defaults. The same
 * function gives the desktop app and the tests their defaults (`parseServeOptions([], {})`).
 */
export function parseServeOptions(args: string[], env: NodeJS.ProcessEnv = process.env): ServeOptions {
  const { values } = parseArgs({ args, options: SERVE_FLAGS, strict: true, allowPositionals: false })
  return serveOptionsFrom(values, env)
}

/** The flags of `homeport serve`, as `parseArgs` takes them: a setting with `takes` is a string, one without a switch. */
export const SERVE_FLAGS = Object.fromEntries(
  SETTINGS.filter((spec) => spec.flag !== undefined).map((spec) => [spec.flag!, { type: spec.takes ? ('string' as const) : ('boolean' as const) }])
)

/** The options from parsed flags over environment variables over defaults. */
export function serveOptionsFrom(values: Record<string, string | boolean | Array<string | boolean> | undefined>, env: NodeJS.ProcessEnv): ServeOptions {
  const options = {} as Record<keyof ServeOptions, unknown>
  for (const spec of SETTINGS) {
    const flag = spec.flag === undefined ? undefined : values[spec.flag]
    const text = flag === true ? 'on' : typeof flag === 'string' ? flag : env[spec.env]
    options[spec.key] = spec.parse(text)
  }
  const parsed = options as ServeOptions
  if (Boolean(parsed.tlsCert) !== Boolean(parsed.tlsKey)) throw new UsageError('--tls-cert and --tls-key go together.')
  // A certificate of one's own means HTTPS.
  if (parsed.tlsCert) parsed.tls = true
  const oidc = [parsed.oidcIssuer, parsed.oidcClientId, parsed.oidcClientSecret]
  if (oidc.some(Boolean) && !oidc.every(Boolean)) {
    throw new UsageError('Single sign-on needs --oidc-issuer, --oidc-client-id and --oidc-client-secret together (HOMEPORT_OIDC_ISSUER, HOMEPORT_OIDC_CLIENT_ID, HOMEPORT_OIDC_CLIENT_SECRET).')
  }
  if (!isLoopback(parsed.host) && !parsed.baseUrl && parsed.allowedHosts.length === 0) {
    throw new UsageError(
      `Listening on ${parsed.host}, where other machines reach it, Homeport would build its links (upload links among them) and the OCI token realm from whatever Host header a client sends. Give --base-url <the URL clients use> or --allowed-hosts <the names they use> (HOMEPORT_BASE_URL, HOMEPORT_ALLOWED_HOSTS).`
    )
  }
  return parsed
}

/** The options part of `homeport --help`, from the settings table. */
export function settingsUsage(): string {
  const rows = SETTINGS.map((spec) => [spec.flag ? `--${spec.flag}${spec.takes ? ` ${spec.takes}` : ''}` : '', spec.env, `${spec.help} (default: ${spec.shown})`])
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows.map(([flag, env, help]) => `  ${flag!.padEnd(widths[0]!)}  ${env!.padEnd(widths[1]!)}  ${help!}`).join('\n')
}

/** Whether a listen address is reachable from other machines. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}
