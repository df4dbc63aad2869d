import { createHash } from 'node:crypto'
import type { Store } from '../../store/port.js'
import { BadGatewayError, UnavailableError } from '../core/errors.js'
import { resolveUnder, type UpstreamPath } from './upstream-path.js'
import { Breaker } from './breaker.js'
import { describeJsonProblem, jsonProblemIn } from '../core/stored-text.js'

/** The public registry is out of reach and nothing was cached for this question. */
export class UpstreamUnavailableError extends UnavailableError {}

export interface UpstreamOptions {
  /** The registry's address (`https://registry.terraform.io`), found through its service discovery. */
  url: string
  /** A token for an upstream that wants one (another Homeport, say); never sent elsewhere. */
  token?: string
  /** The upstream's docs API where it is not its v2 API (OpenTofu's registry: `https://api.opentofu.org`, static files). */
  docsUrl?: string
  /** Answers younger than this are served without asking the upstream again, while it is reachable. */
  maxAgeMs?: number
  timeoutMs?: number
  /** The time, for the cache's and reachability's rules (tests move it). */
  clock?: () => number
  /** Aborted when Homeport stops (`Background.stopping`): a fetch in flight ends, so a bundle pulling through does not hold SIGTERM. */
  stopping?: AbortSignal
}

export interface UpstreamAnswer {
  status: number
  body: unknown
  /** True when the upstream could not be reached and this is what it said last time. */
  stale: boolean
  fetchedAt: string
}

export const DEFAULT_UPSTREAM = 'https://registry.terraform.io'
export const DEFAULT_OPENTOFU_UPSTREAM = 'https://registry.opentofu.org'
export const DEFAULT_OPENTOFU_DOCS = 'https://api.opentofu.org'
const DEFAULT_MAX_AGE_MS = 5 * 60 * 1000
/**
 * Once the upstream has failed FAILURES_TO_OPEN times in a row (breaker.ts), how long Homeport answers
 * from what it has without asking again: offline, every answer comes at once, and one request probes
 * the upstream at most this often.
 */
export const OFFLINE_RETRY_MS = 30_000
/**
 * The most of a JSON answer Homeport reads from the upstream. The largest real ones (every version
 * and platform of hashicorp/aws) are about a megabyte; past this, the answer is refused unread.
 */
export const MAX_UPSTREAM_JSON_BYTES = 8 * 1024 * 1024

/**
 * The services of the upstream Homeport follows: the two protocols its discovery names, the public
 * registry's v2 API (`/v2/` on its own origin, which discovery does not name), read for the publish
 * times and docs of provider versions, and, where the upstream has one, its docs API of its own
 * (OpenTofu's `/registry/docs/` on the origin of `docsUrl`).
 */
export type UpstreamService = 'modules.v1' | 'providers.v1' | 'v2' | 'docs'

/**
 * The upstream public registry, seen through a cache in the data directory: every answer is
 * kept, so a demo that ran once online keeps working offline. Online, answers are refreshed
 * after `maxAgeMs`; offline, the last answer is served, marked stale. Every request to it goes
 * through here: paths only as `upstreamPath` builds them, its token to its own origin only, and
 * every answer read within a bound.
 */

export class UpstreamRegistry {
  private readonly bases = new Map<UpstreamService, Promise<URL>>()
  /** Whether the upstream answers, and whether to ask it now. */
  private readonly breaker: Breaker

  constructor(
    private readonly store: Store,
    private readonly options: UpstreamOptions
  ) {
    this.breaker = new Breaker(OFFLINE_RETRY_MS, () => this.now())
  }

  get address(): string {
    return this.options.url
  }

