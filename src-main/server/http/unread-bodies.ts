import type { Middleware } from 'koa'

/**
 * For routes whose body is a file streamed as it arrives: a request refused before its body was
 * read (too large, a used link, no permission) leaves the rest of that body on the connection,
 * so the connection cannot serve another request.
 */
export const closeUnreadBodies: Middleware = async (ctx, next) => {
  try {
    await next()
  } finally {
    // Answered or refused (the error is answered by the one handler further out, keeping this header).
    if (!ctx.req.complete) ctx.set('Connection', 'close')
  }
}
