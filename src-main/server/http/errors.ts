import type { Context, Next } from 'koa'
import {
  BadGatewayError,
  ConflictError,
  ExpiredError,
  ForbiddenError,
  UnavailableError,
  InvalidInputError,
  LimitExceededError,
  NotFoundError,
  UnauthenticatedError
} from '../domain/core/errors.js'
import { RecordMissingError, UniqueConstraintError, WritesRefusedError } from '../store/errors.js'

/** Where in the request a JSON:API error points: a JSON pointer into the body, or a query parameter. */
export type ErrorSource = { pointer: string } | { parameter: string }

/** An error with the HTTP status and words to answer it with. */
export class HttpError extends Error {
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
  }
}

export const JSON_API = 'application/vnd.api+json'

/**
 * The one table from domain errors to HTTP. Anything unknown is a 500 whose details stay in
 * the log, never in the response.
 */
export function toHttpError(error: unknown): HttpError {
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
  if (error instanceof RecordMissingError) return new HttpError(404, 'not found', 'The resource was deleted while this request ran.')
  if (error instanceof UniqueConstraintError) return new HttpError(409, 'conflict', 'Another request made the same resource at the same time; read it again.')
  if (error instanceof WritesRefusedError) {
    return error.reason === 'disk-full'
      ? new HttpError(507, 'insufficient storage', error.message)
      : new HttpError(503, 'service unavailable', error.message, undefined, { 'Retry-After': '300' })
  }
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new HttpError(507, 'insufficient storage', 'The disk that holds Homeport’s data directory is full: nothing was written. Free some space and try again.')
  }
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    return new HttpError(503, 'service unavailable', 'Homeport cannot write to its data directory (it is read-only, or not its own): nothing was written.')
  }
  // Errors from Koa and its body parser (http-errors) carry an explicit status.
  const status = (error as { status?: unknown }).status
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new HttpError(status, statusTitle(status), (error as Error).message)
  }
  return new HttpError(500, 'internal error', 'Homeport failed to handle this request; the server log has the details.')
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
export const jsonApiErrors = renderingErrors(JSON_API, (error) => ({
  errors: [error.message, ...error.further].map((detail) => ({ status: String(error.status), title: error.title, detail, ...(error.source ? { source: error.source } : {}) }))
}))

/** Renders any error below it as `{"errors": ["…"]}` (the registry protocol's format). */
export const protocolErrors = renderingErrors('application/json', (error) => ({ errors: [error.message, ...error.further] }))

/** For middleware in front of every route: the registry protocol's format under /api/registry, JSON:API elsewhere. */
export async function errorsByPath(ctx: Context, next: Next): Promise<void> {
  const render = ctx.path.startsWith('/api/registry/') ? protocolErrors : jsonApiErrors
  await render(ctx, next)
}
