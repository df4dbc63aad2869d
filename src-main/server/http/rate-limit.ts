import type { IncomingMessage } from 'node:http'
import type { Context, Next } from 'koa'
import { callerKey, type Caller } from '../domain/core/access.js'
import { identifiedCaller } from './auth.js'
import { HttpError } from './errors.js'

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 6000

type Verdict = { allowed: true } | { allowed: false; retryAfterSeconds: number }

const ALLOWED: Verdict = Object.freeze({ allowed: true })

/** The limiter's verdict on a request, kept on it: the fast paths and Koa's middleware ask for it in turn. */
const VERDICT = Symbol('rate limit verdict')

interface Bucket {
  tokens: number
  updated: number
}

/**
 * A token bucket per client: per authenticated caller (a team, or the site admin), else per
 * address, so that neither random bogus tokens nor a valid token spelled another way (padded,
 * `bearer` in lower case) opens a fresh bucket. A client may make `perMinute` requests a minute,
 * sustained, and spend a minute's worth at once.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>()
  private readonly ratePerMs: number
  private sweep = Date.now()

  /** The headers of every answer under the limit, whichever path gives it. */
  readonly headers: Readonly<Record<string, string>>

  constructor(readonly perMinute: number) {
    this.ratePerMs = perMinute / 60_000
    this.headers = perMinute > 0 ? { 'X-RateLimit-Limit': String(perMinute) } : {}
  }

  /** A bucket per caller; unauthenticated and failed requests share their address's. */
  private static keyOf(caller: Caller | undefined, address: string | undefined): string {
    return caller ? `c:${callerKey(caller)}` : `a:${address ?? ''}`
  }

  /**
   * The verdict on one request by `caller` (undefined when unauthenticated): taken from the bucket
   * once, however many paths ask for it (a fast path that passes the request on to Koa after taking
   * it must not charge it twice). Without a limit, nothing is taken or kept.
   */
  verdictOn(req: IncomingMessage, caller: Caller | undefined): Verdict {
    if (this.perMinute <= 0) return ALLOWED
    const kept = req as IncomingMessage & { [VERDICT]?: Verdict }
    // The socket's address, as Koa's ctx.ip is without `proxy` (Homeport trusts no forwarding header).
    return (kept[VERDICT] ??= this.take(RateLimiter.keyOf(caller, req.socket.remoteAddress)))
  }

  /** Takes one request from the client's bucket; says how long to wait when it is empty. */
  private take(key: string): Verdict {
    const now = Date.now()
    // Full buckets carry no information; drop them now and then so memory stays small.
    if (now - this.sweep > 60_000) {
      this.sweep = now
      for (const [name, bucket] of this.buckets) if (bucket.tokens + (now - bucket.updated) * this.ratePerMs >= this.perMinute) this.buckets.delete(name)
    }
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, updated: now }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.updated) * this.ratePerMs)
    bucket.updated = now
    this.buckets.set(key, bucket)
    if (bucket.tokens < 1) return { allowed: false, retryAfterSeconds: Math.ceil((1 - bucket.tokens) / this.ratePerMs / 1000) }
    bucket.tokens -= 1
    return { allowed: true }
  }

  /** Koa middleware: over the limit a request gets 429 with `Retry-After` (Terraform and go-tfe wait and retry). */
  middleware() {
    return async (ctx: Context, next: Next): Promise<void> => {
      if (this.perMinute > 0) {
        ctx.set(this.headers)
        const verdict = this.verdictOn(ctx.req, identifiedCaller(ctx))
        if (!verdict.allowed) {
          const wait = String(verdict.retryAfterSeconds)
          throw new HttpError(429, 'too many requests', `Too many requests: slow down and retry in ${wait} s.`, undefined, {
            'Retry-After': wait,
            'X-RateLimit-Reset': wait
          })
        }
      }
      await next()
    }
  }
}
