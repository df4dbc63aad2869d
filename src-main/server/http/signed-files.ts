import Router from '@koa/router'
import type { Context, Middleware } from 'koa'
import type { Readable } from 'node:stream'
import { parseDownloadToken, type DownloadToken } from '../domain/archives/download-links.js'
import { HttpError } from './errors.js'
import { pathParams } from './query.js'

/** A file a signed location names: its size, how to read it (or a byte range of it), and how to label it. */
export interface SignedFile {
  size: number
  open(range?: { start: number; end: number }): Readable
  type: string
  /** The file name a browser saves it as, if it should offer to save it. */
  attachment?: string
}

/**
 * Files at signed, short-lived locations (`<prefix>/<token>/<name>`, see download-links.ts): module
 * archives and provider release files. No token (Terraform sends none to them), HEAD as well as
 * GET, byte ranges, and never a `Content-Encoding` (Go would unzip an archive before reading it).
 */
export function signedFileRouter(prefix: string, rateLimit: Middleware, find: (token: DownloadToken, name: string) => Promise<SignedFile | undefined>): Router {
  const router = new Router({ prefix })
  router.use(rateLimit)
  router.get('/:token/:file', async (ctx) => {
    const { token: raw, file: name } = pathParams(ctx, 'token', 'file')
    const token = parseDownloadToken(raw)
    const file = token && (await find(token, name))
    if (!file) throw new HttpError(404, 'not found', 'This download link is invalid or has expired; ask the registry for a new one.')
    if (file.attachment) ctx.set('Content-Disposition', `attachment; filename="${file.attachment}"`)
    ctx.set('Cache-Control', 'private, max-age=600, immutable')
    sendFile(ctx, file)
  })
  return router
}

/** Answers with a file, whole or the one byte range asked for; to HEAD, with its headers alone. */
export function sendFile(ctx: Context, file: Pick<SignedFile, 'size' | 'open' | 'type'>): void {
  ctx.type = file.type
  ctx.set('Accept-Ranges', 'bytes')
  const range = byteRange(ctx.get('range'), file.size)
  if (range === 'unsatisfiable') {
    ctx.set('Content-Range', `bytes */${file.size}`)
    throw new HttpError(416, 'range not satisfiable', `The file has ${file.size} bytes.`)
  }
  ctx.status = range ? 206 : 200
  if (range) ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`)
  ctx.length = range ? range.end - range.start + 1 : file.size
  if (ctx.method !== 'HEAD') ctx.body = file.open(range)
}

/** A single `bytes=a-b`, `bytes=a-` or `bytes=-n` range, clamped to the file; undefined for none (or one Homeport does not serve, answered whole). */
function byteRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match || (match[1] === '' && match[2] === '')) return undefined
  const [start, end] = match[1] === '' ? [Math.max(0, size - Number(match[2])), size - 1] : [Number(match[1]), match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)]
  if (start >= size || start > end) return 'unsatisfiable'
  return { start, end }
}
