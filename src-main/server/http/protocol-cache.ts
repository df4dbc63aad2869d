import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Context, Middleware } from 'koa'
import { callerKey, type Caller } from '../domain/core/access.js'
import { Lru } from '../../shared/lru.js'
import { turnTime } from '../domain/core/turn-clock.js'
import type { DownloadCounter } from '../domain/modules/downloads.js'
import { bearerToken, identifiedCaller } from './auth.js'
import { passesDoors } from './doors.js'
import type { RateLimiter } from './rate-limit.js'

interface Answer {
  /** The request it answers, with the URL it is kept under: the headers as sent (the Host header passed the doors). */
  authorization: string
  host: string
  status: number
  headers: Record<string, string>
  body: string
  /** When it goes: its time to live's end, or its caller's token's expiry if that comes first. */
  expiresAt: number
  /** Whom it was computed for: the rate limit and the download count are theirs. */
  caller: Caller
  /** For a download location: the module and version whose downloads it counts. */
  counts?: { moduleId: string; versionId: string }
  /** For an answer that shows download counts: where the counts stood when it was made (DownloadCounter.changes). */
  countsAt?: number
  /** What it costs in memory, roughly: its body and headers, and the request's headers and URL. */
  bytes: number
}

export interface Cacheable {
  ttlMs: number
  /** The query parameters the answer depends on; a URL with any other is not kept. */
  params?: readonly string[]
  counts?: { moduleId: string; versionId: string }
  /** The answer shows download counts: it is stale when they change, so that counts agree with the summary. */
  showsCounts?: true
}

/** What an answer was computed from: the store's revision, and where the download counts stood. */
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

/** Answers kept for one URL, one per token and host that asked it; the oldest goes to make room. */
const MAX_ANSWERS_PER_URL = 16

/**
 * The registry protocol's answers, kept per request as sent (its Authorization header, Host
 * header and URL), so that `terraform init` in a loop costs a lookup, not a computation. Keyed by
 * what was sent rather than by whom it names, so that a hit needs no parsing: the same header is
 * the same token, hence the same caller, until the next write lets every answer go.
 *
 * An answer is stale as soon as anything is written to organizations or modules (the store's
 * revision moves: everything goes at once), an answer that shows download counts as soon as a
 * download is counted or counts are written, by any replica (so they agree with the downloads
 * summary), and any after its time to live
 * (a minute, for a download location signed for ten) or when its caller's token expires, if that
 * comes first. A cached download still counts.
 *
 * Memory is bounded in bytes, not entries: the least recently used answers go first, answers
 * too large to be worth it are not kept, expired ones are swept, and a URL is kept only when it
 * carries no query parameter but those its answer depends on (so `?v=1`, `?v=2`, … of one large
 * page cannot be made to fill it).
 */
export class ProtocolCache {
  /**
   * Per URL, the answers to each token and host that asked it (most URLs have one), weighed
   * together. Kept by URL, then compared, rather than by one key joining the three: a hit then
   * hashes only the URL, where joining them cost the lookup a copy of all three.
   */
  private readonly answers: Lru<string, readonly Answer[]>
  /**
   * Tokens Koa authenticated for an answer kept here, and whom they name: the signed downloads'
   * fast path (callerOf) needs no store lookup to know the caller. Only tokens that passed go in
   * (no bogus token takes room), and all go at the next write, so a revoked token stops at once.
   */
  private readonly callers = new Map<string, Caller>()
  private revisionSeen: number
  private sweptAt: number

  constructor(
    private readonly revision: () => number,
    private readonly limits: ProtocolCacheLimits = DEFAULT_CACHE_LIMITS,
    /** Moves whenever download counts may have changed (DownloadCounter.changes). */
    private readonly downloadCounts: () => number = () => 0,
    /** The time answers and tokens expire by, to within a turn of the event loop; tests move it instead of waiting. */
    private readonly clock: () => number = turnTime
  ) {
    this.answers = new Lru(limits.maxBytes)
    this.sweptAt = clock()
    this.revisionSeen = revision()
  }

  /** Taken before an answer is computed: a write or a download meanwhile makes it stale (see remember). */
  stamp(): CacheStamp {
    return { revision: this.revision(), downloads: this.downloadCounts() }
  }

