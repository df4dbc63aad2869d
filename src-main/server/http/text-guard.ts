import type { Context, Next } from 'koa'
import { isStorableText, unstorableTextIn } from '../domain/core/stored-text.js'
import { HttpError } from './errors.js'

const refusal = (where: string) =>
  new HttpError(400, 'bad request', `${where} holds a NUL character or a lone UTF-16 surrogate, which Homeport does not take in text.`)

/**
 * In front of every route: a path or query whose decoded text no store keeps (domain/stored-text.ts)
 * is refused with a 400, in the format of the route it was meant for.
 */
export async function refuseUnstorablePath(ctx: Context, next: Next): Promise<void> {
  let path = ctx.path
  try {
    path = decodeURIComponent(ctx.path)
  } catch {
    // Not percent-decodable: the routes answer that as they always have.
  }
  if (!isStorableText(path)) throw refusal('The request path')
  for (const [name, value] of Object.entries(ctx.query)) {
    for (const text of [name, ...(Array.isArray(value) ? value : [value ?? ''])]) {
      if (!isStorableText(text)) throw refusal(`The query parameter ${JSON.stringify(name.replace(/[^\x20-\x7e]/g, '?'))}`)
    }
  }
  await next()
}

/** After a body parser: a parsed body with text no store keeps is refused, pointing at the first such value. */
export async function refuseUnstorableBody(ctx: Context, next: Next): Promise<void> {
  const pointer = unstorableTextIn(ctx.request.body)
  if (pointer !== undefined) {
    throw new HttpError(422, 'invalid attribute', 'This value holds a NUL character or a lone UTF-16 surrogate, which Homeport does not take in text.', { pointer })
  }
  await next()
}
