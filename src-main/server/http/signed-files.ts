import { read, ReadStream } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { once } from 'node:events'
import { promisify } from 'node:util'
import Router from '@koa/router'
import type { Context, Middleware } from 'koa'
import type { ArchiveFile } from '../domain/archives/archive-file.js'
import { parseDownloadToken, type DownloadToken } from '../domain/archives/download-links.js'
import { HttpError } from './errors.js'
import { pathParams } from './query.js'
import { SmallFiles } from './small-files.js'

/** A file a signed location names: the stored file, and how to label it. */
export interface SignedFile extends ArchiveFile {
  type: string
  /** The file name a browser saves it as, if it should offer to save it. */
  attachment?: string
}

/** Small files every download sends from memory once read (see small-files.ts); content-addressed, so one for the process. */
const smallFiles = new SmallFiles()

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
    await sendFile(ctx, file)
  })
  return router
}

/** Answers with a file, whole or the one byte range asked for; to HEAD, with its headers alone. */
export async function sendFile(ctx: Context, file: ArchiveFile & { type: string }): Promise<void> {
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
  if (ctx.method === 'HEAD') return
  const small = await smallFiles.read(file)
  if (small) {
    ctx.body = range ? small.subarray(range.start, range.end + 1) : small
    return
  }
  const body = file.open(range)
  if (!(body instanceof ReadStream)) {
    ctx.body = body
    return
  }
  // A file on disk: read through the stream's descriptor into reused buffers rather than streamed
  // (the stream reads at most one chunk ahead on its own, unused).
  const opened = once(body, 'open') as Promise<[number]>
  body.on('error', () => undefined)
  const [fd] = await opened.catch((error: unknown) => {
    body.destroy()
    throw error
  })
  ctx.respond = false
  void sendRange(fd, range?.start ?? 0, ctx.length, ctx.res).finally(() => body.destroy())
}

const readAt = promisify(read)

/** The chunk a file is read and written in; see sendRange. */
const CHUNK_BYTES = 256 * 1024

/**
 * Writes `length` bytes of a file from `start` to a response, reading each chunk while the one
 * before is being written, into two buffers used over and over (one, for a file of one chunk).
 * A file stream allocates a buffer a chunk, and the garbage collections that follow cost in
 * proportion to the server's heap: with a registry in memory, a 100 MB download cost twice the CPU
 * of a static file server's and ran at two thirds its speed; this way it costs less than the static
 * server's (figure 8). Koa's own piping, for its part, made an AbortController and a DOMException
 * for every answer, a tenth of the time of a small archive's (figure 12). A buffer is refilled only
 * once its write has called back, when the socket is done with it.
 */
async function sendRange(fd: number, start: number, length: number, res: ServerResponse): Promise<void> {
  const size = Math.min(CHUNK_BYTES, length)
  const buffers = length > CHUNK_BYTES ? [Buffer.allocUnsafeSlow(size), Buffer.allocUnsafeSlow(size)] : [Buffer.allocUnsafeSlow(size)]
  // A failed write is answered through its callback; unheard, the response's 'error' event (a
  // client that hung up) would take the process down.
  res.on('error', () => undefined)
  // And a write still buffered when the client hangs up may never call back at all: its closing
  // ends the wait, or the descriptor would stay open for good.
  const hungUp = new Promise<never>((_, reject) => res.once('close', () => reject(new Error('the client hung up'))))
  hungUp.catch(() => undefined)
  let written: Promise<void> = Promise.resolve()
  try {
    for (let sent = 0, turn = 0; sent < length && !res.destroyed; turn = (turn + 1) % buffers.length) {
      const buffer = buffers[turn]!
      const { bytesRead } = await readAt(fd, buffer, 0, Math.min(CHUNK_BYTES, length - sent), start + sent)
      if (bytesRead === 0) throw new Error('the file is shorter than it was')
      sent += bytesRead
      await written
      const chunk = buffer.subarray(0, bytesRead)
      // The last chunk ends the answer: its buffer is not read into again.
      if (sent === length) return void res.end(chunk)
      written = Promise.race([new Promise<void>((resolve, reject) => res.write(chunk, (error) => (error ? reject(error) : resolve()))), hungUp])
      // Heard at the next turn, but a write can fail while the next chunk is read: handled now, so that it is no unhandled rejection.
      written.catch(() => undefined)
    }
    await written
    if (!res.destroyed) res.end()
  } catch {
    // The client went away, or the file could not be read: the response cannot be completed.
    res.destroy()
  }
}

/** A single `bytes=a-b`, `bytes=a-` or `bytes=-n` range, clamped to the file; undefined for none (or one Homeport does not serve, answered whole). */
function byteRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match || (match[1] === '' && match[2] === '')) return undefined
  const [start, end] = match[1] === '' ? [Math.max(0, size - Number(match[2])), size - 1] : [Number(match[1]), match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)]
  if (start >= size || start > end) return 'unsatisfiable'
  return { start, end }
}
