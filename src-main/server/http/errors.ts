import type { Context, Next } from 'koa'
import {
  BadGatewayError,
  DomainError,
  ConflictError,
  ExpiredError,
  ForbiddenError,
  UnavailableError,
  InvalidInputError,
  LimitExceededError,
  NotFoundError,
  UnauthenticatedError
} from '../domain/core/errors.js'
import { isDatabaseUnreachable, isStoredFileMissing, RecordMissingError, StoreLoadError, UniqueConstraintError, WritesRefusedError } from '../store/errors.js'

/** Where in the request a JSON:API error points: a JSON pointer into the body, or a query parameter. */
export type ErrorSource = { pointer: string } | { parameter: string }

/** An error with the HTTP status and words to answer it with, and a stable code (domain/core/errors.ts). */
export class HttpError extends Error {
  /** What went wrong, stably: a domain error's own code, else the title's words (`bad-request`). */
  code: string

  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
    readonly source?: ErrorSource,
    readonly headers: Record<string, string> = {},
    /** More problems of the same kind and source, each answered as an error of its own. */
    readonly further: string[] = []
  ) {
    super(detail)
    this.name = 'HttpError'
    this.code = title.replace(/ /g, '-')
  }
}

export const JSON_API = 'application/vnd.api+json'

/**
 * The one table from domain errors to HTTP. Anything unknown is a 500 whose details stay in
 * the log, never in the response.
 */
export function toHttpError(error: unknown): HttpError {
  const mapped = httpErrorOf(error)
  if (error instanceof DomainError) mapped.code = error.code
  return mapped
}

function httpErrorOf(error: unknown): HttpError {
  if (error instanceof HttpError) return error
  if (error instanceof NotFoundError) {
    return new HttpError(404, 'not found', error.forCallers ? `${error.message}, or you are not authorized to see it` : `${error.message}.`)
  }
  if (error instanceof InvalidInputError) {
    return new HttpError(422, 'invalid attribute', error.message, error.attribute ? pointerTo(error.attribute) : undefined, {}, error.further)
  }
  if (error instanceof ForbiddenError) return new HttpError(403, 'forbidden', error.message)
  if (error instanceof ConflictError) return new HttpError(409, 'conflict', error.message)
  if (error instanceof ExpiredError) return new HttpError(410, 'gone', error.message)
  if (error instanceof LimitExceededError) return new HttpError(413, 'payload too large', error.message)
  if (error instanceof UnavailableError) return new HttpError(503, 'service unavailable', error.message, undefined, { 'Retry-After': '30' })
  if (error instanceof BadGatewayError) return new HttpError(502, 'bad gateway', error.message)
  if (error instanceof UnauthenticatedError) return new HttpError(401, 'unauthorized', error.message)
  // A write that lost a race: the record went away, or another write took the key first.
  if (error instanceof RecordMissingError) return coded(new HttpError(404, 'not found', 'The resource was deleted while this request ran.'), 'deleted-meanwhile')
  if (error instanceof UniqueConstraintError) return coded(new HttpError(409, 'conflict', 'Another request made the same resource at the same time; read it again.'), 'made-meanwhile')
  if (error instanceof WritesRefusedError) {
    return error.reason === 'disk-full'
      ? coded(new HttpError(507, 'insufficient storage', error.message), 'disk-full')
      : coded(new HttpError(503, 'service unavailable', error.message, undefined, { 'Retry-After': '300' }), 'read-only')
  }
  if (isDatabaseUnreachable(error)) {
    return coded(new HttpError(503, 'service unavailable', 'Homeport cannot reach its database just now: nothing was written. Try again in a moment.', undefined, { 'Retry-After': '10' }), 'database-unreachable')
  }
  // Not the caller's doing, and no retry mends it: said plainly, and logged (a 500) for whoever keeps the data.
  if (isStoredFileMissing(error)) {
    return coded(
      new HttpError(500, 'internal error', 'A file this answer needs is missing from Homeport’s storage (removed from its data directory or database); the server log names it. Restore it from a backup, or publish it again.'),
      'stored-file-missing'
    )
  }
  // A record file changed or damaged by hand while the server ran (it reads each record when first asked, after a clean close).
  if (error instanceof StoreLoadError) {
    return coded(
      new HttpError(500, 'internal error', 'A record this answer needs cannot be read: its file in Homeport’s data directory changed or was damaged while Homeport ran; the server log names it. Restore it from a backup (homeport restore).'),
      'stored-record-damaged'
    )
  }
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return coded(new HttpError(507, 'insufficient storage', 'The disk that holds Homeport’s data directory is full: nothing was written. Free some space and try again.'), 'disk-full')
  }
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    return coded(new HttpError(503, 'service unavailable', 'Homeport cannot write to its data directory (it is read-only, or not its own): nothing was written.'), 'read-only')
  }
  // Errors from Koa and its body parser (http-errors) carry an explicit status.
  const status = (error as { status?: unknown }).status
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new HttpError(status, statusTitle(status), (error as Error).message)
  }
  return new HttpError(500, 'internal error', 'Homeport failed to handle this request; the server log has the details.')
}