  /** URLs with answers kept, and what they weigh. */
  get size(): { urls: number; bytes: number } {
    return { urls: this.answers.size, bytes: this.answers.weight }
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

  /** The answer kept for a request that sent these Authorization and Host headers for `url`, while nothing it shows has changed. */
  answerTo(authorization: string, host: string, url: string): Answer | undefined {
    this.dropIfStale()
    const answers = this.answers.get(url)
    if (!answers) return undefined
    for (const answer of answers) {
      if (answer.authorization !== authorization || answer.host !== host) continue
      if (answer.expiresAt <= this.clock() || (answer.countsAt !== undefined && answer.countsAt !== this.downloadCounts())) {
        this.store(url, answers.filter((kept) => kept !== answer))
        return undefined
      }
      return answer
    }
    return undefined
  }

  /** Keeps what a Koa handler answered, when it marked the answer cacheable and nothing it shows changed since `stamp`. */
  remember(ctx: Context, cacheable: Cacheable, stamp: CacheStamp): void {
    const caller = identifiedCaller(ctx)
    if (!caller || ctx.status >= 300 || stamp.revision !== this.revision()) return
    if (cacheable.showsCounts && stamp.downloads !== this.downloadCounts()) return
    const { authorization, host } = ctx.req.headers
    if (!authorization || !host || !dependsOnAll(ctx.url, cacheable.params ?? [])) return
    const body = ctx.body === null || ctx.body === undefined ? '' : typeof ctx.body === 'string' ? ctx.body : undefined
    if (body === undefined) return
    const headers: Record<string, string> = {}
    let bytes = 0
    for (const [name, value] of Object.entries(ctx.response.headers)) {
      if (typeof value !== 'string') continue
      headers[name] = value
      bytes += name.length + value.length
    }
    const url = ctx.url
    // Strings are UTF-16 in memory: two bytes a character is the honest estimate.
    bytes = 2 * (bytes + body.length + authorization.length + host.length + url.length) + 200
    if (bytes > this.limits.maxEntryBytes) return
    this.dropIfStale()
    const now = this.clock()
    if (now - this.sweptAt > SWEEP_EVERY_MS) this.sweep(now)
    const countsAt = cacheable.showsCounts ? stamp.downloads : undefined
    const expiresAt = Math.min(now + cacheable.ttlMs, caller.kind === 'site-admin' ? Infinity : (caller.expiresAt ?? Infinity))
    const answer: Answer = { authorization, host, status: ctx.status, headers, body, expiresAt, caller, counts: cacheable.counts, countsAt, bytes }
    const others = (this.answers.get(url) ?? []).filter((kept) => kept.authorization !== authorization || kept.host !== host)
    this.store(url, [...others.slice(1 - MAX_ANSWERS_PER_URL), answer])
    this.knowCaller(ctx, stamp)
  }

  /**
   * Lets the signed downloads' fast path know the token Koa authenticated for this request (callerOf),
   * unless anything was written since `stamp`, taken before the token was authenticated (stampRequest):
   * a revocation meanwhile would otherwise leave the revoked token known until the next write.
   */
  knowCaller(ctx: Context, stamp: CacheStamp): void {
    const caller = identifiedCaller(ctx)
    const token = bearerToken(ctx.req.headers.authorization)
    if (!caller || !token || stamp.revision !== this.revision()) return
    this.dropIfStale()
    this.callers.set(token, caller)
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
    // Changed after the walk: storing moves a URL to the end, where the walk would meet it again.
    const expired = [...this.answers].filter(([, answers]) => answers.some((answer) => answer.expiresAt <= now))
    for (const [url, answers] of expired) this.store(url, answers.filter((answer) => answer.expiresAt > now))
  }

  /** Keeps a URL's answers, weighed together; with none left, the URL goes. */
  private store(url: string, answers: readonly Answer[]): void {
    if (answers.length === 0) this.answers.delete(url)
    else this.answers.set(url, answers, answers.reduce((sum, answer) => sum + answer.bytes, 0))
  }
}

/**
 * Takes each request's stamp (ProtocolCache.stamp) before its caller is authenticated, for what the
 * cache keeps of its answer (requestStamp): taken after, a token revoked while it was being
 * authenticated would be kept as its caller, and so would the answer computed for it.
 */
export function stampRequest(cache: ProtocolCache): Middleware {
  return async (ctx, next) => {
    ;(ctx.state as { cacheStamp?: CacheStamp }).cacheStamp = cache.stamp()
    await next()
  }
}

/** The stamp stampRequest took, if it ran. */
export function requestStamp(ctx: Context): CacheStamp | undefined {
  return (ctx.state as { cacheStamp?: CacheStamp }).cacheStamp
}

/**
 * Whether the answer to `url` depends on each of its query parameters, each given once: else it is
 * not kept (a repeated parameter's meaning depends on which one a handler reads).
 */
function dependsOnAll(url: string, params: readonly string[]): boolean {
  const mark = url.indexOf('?')
  if (mark < 0) return true
  const names = [...new URLSearchParams(url.slice(mark + 1)).keys()]
  return new Set(names).size === names.length && names.every((name) => params.includes(name))
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
 * is plainly fine: a request with the same Authorization and Host headers asked the same URL since
 * the last write and Koa answered it (so its token was authenticated then, and its Host header
 * passed the doors), the rest of the doors let it in (the same check Koa makes), and the caller is
 * within its rate. Anything else goes the long way, where Koa answers it properly.
 */
export function serveFromCache(req: IncomingMessage, res: ServerResponse, deps: FastPathDeps, protocol: string): boolean {
  const url = req.url
  if (req.method !== 'GET' || !url?.startsWith(PREFIX)) return false
  const { authorization, host } = req.headers
  if (!authorization || !host) return false
  const answer = deps.cache.answerTo(authorization, host, url)
  if (!answer) return false
  // The doors read the Host header, which was the same when Koa answered, and what a browser adds:
  // only a request that carries the latter (Terraform's never do) needs them again.
  if ((req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined) && !passesDoors(req, protocol, deps.allowedHosts)) return false
  const { caller } = answer
  if (!deps.limiter.verdictOn(req, caller).allowed) return false
  if (answer.counts) {
    deps.downloads.count(answer.counts.moduleId)
    if (caller.kind !== 'site-admin') deps.downloads.consumed(answer.counts.moduleId, answer.counts.versionId, callerKey(caller))
  }
  res.writeHead(answer.status, answer.headers)
  res.end(answer.body)
  return true
}
