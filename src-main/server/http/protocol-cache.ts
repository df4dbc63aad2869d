import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Context } from 'koa'
import { callerKey, type Caller } from '../domain/core/access.js'
import { Lru } from '../domain/core/lru.js'
import type { DownloadCounter } from '../domain/modules/downloads.js'
import { bearerToken, identifiedCaller } from './auth.js'
import { passesDoors } from './doors.js'
import { RateLimiter } from './rate-limit.js'

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
  expiresAt: number
  /** For a download location: the module and version whose downloads it counts. */
  counts?: { moduleId: string; versionId: string }
  /** For an answer that shows download counts: how many downloads had been counted when it was made. */
  countsAt?: number
}

export interface Cacheable {
  ttlMs: number
  /** The query parameters the answer depends on; a URL with any other is not kept. */
  params?: readonly string[]
  counts?: { moduleId: string; versionId: string }
  /** The answer shows download counts: it is stale at the next download, so that counts agree with the summary. */
  showsCounts?: true
}

/** What an answer was computed from: the store's revision, and the downloads counted. */
export interface CacheStamp {
  revision: number
  downloads: number
}

export interface ProtocolCacheLimits {
  /** All answers together, in bytes. */
  maxBytes: number
  /** An answer larger than this is not kept: it would push out many small ones for one caller. */
  maxEntryBytes: number
}

export const DEFAULT_CACHE_LIMITS: ProtocolCacheLimits = { maxBytes: 32 * 1024 * 1024, maxEntryBytes: 512 * 1024 }

/** How often expired answers are swept out, at most. */
const SWEEP_EVERY_MS = 10_000

/**
 * The registry protocol's answers, kept per authenticated caller and URL, so that `terraform
 * init` in a loop costs a lookup, not a computation. An answer is stale as soon as anything is
 * written to organizations or modules (the store's revision moves: everything goes at once), an
 * answer that shows download counts as soon as a download is counted (so they agree with the
 * downloads summary), and any after its time to live: a minute, for a download location signed for
 * ten. A cached download still counts.
 *
 * Memory is bounded in bytes, not entries: the least recently used answers go first, answers
 * too large to be worth it are not kept, expired ones are swept, and a URL is kept only when it
 * carries no query parameter but those its answer depends on (so `?v=1`, `?v=2`, … of one large
 * page cannot be made to fill it).
 */
export class ProtocolCache {
  /** Each weighed by what it costs in memory, roughly: its key, body and headers. */
  private readonly answers: Lru<string, Answer>
  /**
   * Tokens Koa authenticated for an answer kept here, and whom they name: the fast path needs no
   * store lookup to know the caller. Only tokens that passed go in (no bogus token takes room),
   * and all go at the next write, so a revoked token stops at once.
   */
  private readonly callers = new Map<string, Caller>()
  private revisionSeen: number
  private sweptAt: number

  constructor(
    private readonly revision: () => number,
    private readonly limits: ProtocolCacheLimits = DEFAULT_CACHE_LIMITS,
    private readonly downloadsCounted: () => number = () => 0,
    /** The time answers and tokens expire by; tests move it instead of waiting. */
    private readonly clock: () => number = Date.now
  ) {
    this.answers = new Lru(limits.maxBytes)
    this.sweptAt = clock()
    this.revisionSeen = revision()
  }

  /** Taken before an answer is computed: a write or a download meanwhile makes it stale (see remember). */
  stamp(): CacheStamp {
    return { revision: this.revision(), downloads: this.downloadsCounted() }
  }