  /**
   * A protocol path under one of the upstream's services (`hashicorp/consul/aws/versions` under
   * `modules.v1`). A cached answer is served as current only while the upstream is known to be
   * reachable; with the upstream out of reach, the cached answer comes back marked stale, at once,
   * and the upstream is asked again at most every OFFLINE_RETRY_MS. `live`: a version list, which
   * widens what Homeport offers beyond what is mirrored, is asked of the upstream itself each time
   * (the cache answers it only offline, marked stale), so a gone upstream is noticed by the very
   * answer that would otherwise offer what cannot be installed.
   */
  async get(path: UpstreamPath, service: UpstreamService = 'modules.v1', { live = false, include }: { live?: boolean; include?: 'provider-versions' } = {}): Promise<UpstreamAnswer> {
    const key = `${this.options.url.replace(/\/+$/, '')}|${service}|${path}${include ? `?include=${include}` : ''}`
    const id = `up-${createHash('sha256').update(key).digest('hex')}`
    const cached = await this.store.upstreamCache.get(id)
    const at = this.now()
    const maxAge = this.options.maxAgeMs ?? DEFAULT_MAX_AGE_MS
    if (cached && !live && this.breaker.reachable && at - Date.parse(cached.fetchedAt) < maxAge) {
      return { status: cached.status, body: cached.body, stale: false, fetchedAt: cached.fetchedAt }
    }
    const unreachable = (reason: string) => {
      if (cached) return { status: cached.status, body: cached.body, stale: true, fetchedAt: cached.fetchedAt }
      const what = service === 'modules.v1' ? 'module' : service === 'v2' ? 'package' : 'provider'
      throw new UpstreamUnavailableError(
        `The public registry at ${this.options.url} cannot be reached (${reason}), and Homeport has no earlier answer for this ${what}. It is offline: try again when connected, or mirror the ${what} while online.`
      )
    }
    if (!this.breaker.admits()) return unreachable('it did not answer several times in a row moments ago')
    let fresh: { status: number; body: unknown }
    try {
      const url = await this.urlOf(path, service)
      if (include) url.searchParams.set('include', include)
      fresh = await this.request(url)
    } catch (error) {
      if (error instanceof BadGatewayError) throw error
      return unreachable((error as Error).message)
    }
    // A live answer is not written while the cache's copy is still fresh: a version list asked at every
    // `terraform init` costs the store one write per cache age, and the cache's readers take any copy
    // younger than that.
    if (cached && at - Date.parse(cached.fetchedAt) < maxAge) return { ...fresh, stale: false, fetchedAt: new Date(at).toISOString() }
    const record = { id, url: key, fetchedAt: new Date(this.now()).toISOString(), status: fresh.status, body: fresh.body }
    await this.remember(record)
    return { ...fresh, stale: false, fetchedAt: record.fetchedAt }
  }

