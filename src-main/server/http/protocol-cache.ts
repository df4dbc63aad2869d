import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Context } from 'koa'
import type { DownloadCounter } from '../domain/downloads.js'
import { hostnameOf } from './doors.js'
import { RateLimiter } from './rate-limit.js'

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
  revision: number
  expiresAt: number
  /** For a download location: the module whose downloads it counts. */
  counts?: string
}

export interface Cacheable {
  ttlMs: number
  counts?: string
}

/**
 * The registry protocol's answers, kept per caller (the exact Authorization header) and URL, so
 * that `terraform init` in a loop costs a lookup, not a computation. An answer is stale as soon
 * as anything is written to organizations or modules (the store's revision moves), and after
 * its time to live: a few seconds where it shows download counts, a minute for a download
 * location (signed for ten). A cached download still counts.
 */
export class ProtocolCache {
  private readonly answers = new Map<string, Answer>()

  constructor(
    private readonly revision: () => number,
    private readonly capacity = 5000
  ) {}

  static keyOf(authorization: string, url: string): string {
    return `${authorization}\n${url}`
  }

  get(key: string): Answer | undefined {
    const answer = this.answers.get(key)
    if (!answer) return undefined
    if (answer.revision !== this.revision() || answer.expiresAt < Date.now()) {
      this.answers.delete(key)
      return undefined
    }
    return answer
  }

  /** Keeps what a Koa handler answered, when it marked the answer cacheable. */
  remember(ctx: Context, cacheable: Cacheable, revision: number): void {
    const authorization = ctx.get('authorization')
    if (!authorization || ctx.status >= 300) return
    const body = ctx.body === null || ctx.body === undefined ? '' : typeof ctx.body === 'string' ? ctx.body : undefined
    if (body === undefined) return
    if (this.answers.size >= this.capacity) this.answers.delete(this.answers.keys().next().value!)
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(ctx.response.headers)) if (typeof value === 'string') headers[name] = value
    this.answers.set(ProtocolCache.keyOf(authorization, ctx.url), {
      status: ctx.status,
      headers,
      body,
      revision,
      expiresAt: Date.now() + cacheable.ttlMs,
      counts: cacheable.counts
    })
  }
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
 * is plainly fine: the host is served, no browser of another site is asking, the client is
 * within its rate, and the same caller asked the same URL since the last write. Anything else
 * goes the long way.
 */
export function serveFromCache(req: IncomingMessage, res: ServerResponse, deps: FastPathDeps): boolean {
  const url = req.url
  const authorization = req.headers.authorization
  if (req.method !== 'GET' || !url?.startsWith(PREFIX) || !authorization) return false
  if (req.headers.origin !== undefined || req.headers['sec-fetch-site'] === 'cross-site') return false
  if (deps.allowedHosts !== 'any' && !deps.allowedHosts.has(hostnameOf(req.headers.host ?? ''))) return false
  const answer = deps.cache.get(ProtocolCache.keyOf(authorization, url))
  if (!answer) return false
  if (!deps.limiter.take(RateLimiter.keyOf(authorization, req.socket.remoteAddress)).allowed) return false
  if (answer.counts) deps.downloads.count(answer.counts)
  res.writeHead(answer.status, answer.headers)
  res.end(answer.body)
  return true
}