  /** The key of a caller's request for `url`, or undefined when the URL cannot be cached (a repeated parameter). */
  static keyOf(caller: Caller, host: string | undefined, url: string): string | undefined {
    const normalized = normalizeUrl(url)
    return normalized && keyFor(caller, host, normalized.url)
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.answers.size, bytes: this.answers.weight }
  }

  /** The caller a token was last authenticated as, since the last write, while the token has not expired. */
  callerOf(token: string): Caller | undefined {
    this.dropIfStale()
    const caller = this.callers.get(token)
    if (caller && caller.kind !== 'site-admin' && caller.expiresAt !== undefined && caller.expiresAt <= this.clock()) {
      this.callers.delete(token)
      return undefined
    }
    return caller
  }

  get(key: string): Answer | undefined {
    this.dropIfStale()
    const answer = this.answers.get(key)
    if (!answer) return undefined
    if (answer.expiresAt < this.clock() || (answer.countsAt !== undefined && answer.countsAt !== this.downloadsCounted())) {
      this.answers.delete(key)
      return undefined
    }
    return answer
  }

  /** Keeps what a Koa handler answered, when it marked the answer cacheable and nothing it shows changed since `stamp`. */
  remember(ctx: Context, cacheable: Cacheable, stamp: CacheStamp): void {
    const caller = identifiedCaller(ctx)
    if (!caller || ctx.status >= 300 || stamp.revision !== this.revision()) return
    if (cacheable.showsCounts && stamp.downloads !== this.downloadsCounted()) return
    const normalized = normalizeUrl(ctx.url)
    if (!normalized || normalized.params.some((name) => !cacheable.params?.includes(name))) return
    const body = ctx.body === null || ctx.body === undefined ? '' : typeof ctx.body === 'string' ? ctx.body : undefined
    if (body === undefined) return
    const headers: Record<string, string> = {}
    let bytes = 0
    for (const [name, value] of Object.entries(ctx.response.headers)) {
      if (typeof value !== 'string') continue
      headers[name] = value
      bytes += name.length + value.length
    }
    const key = keyFor(caller, ctx.req.headers.host, normalized.url)
    // Strings are UTF-16 in memory: two bytes a character is the honest estimate.
    bytes = 2 * (bytes + body.length + key.length) + 200
    if (bytes > this.limits.maxEntryBytes) return
    this.dropIfStale()
    const now = this.clock()
    if (now - this.sweptAt > SWEEP_EVERY_MS) this.sweep(now)
    const countsAt = cacheable.showsCounts ? stamp.downloads : undefined
    this.answers.set(key, { status: ctx.status, headers, body, expiresAt: now + cacheable.ttlMs, counts: cacheable.counts, countsAt }, bytes)
    const token = bearerToken(ctx.get('authorization'))
    if (token) this.callers.set(token, caller)
  }

  /** A write makes every answer stale at once: let them all go rather than one by one. */
  private dropIfStale(): void {
    const revision = this.revision()
    if (revision === this.revisionSeen) return
    this.revisionSeen = revision
    this.answers.clear()
    this.callers.clear()
  }

  private sweep(now: number): void {
    this.sweptAt = now
    for (const [key, answer] of this.answers) if (answer.expiresAt < now) this.answers.delete(key)
  }
}

/**
 * An answer's key: who asked, the host they asked (download locations are absolute URLs on it), and
 * the URL's meaningful part.
 */
function keyFor(caller: Caller, host: string | undefined, url: string): string {
  return `${callerKey(caller)}\n${host ?? ''}\n${url}`
}

/**
 * The path and its query parameters in a fixed order, and their names; undefined when a
 * parameter is repeated (its meaning then depends on which one a handler reads).
 */
function normalizeUrl(url: string): { url: string; params: string[] } | undefined {
  const mark = url.indexOf('?')
  if (mark < 0) return { url, params: [] }
  const query = new URLSearchParams(url.slice(mark + 1))
  const entries = [...query].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const params = entries.map(([name]) => name)
  if (new Set(params).size !== params.length) return undefined
  const path = url.slice(0, mark)
  return entries.length === 0 ? { url: path, params } : { url: `${path}?${new URLSearchParams(entries).toString()}`, params }
}

export interface FastPathDeps {
  cache: ProtocolCache
  limiter: RateLimiter
  downloads: DownloadCounter
  allowedHosts: ReadonlySet<string> | 'any'
}

const PREFIX = '/api/registry/v1/modules'

/**
 * Answers a protocol GET from the cache, before Koa sees it, when everything Koa would check
 * is plainly fine: the doors let the request in (the same check Koa makes), its token is one Koa
 * authenticated since the last write, the caller is within its rate, and the same caller asked
 * the same URL since then. Anything else goes the long way, where Koa answers it properly.
 */
export function serveFromCache(req: IncomingMessage, res: ServerResponse, deps: FastPathDeps, protocol: string): boolean {
  const url = req.url
  if (req.method !== 'GET' || !url?.startsWith(PREFIX)) return false
  const token = bearerToken(req.headers.authorization)
  if (!token) return false
  if (!passesDoors(req, protocol, deps.allowedHosts)) return false
  const caller = deps.cache.callerOf(token)
  const key = caller && ProtocolCache.keyOf(caller, req.headers.host, url)
  const answer = key && deps.cache.get(key)
  if (!answer) return false
  if (!deps.limiter.verdictOn(req, RateLimiter.keyOf(caller, req.socket.remoteAddress)).allowed) return false
  if (answer.counts) {
    deps.downloads.count(answer.counts.moduleId)
    if (caller.kind !== 'site-admin') deps.downloads.consumed(answer.counts.moduleId, answer.counts.versionId, callerKey(caller))
  }
  res.writeHead(answer.status, answer.headers)
  res.end(answer.body)
  return true
}
