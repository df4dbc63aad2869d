import { createHash } from 'node:crypto'
import type { Context, Next } from 'koa'
import { HttpError } from './errors.js'

export interface RateLimitOptions {
  /** Requests a client may make per minute, sustained; it may also spend a minute's worth at once. 0 turns limiting off. */
  perMinute: number
}

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 6000

interface Bucket {
  tokens: number
  updated: number
}

/**
 * A token bucket per client: per API token when the request carries one, else per address.
 * Over the limit a request gets 429 with `Retry-After` (Terraform and go-tfe wait and retry).
 * The token itself is never kept: buckets are keyed by a hash of it.
 */
export function rateLimiter({ perMinute }: RateLimitOptions) {
  const buckets = new Map<string, Bucket>()
  const ratePerMs = perMinute / 60_000
  let sweep = Date.now()

  return async (ctx: Context, next: Next): Promise<void> => {
    if (perMinute <= 0) {
      await next()
      return
    }
    const now = Date.now()
    // Full buckets carry no information; drop them now and then so memory stays small.
    if (now - sweep > 60_000) {
      sweep = now
      for (const [key, bucket] of buckets) if (bucket.tokens + (now - bucket.updated) * ratePerMs >= perMinute) buckets.delete(key)
    }
    const authorization = ctx.get('authorization')
    const key = authorization ? `t:${createHash('sha256').update(authorization).digest('base64url')}` : `a:${ctx.ip}`
    const bucket = buckets.get(key) ?? { tokens: perMinute, updated: now }
    bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.updated) * ratePerMs)
    bucket.updated = now
    buckets.set(key, bucket)
    ctx.set('X-RateLimit-Limit', String(perMinute))
    if (bucket.tokens < 1) {
      const wait = Math.ceil((1 - bucket.tokens) / ratePerMs / 1000)
      throw new HttpError(429, 'too many requests', `Too many requests: slow down and retry in ${wait} s.`, undefined, {
        'Retry-After': String(wait),
        'X-RateLimit-Reset': String(wait)
      })
    }
    bucket.tokens -= 1
    await next()
  }
}
