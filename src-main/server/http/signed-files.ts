import { read, ReadStream } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { once } from 'node:events'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import Router from '@koa/router'
import type { Context, Middleware } from 'koa'
import type { Caller } from '../domain/core/access.js'
import type { ArchiveFile, ByteRange } from '../domain/archives/archive-file.js'
import { parseDownloadToken, type DownloadToken } from '../domain/archives/download-links.js'
import { bearerToken } from './auth.js'
import { COMMON_HEADERS } from './common-headers.js'
import { passesDoors } from './doors.js'
import { HttpError } from './errors.js'
import { requestStamp, type ProtocolCache } from './protocol-cache.js'
import { pathParams } from './query.js'
import type { RateLimiter } from './rate-limit.js'
import { SmallFiles } from './small-files.js'

/** A file a signed location names: the stored file, and how to label it. */
export interface SignedFile extends ArchiveFile {
  type: string
  /** The file name a browser saves it as, if it should offer to save it. */
  attachment?: string
}

/** A kind of signed location (`<prefix>/<token>/<name>`): where its files are, and how to find the file a token names. */
export interface SignedLocation {
  prefix: string
  find(token: DownloadToken, name: string): Promise<SignedFile | undefined>
}

/** Small files every download sends from memory once read (see small-files.ts); content-addressed, so one for the process. */
const smallFiles = new SmallFiles()

/** Signed locations are cached by the client for the ten minutes they are valid; their bytes never change. */
const CACHE_CONTROL = 'private, max-age=600, immutable'

/**
 * Files at signed, short-lived locations (`<prefix>/<token>/<name>`, see download-links.ts): module
 * archives and provider release files. No token (Terraform sends none to them), HEAD as well as
 * GET, byte ranges, and never a `Content-Encoding` (Go would unzip an archive before reading it).
 * Most are answered before Koa sees them (serveSignedFile); this router answers the rest, and
 * every refusal.
 */
export function signedFileRouter(location: SignedLocation, rateLimit: Middleware, cache?: ProtocolCache): Router {
  const router = new Router({ prefix: location.prefix })
  router.use(rateLimit)
  router.get('/:token/:file', async (ctx) => {
    const { token: raw, file: name } = pathParams(ctx, 'token', 'file')
    const token = parseDownloadToken(raw)
    const file = token && (await location.find(token, name))
    if (!file) throw new HttpError(404, 'not found', 'This download link is invalid or has expired; ask the registry for a new one.')
    if (file.attachment) ctx.set('Content-Disposition', attachment(file.attachment))
    ctx.set('Cache-Control', CACHE_CONTROL)
    await sendFile(ctx, file)
    // A client that sends its token (Terraform sends none) takes the fast path from its next download on.
    const stamp = requestStamp(ctx)
    if (cache && stamp) cache.knowCaller(ctx, stamp)
  })
  return router
}

export interface SignedFastPathDeps {
  locations: readonly SignedLocation[]
  limiter: RateLimiter
  allowedHosts: ReadonlySet<string> | 'any'
  /** Whom a token names, when Koa authenticated it since the last write (the protocol cache's callerOf). */
  callerOf(token: string): Caller | undefined
}

/** A path segment the fast path takes as it is: nothing percent-encoded, no query. */
const PLAIN_SEGMENT = /^[A-Za-z0-9._~+-]+$/

/**
 * Answers a signed download before Koa sees it, when everything Koa would check is plainly fine:
 * a GET or HEAD of `<prefix>/<token>/<name>` in plain characters, through the doors (the same
 * check Koa makes), with no token or one Koa authenticated since the last write (the rate limit is
 * counted per caller), a file the token names, a satisfiable range, and the caller within its
 * rate. Anything else, every refusal included, goes the long way (signedFileRouter), where Koa
 * answers it properly. Koa's path cost a 42 KB archive a third of its time (bench figure 12).
 *
 * False when the request is not a signed download; else whether it was answered here.
 */
export function serveSignedFile(req: IncomingMessage, res: ServerResponse, deps: SignedFastPathDeps, protocol: string): Promise<boolean> | false {
  const url = req.url ?? ''
  if (req.method !== 'GET' && req.method !== 'HEAD') return false
  const location = deps.locations.find(({ prefix }) => url.startsWith(prefix) && url.charCodeAt(prefix.length) === 47 /* / */)
  if (!location) return false
  const [raw, name, more] = url.slice(location.prefix.length + 1).split('/')
  if (more !== undefined || !raw || !name || !PLAIN_SEGMENT.test(raw) || !PLAIN_SEGMENT.test(name)) return false
  const token = parseDownloadToken(raw)
  if (!token) return false
  if (!passesDoors(req, protocol, deps.allowedHosts)) return false
  const bearer = bearerToken(req.headers.authorization)
  const caller = bearer === undefined ? undefined : deps.callerOf(bearer)
  if (bearer !== undefined && !caller) return false
  return answerFast(req, res, deps.limiter, caller, location.find(token, name))
}

