import { createHash } from 'node:crypto'
import type { Context, Next } from 'koa'
import { HttpError } from './errors.js'

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 6000

interface Bucket {
  tokens: number
  updated: number
}

/**
 * A token bucket per client: per API token when the request carries one, else per address.
 * A client may make `perMinute` requests a minute, sustained, and spend a minute's worth at
 * once. The token itself is never kept: buckets are keyed by a hash of it.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>()
  private readonly ratePerMs: number
  private sweep = Date.now()

  constructor(readonly perMinute: number) {
    this.ratePerMs = perMinute / 60_000
  }

  static keyOf(authorization: string | undefined, address: string | undefined): string {
    return authorization ? `t:${createHash('sha256').update(authorization).digest('base64url')}` : `a:${address ?? ''}`
  }

  /** Takes one request from the client's bucket; says how long to wait when it is empty. */
  take(key: string): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    if (this.perMinute <= 0) return { allowed: true }
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
        ctx.set('X-RateLimit-Limit', String(this.perMinute))
        const verdict = this.take(RateLimiter.keyOf(ctx.get('authorization') || undefined, ctx.ip))
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
