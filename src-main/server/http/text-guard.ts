import type { Context, Next } from 'koa'
import { isStorableText, jsonProblemIn, MAX_JSON_DEPTH } from '../domain/core/stored-text.js'
import { HttpError } from './errors.js'
import { decodedSegment } from './decode.js'

const refusal = (where: string) =>
  new HttpError(400, 'bad request', `${where} holds a NUL character or a lone UTF-16 surrogate, which Homeport does not take in text.`)

/**
 * In front of every route: a path or query whose decoded text no store keeps (domain/core/stored-text.ts)
 * is refused with a 400, in the format of the route it was meant for.
 */
export async function refuseUnstorablePath(ctx: Context, next: Next): Promise<void> {
  // Not percent-decodable: the routes answer that as they always have.
  const path = decodedSegment(ctx.path) ?? ctx.path
  if (!isStorableText(path)) throw refusal('The request path')
  for (const [name, value] of Object.entries(ctx.query)) {
    for (const text of [name, ...(Array.isArray(value) ? value : [value ?? ''])]) {
      if (!isStorableText(text)) throw refusal(`The query parameter ${JSON.stringify(name.replace(/[^\x20-\x7e]/g, '?'))}`)
    }
  }
  await next()
}

/**
 * After a body parser: a parsed body with text no store keeps is refused (422), pointing at the
 * first such value; so is one nested deeper than any document Homeport reads (400).
 */
export async function refuseUnstorableBody(ctx: Context, next: Next): Promise<void> {
  const found = jsonProblemIn(ctx.request.body)
  if (found?.problem === 'unstorable-text') {
    throw new HttpError(422, 'invalid attribute', 'This value holds a NUL character or a lone UTF-16 surrogate, which Homeport does not take in text.', { pointer: found.pointer })
  }
  if (found?.problem === 'too-deep') throw new HttpError(400, 'bad request', `The request body nests deeper than ${MAX_JSON_DEPTH} levels; no document Homeport reads does.`)
  await next()
}
