import type Router from '@koa/router'
import type { Context } from 'koa'
import { HttpError } from './errors.js'

/**
 * The last route of a router: a path the router knows, asked with a method it does not serve,
 * answers 405 with `Allow` (RFC 9110); any other path answers 404 in the router's own words.
 */
export function unmatched(router: Router, notFound: string) {
  return (ctx: Context): never => {
    const allowed = new Set<string>()
    for (const layer of router.match(ctx.path, ctx.method).path) {
      // Middleware has no methods, and the catch-all (this route) has them all.
      if (layer.methods.length === 0 || String(layer.path).includes('{*rest}')) continue
      for (const method of layer.methods) allowed.add(method)
    }
    if (allowed.size === 0) throw new HttpError(404, 'not found', notFound)
    const allow = [...allowed].join(', ')
    throw new HttpError(405, 'method not allowed', `${ctx.method} is not allowed here; this path takes ${allow}.`, undefined, { Allow: allow })
  }
}
