import type { Context } from 'koa'
import { HttpError } from './errors.js'
import { queryString } from './query.js'

export interface OffsetPage {
  offset: number
  limit: number
}

export interface OffsetLimits {
  defaultLimit: number
  maxLimit: number
}

/** The protocol's list pages: 15 by default, at most 100, as the public registry has them. */
export const PROTOCOL_LIMITS: OffsetLimits = { defaultLimit: 15, maxLimit: 100 }

/**
 * `offset` and `limit` of a protocol request, with SQL-like meaning: a limit above the maximum
 * is reduced to it, silently, as HCP’s API documentation says.
 */
export function offsetPage(ctx: Context, limits: OffsetLimits = PROTOCOL_LIMITS): OffsetPage {
  const read = (name: string, minimum: number): number | undefined => {
    const value = queryString(ctx, name)
    if (value === undefined || value === '') return undefined
    if (!/^\d{1,9}$/.test(value) || Number(value) < minimum) {
      throw new HttpError(400, 'bad request', `${name} must be a whole number of at least ${minimum}.`, { parameter: name })
    }
    return Number(value)
  }
  return { offset: read('offset', 0) ?? 0, limit: Math.min(read('limit', 1) ?? limits.defaultLimit, limits.maxLimit) }
}

/**
 * The protocol's `meta`: next_offset, prev_offset and next_url only where they apply. next_url
 * is a path with the request's query, as the public registry gives it.
 */
export function offsetMeta(ctx: Context, total: number, page: OffsetPage) {
  const meta: Record<string, number | string> = { limit: page.limit, current_offset: page.offset }
  if (page.offset + page.limit < total) {
    meta.next_offset = page.offset + page.limit
    const query = new URLSearchParams()
    for (const [key, value] of Object.entries(ctx.query)) if (typeof value === 'string') query.set(key, value)
    query.set('offset', String(meta.next_offset))
    query.set('limit', String(page.limit))
    meta.next_url = `${ctx.path}?${query.toString()}`
  }
  if (page.offset > 0) meta.prev_offset = Math.max(0, page.offset - page.limit)
  return meta
}
