import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { Middleware } from 'koa'

/**
 * How long a connection whose request body was refused goes on reading (and dropping) that body
 * after the answer, before it is closed. Go's server waits half a second the same way; this is more
 * for a loaded machine.
 */
const LINGER_MS = 2000

/**
 * For routes whose body is a file streamed as it arrives: a request refused before its whole body
 * arrived (too large, a used link, no permission) has its answer sent while the client is still
 * sending. Closing the connection at once then made the kernel reset it over the unread bytes,
 * and a client still writing saw "connection reset" instead of the answer. So the connection is
 * closed gracefully: our side is shut once the answer is out, and the rest of the body is read and
 * dropped until the client hangs up, or for LINGER_MS at most.
 */
export const closeUnreadBodies: Middleware = async (ctx, next) => {
  // Kept now: the request lets go of its socket when a refused body is destroyed.
  const socket = ctx.req.socket
  try {
    await next()
  } finally {
    // Answered or refused (the error is answered by the one handler further out).
    if (!ctx.req.complete) ctx.res.once('finish', () => (ctx.req.complete ? undefined : lingerThenClose(ctx.req, socket)))
  }
}

function lingerThenClose(request: IncomingMessage, socket: Socket): void {
  if (socket.destroyed) return
  // Node drops the body of an answered request that nobody read (its `_dump`), but not of one whose
  // reading stopped midway (a store refusing it): its parser would stop reading the connection,
  // and a client still writing would wait for good. Dumped here the same way, and read on.
  ;(request as IncomingMessage & { _dump?: () => void })._dump?.()
  socket.resume()
  socket.end()
  const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref()
  socket.once('close', () => clearTimeout(timer))
}