  /**
   * A JSON answer of the upstream with `query` (built by the caller from checked values), read
   * within the same bound and not kept in the answer cache: for what its caller keeps itself (a
   * provider version's docs, kept with the version). Online only.
   */
  async read(path: UpstreamPath, service: UpstreamService, query: Readonly<Record<string, string>> = {}): Promise<{ status: number; body: unknown }> {
    const unreachable = (reason: string) => new UpstreamUnavailableError(`The public registry at ${this.options.url} cannot be reached (${reason}).`)
    if (!this.breaker.admits()) throw unreachable('it did not answer several times in a row moments ago')
    try {
      const url = await this.urlOf(path, service)
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value)
      return await this.request(url)
    } catch (error) {
      if (error instanceof BadGatewayError) throw error
      throw unreachable((error as Error).message)
    }
  }

  /** Whether the upstream has a docs API of its own (OpenTofu's registry), rather than its v2 API's docs. */
  get hasDocsApi(): boolean {
    return this.options.docsUrl !== undefined
  }

  /** A text file of one of the upstream's services (a doc's markdown), read up to `maxBytes`; undefined when it has none (404). Online only, not cached. */
  async readText(path: UpstreamPath, service: UpstreamService, maxBytes: number): Promise<string | undefined> {
    const unreachable = (reason: string) => new UpstreamUnavailableError(`The public registry at ${this.options.url} cannot be reached (${reason}).`)
    if (!this.breaker.admits()) throw unreachable('it did not answer several times in a row moments ago')
    let url: URL
    let response: Response
    try {
      url = await this.urlOf(path, service)
      response = await this.fetch(url, service !== 'docs')
    } catch (error) {
      throw unreachable((error as Error).message)
    }
    if (response.status === 404) {
      await response.body?.cancel()
      return undefined
    }
    if (response.status !== 200) {
      await response.body?.cancel()
      throw new BadGatewayError(`The upstream answered HTTP ${response.status} for ${url.pathname}.`)
    }
    return (await readBounded(response, maxBytes, `${url.origin}${url.pathname}`)).toString('utf8')
  }

  /** Where the upstream says a version's archive is (its X-Terraform-Get, resolved). Online only. */
  async downloadLocation(path: UpstreamPath): Promise<string> {
    let url: URL
    let response: Response
    try {
      url = await this.urlOf(path, 'modules.v1')
      response = await this.fetch(url)
      await response.body?.cancel()
    } catch (error) {
      throw new UpstreamUnavailableError(`The public registry at ${this.options.url} cannot be reached (${(error as Error).message}).`)
    }
    if (response.status === 404) throw new UpstreamUnavailableError(`The public registry has no ${path.replace(/\/download$/, '')}.`)
    const location = response.headers.get('x-terraform-get')
    if ((response.status !== 200 && response.status !== 204) || !location) {
      throw new UpstreamUnavailableError(`The public registry gave no download location for ${path} (HTTP ${response.status}).`)
    }
    return /^(\/|\.\/|\.\.\/)/.test(location) ? new URL(location, url).toString() : location
  }

  /** The URL of `path` under one of the upstream's services: on that service's origin, below its path. */
  async urlOf(path: UpstreamPath, service: UpstreamService): Promise<URL> {
    return resolveUnder(await this.base(service), path)
  }

  /**
   * Fetches a file the upstream pointed at (an archive, a provider's SHA256SUMS), over HTTP(S) only;
   * the caller bounds what it reads (see `readBounded`).
   */
  async fetchArchive(location: string): Promise<Response> {
    const url = new URL(location)
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new BadGatewayError(`The upstream registry pointed at ${url.protocol} ${url.pathname}; Homeport fetches packages over HTTP(S) only.`)
    const response = await this.fetch(url, false)
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel()
      throw new UpstreamUnavailableError(`Fetching ${url.origin}${url.pathname} answered HTTP ${response.status}.`)
    }
    return response
  }

  /** A small file the upstream pointed at, read whole up to `maxBytes` (past that, refused). */
  async fetchSmall(location: string, maxBytes: number): Promise<Buffer> {
    const url = new URL(location)
    return readBounded(await this.fetchArchive(location), maxBytes, `${url.origin}${url.pathname}`)
  }

  /** The base URL of one of the upstream's services, from its discovery document (asked once). */
  private base(service: UpstreamService): Promise<URL> {
    let base = this.bases.get(service)
    if (!base) {
      const fixed = service === 'v2' ? new URL('/v2/', this.options.url) : service === 'docs' ? new URL('/registry/docs/', this.options.docsUrl ?? this.options.url) : undefined
      base = (fixed ? Promise.resolve(fixed) : this.discover(service as Exclude<UpstreamService, 'v2' | 'docs'>)).catch((error: unknown) => {
        this.bases.delete(service)
        throw error
      })
      this.bases.set(service, base)
    }
    return base
  }

  private async discover(service: Exclude<UpstreamService, 'v2' | 'docs'>): Promise<URL> {
    const discovery = new URL('/.well-known/terraform.json', this.options.url)
    const { status, body } = await this.request(discovery)
    const value = (body as Record<string, unknown> | undefined)?.[service]
    if (status !== 200 || typeof value !== 'string') throw new Error(`${this.options.url} names no ${service} service`)
    const base = new URL(value, discovery)
    if (!base.pathname.endsWith('/')) base.pathname += '/'
    return base
  }

  private async request(url: URL): Promise<{ status: number; body: unknown }> {
    const response = await this.fetch(url)
    if (response.status >= 500) {
      await response.body?.cancel()
      throw new Error(`HTTP ${response.status}`)
    }
    const text = (await readBounded(response, MAX_UPSTREAM_JSON_BYTES, `${url.origin}${url.pathname}`)).toString('utf8')
    let body: unknown
    try {
      body = text ? (JSON.parse(text) as unknown) : null
    } catch {
      throw new BadGatewayError(`The upstream registry's answer for ${url.pathname} is not JSON.`)
    }
    // Kept in the answer cache: text a store cannot keep is refused here, not when it is written.
    const problem = jsonProblemIn(body)
    if (problem !== undefined) throw new BadGatewayError(`The upstream registry's answer for ${url.pathname} ${describeJsonProblem(problem)}.`)
    return { status: response.status, body }
  }

  /**
   * Every request to the upstream; its token goes only to the upstream's own origin, never where an
   * answer points. Each request to the registry itself (`registry`: not a package host it points at)
   * says whether it is reachable: it answered (below 500), or not.
   */
  private async fetch(url: URL, registry = true): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'Homeport' }
    if (this.options.token && url.origin === new URL(this.options.url).origin) headers.Authorization = `Bearer ${this.options.token}`
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 10_000)
    const { stopping } = this.options
    try {
      const response = await fetch(url, { headers, redirect: 'follow', signal: stopping ? AbortSignal.any([timeout, stopping]) : timeout })
      if (registry) this.breaker.settle(response.status < 500)
      return response
    } catch (error) {
      if (registry) this.breaker.settle(false)
      throw error
    }
  }

  private now(): number {
    return (this.options.clock ?? Date.now)()
  }

  private async remember(record: { id: string; url: string; fetchedAt: string; status: number; body: unknown }): Promise<void> {
    await this.store.upstreamCache.upsert(record.id, () => ({ ...record }), (draft) => Object.assign(draft, record))
  }
}

/**
 * A response's body, read up to `maxBytes`: a longer one (by its Content-Length, or as it streams)
 * is cancelled and refused, so one answer cannot take the server's memory.
 */
export async function readBounded(response: Response, maxBytes: number, what: string): Promise<Buffer> {
  const tooLarge = () => new BadGatewayError(`The upstream's answer for ${what} is larger than ${maxBytes} bytes, the most Homeport reads of it; it was not taken.`)
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel()
    throw tooLarge()
  }
  const chunks: Uint8Array[] = []
  let size = 0
  if (!response.body) return Buffer.alloc(0)
  const reader = response.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}
