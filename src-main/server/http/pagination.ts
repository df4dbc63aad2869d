import type { Context } from 'koa'
import type { Pagination } from '../../shared/wire/jsonapi.js'
import { queryPositiveInteger } from './query.js'

export interface PageRequest {
  number: number
  size: number
}


export interface Page<T> {
  items: T[]
  meta: { pagination: Pagination }
  links: { self: string; first: string; prev: string | null; next: string | null; last: string }
}

export const DEFAULT_PAGE_SIZE = 20
export const MAX_PAGE_SIZE = 100

/**
 * The `page[number]`/`page[size]` of a request. A size above the maximum is reduced to it, as
 * HCP Terraform does. With `optional`, a request that names neither gets undefined: the
 * organization list is then not paginated at all.
 */
export function pageRequest(ctx: Context, options: { optional?: boolean } = {}): PageRequest | undefined {
  const number = queryPositiveInteger(ctx, 'page[number]')
  const size = queryPositiveInteger(ctx, 'page[size]')
  if (options.optional && number === undefined && size === undefined) return undefined
  return { number: number ?? 1, size: Math.min(size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) }
}

/** One page of `items`, with JSON:API `links` (absolute, under `baseUrl`) and `meta.pagination`. */
export function paginate<T>(ctx: Context, baseUrl: string, items: T[], page: PageRequest): Page<T> {
  // An empty list has no page, as HCP counts it (go-tfe's tests expect 0); its links still name page 1.
  const totalPages = Math.ceil(items.length / page.size)
  const lastPage = Math.max(1, totalPages)
  const start = (page.number - 1) * page.size
  const link = (number: number): string => {
    const url = new URL(baseUrl + ctx.path)
    for (const [key, value] of Object.entries(ctx.query)) {
      if (typeof value === 'string') url.searchParams.set(key, value)
    }
    url.searchParams.set('page[number]', String(number))
    url.searchParams.set('page[size]', String(page.size))
    return url.toString()
  }
  const prev = page.number > 1 ? Math.min(page.number - 1, lastPage) : null
  const next = page.number < totalPages ? page.number + 1 : null
  return {
    items: items.slice(start, start + page.size),
    meta: {
      pagination: {
        'current-page': page.number,
        'page-size': page.size,
        'prev-page': prev,
        'next-page': next,
        'total-pages': totalPages,
        'total-count': items.length
      }
    },
    links: {
      self: link(page.number),
      first: link(1),
      prev: prev === null ? null : link(prev),
      next: next === null ? null : link(next),
      last: link(lastPage)
    }
  }
}
