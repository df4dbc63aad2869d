import type { Context } from 'koa'
import { HttpError } from './errors.js'

/**
 * A query parameter as one string. Koa's parser already decodes percent-encoded brackets, so
 * `q%5Bname%5D` arrives as `q[name]`. A parameter given twice is ambiguous and refused.
 */
export function queryString(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name]
  if (Array.isArray(value)) throw new HttpError(400, 'bad request', `Give ${name} at most once.`, { parameter: name })
  return value
}

/**
 * The related resources a GET asks for with `include`, each one the endpoint can include
 * (`allowed`, named for `what`), or 400, as JSON:API says. sendDocument refuses `include` on any
 * endpoint that never asked for it, so the rule holds everywhere.
 */
export function includes(ctx: Context, allowed: string[], what: string): string[] {
  ctx.state.includeRead = true
  const value = queryString(ctx, 'include')
  if (value === undefined || value === '') return []
  const names = value.split(',').map((name) => name.trim())
  const unknown = names.find((name) => !allowed.includes(name))
  if (unknown !== undefined) {
    throw new HttpError(400, 'bad request', `Cannot include "${unknown}"; ${what} can include: ${allowed.join(', ')}.`, { parameter: 'include' })
  }
  return names
}

/** A positive whole-number query parameter. */
export function queryPositiveInteger(ctx: Context, name: string, minimum = 1): number | undefined {
  const value = queryString(ctx, name)
  if (value === undefined) return undefined
  const number = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN
  if (!(number >= minimum)) {
    throw new HttpError(400, 'bad request', `${name} must be a whole number of at least ${minimum}.`, { parameter: name })
  }
  return number
}

/** Named path parameters of the matched route, which the route's pattern guarantees. */
export function pathParams<K extends string>(ctx: Context, ...names: K[]): Record<K, string> {
  const params = ctx.params as Record<string, string | undefined>
  const result = {} as Record<K, string>
  for (const name of names) {
    const value = params[name]
    if (value === undefined) throw new Error(`the route has no :${name}`)
    result[name] = value
  }
  return result
}