async function answerFast(req: IncomingMessage, res: ServerResponse, limiter: RateLimiter, caller: Caller | undefined, found: Promise<SignedFile | undefined>): Promise<boolean> {
  const file = await found.catch(() => undefined)
  if (!file) return false
  const range = byteRange(req.headers.range ?? '', file.size)
  if (range === 'unsatisfiable') return false
  // Counted only for a file it answers; one that falls back before is counted by Koa, and one that
  // falls back after (its file would not open) keeps its verdict, so that Koa does not count it again.
  if (!limiter.verdictOn(req, caller).allowed) return false
  const body = req.method === 'HEAD' ? undefined : await openBody(file, range).catch(() => false as const)
  if (body === false) return false
  for (const [name, value] of Object.entries(COMMON_HEADERS)) res.setHeader(name, value)
  for (const [name, value] of Object.entries(limiter.headers)) res.setHeader(name, value)
  if (file.attachment) res.setHeader('Content-Disposition', attachment(file.attachment))
  res.setHeader('Cache-Control', CACHE_CONTROL)
  respond(res, file, range, body)
  return true
}

/** Answers with a file, whole or the one byte range asked for; to HEAD, with its headers alone. */
export async function sendFile(ctx: Context, file: ArchiveFile & { type: string }): Promise<void> {
  const range = byteRange(ctx.get('range'), file.size)
  if (range === 'unsatisfiable') {
    ctx.set('Accept-Ranges', 'bytes')
    ctx.set('Content-Range', `bytes */${file.size}`)
    throw new HttpError(416, 'range not satisfiable', `The file has ${file.size} bytes.`)
  }
  const body = ctx.method === 'HEAD' ? undefined : await openBody(file, range)
  // Answered here, not by Koa: its piping made an AbortController and a DOMException for every
  // answer, a tenth of the time of a small archive's (figure 12). Headers set before stay.
  ctx.respond = false
  respond(ctx.res, file, range, body)
}

function attachment(name: string): string {
  return `attachment; filename="${name}"`
}

/** What a file's answer sends: its bytes in memory, or a descriptor to read them from (closed once sent); undefined for HEAD. */
type Body = Buffer | { fd: number; close(): void } | Readable | undefined

/** Opens what `respond` sends of a file; fails, before anything is answered, when the file cannot be read. */
async function openBody(file: ArchiveFile, range: ByteRange | undefined): Promise<Body> {
  const small = await smallFiles.read(file)
  if (small) return range ? small.subarray(range.start, range.end + 1) : small
  const stream = file.open(range)
  if (!(stream instanceof ReadStream)) return started(stream)
  // A file on disk: read through the stream's descriptor into reused buffers rather than streamed
  // (the stream reads at most one chunk ahead on its own, unused).
  const opened = once(stream, 'open') as Promise<[number]>
  stream.on('error', () => undefined)
  const [fd] = await opened.catch((error: unknown) => {
    stream.destroy()
    throw error
  })
  return { fd, close: () => stream.destroy() }
}

/**
 * The stream, once it has read its first bytes (or ended): a file that cannot be read at all (an
 * archive missing from the database) fails here, while the answer can still be an error.
 */
async function started(stream: Readable): Promise<Readable> {
  const chunks = stream[Symbol.asyncIterator]()
  const first = await chunks.next()
  return Readable.from(
    (async function* () {
      if (!first.done) yield first.value as Buffer
      // Delegated, so that a client hanging up ends the stream underneath too.
      yield* { [Symbol.asyncIterator]: () => chunks }
    })(),
    { objectMode: false }
  )
}

/** Writes a file's status and headers, then its body (see openBody). */
function respond(res: ServerResponse, file: ArchiveFile & { type: string }, range: ByteRange | undefined, body: Body): void {
  const length = range ? range.end - range.start + 1 : file.size
  const headers: Record<string, string | number> = { 'Content-Type': file.type, 'Accept-Ranges': 'bytes', 'Content-Length': length }
  if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${file.size}`
  res.writeHead(range ? 206 : 200, headers)
  if (body === undefined || Buffer.isBuffer(body)) return void res.end(body)
  if (body instanceof Readable) return void pipeline(body, res).catch(() => res.destroy())
  void sendRange(body.fd, range?.start ?? 0, length, res).finally(() => body.close())
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
 * server's (figure 8). A buffer is refilled only once its write has called back, when the socket
 * is done with it.
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
function byteRange(header: string, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match || (match[1] === '' && match[2] === '')) return undefined
  const [start, end] = match[1] === '' ? [Math.max(0, size - Number(match[2])), size - 1] : [Number(match[1]), match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)]
  if (start >= size || start > end) return 'unsatisfiable'
  return { start, end }
}