function coded(error: HttpError, code: string): HttpError {
  error.code = code
  return error
}

/** A domain attribute path (`vcsRepo.branch`) as a JSON pointer; paths starting with `/` are pointers already. */
function pointerTo(attribute: string): ErrorSource {
  if (attribute.startsWith('/')) return { pointer: attribute }
  const path = attribute.split('.').map((part) => part.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`))
  return { pointer: `/data/attributes/${path.join('/')}` }
}

function statusTitle(status: number): string {
  const titles: Record<number, string> = {
    400: 'bad request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not found',
    405: 'method not allowed',
    409: 'conflict',
    410: 'gone',
    413: 'payload too large',
    415: 'unsupported media type',
    422: 'invalid attribute',
    429: 'too many requests',
    502: 'bad gateway',
    507: 'insufficient storage'
  }
  return titles[status] ?? 'error'
}

/**
 * Whether an error only says that the client went away mid-answer: Terraform fetches archives
 * with `Connection: close`, browsers cancel what they no longer need. Nothing failed here.
 */
export function isClientGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED'
}

/** Only failures Homeport did not foresee are logged; the rest are answers. */
function report(ctx: Context, error: unknown, httpError: HttpError): void {
  if (httpError.status === 500) ctx.app.emit('error', error, ctx)
}

/** Middleware that renders any error below it with `render`, as `type`. */
function renderingErrors(type: string, render: (error: HttpError) => unknown) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next()
    } catch (error) {
      const httpError = toHttpError(error)
      report(ctx, error, httpError)
      ctx.status = httpError.status
      ctx.set(httpError.headers)
      ctx.type = type
      ctx.body = render(httpError)
    }
  }
}

/** Renders any error below it as a JSON:API error document (the management API's format). */
const jsonApiErrors = renderingErrors(JSON_API, (error) => ({
  errors: [error.message, ...error.further].map((detail) => ({ status: String(error.status), code: error.code, title: error.title, detail, ...(error.source ? { source: error.source } : {}) }))
}))

/**
 * Renders any error below it as `{"errors": ["…"]}` (the registry protocol's format), with its stable
 * `code` beside them: Terraform and OpenTofu read only `errors`, and a client that acts on a refusal
 * (Homeport's own, a bot) reads the code rather than the words.
 */
const protocolErrors = renderingErrors('application/json', (error) => ({ errors: [error.message, ...error.further], code: error.code }))

/**
 * Renders any error below it in OCI's distribution-spec format, `{"errors": [{code, message, detail}]}`,
 * with the spec's codes: the OCI face's own (api/oci/oci-errors.ts), else the one its status means.
 */
const ociErrors = renderingErrors('application/json', (error) => ({ errors: [{ code: ociCode(error), message: error.message, detail: { code: error.code } }] }))

function ociCode(error: HttpError): string {
  if (/^[A-Z_]+$/.test(error.code)) return error.code
  const byStatus: Record<number, string> = { 401: 'UNAUTHORIZED', 403: 'DENIED', 404: 'NAME_UNKNOWN', 405: 'UNSUPPORTED', 413: 'SIZE_INVALID', 429: 'TOOMANYREQUESTS' }
  return byStatus[error.status] ?? 'UNKNOWN'
}

/** HCP's GPG keys live under the registry's prefix, in the management API's conventions: the one exception. */
const JSON_API_UNDER_REGISTRY = '/api/registry/private/v2/'

/**
 * The one error handler, first in the app: every error below it, from any route or middleware, is
 * answered in the format of the face it was meant for: OCI's under /v2, the registry protocol's under
 * /api/registry, JSON:API everywhere else (and for HCP's GPG keys).
 */
export async function errorsByPath(ctx: Context, next: Next): Promise<void> {
  if (ctx.path === '/v2' || ctx.path.startsWith('/v2/')) return ociErrors(ctx, next)
  const protocol = ctx.path.startsWith('/api/registry/') && !ctx.path.startsWith(JSON_API_UNDER_REGISTRY)
  await (protocol ? protocolErrors : jsonApiErrors)(ctx, next)
}
