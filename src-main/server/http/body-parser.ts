import type { Middleware } from 'koa'
import type { bodyParser as BodyParser } from '@koa/bodyparser'

type Options = Parameters<typeof BodyParser>[0]

/**
 * @koa/bodyparser's middleware, loaded with the first request that reaches it rather than at start:
 * with its dependencies (co-body, qs, iconv-lite) it was an eighth of an empty registry's start-up,
 * and nothing before listening needs it.
 */
export function bodyParser(options: Options): Middleware {
  let parser: Promise<Middleware> | undefined
  return async (ctx, next) => {
    parser ??= import('@koa/bodyparser').then(({ bodyParser: make }) => make(options) as Middleware)
    await (await parser)(ctx, next)
  }
}
