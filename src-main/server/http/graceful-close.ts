import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { Server as TlsServer } from 'node:tls'

/** Node publishes each finished response here, to subscribers only (a closing server's is the one). */
const RESPONSE_FINISHED = 'http.server.response.finish'

/**
 * Wraps a request handler so the server can stop gracefully: `close()` stops accepting
 * connections, hangs up those with no request in progress at once, and lets each request in
 * progress finish, then hangs up its connection (a request that comes after, on a connection kept
 * alive, is answered with `Connection: close`). Node's own close() would wait for a kept-alive
 * connection's request to end and the connection to time out.
 *
 * Node knows which connections are between requests (closeIdleConnections), but counts one that
 * has not sent its first request yet as busy, for its headers' time-out: those are tracked here.
 * Nothing else is counted per request, which cost a cached protocol answer a fiftieth of its time.
 */
export function gracefulServer(
  create: (handler: (req: IncomingMessage, res: ServerResponse) => void) => Server,
  handle: (req: IncomingMessage, res: ServerResponse) => void
): { server: Server; close(): Promise<void> } {
  let closing = false
  /** Connections that have not sent a request yet. */
  const unused = new Set<Socket>()
  const server = create((req, res) => {
    unused.delete(req.socket)
    if (closing) res.setHeader('Connection', 'close')
    handle(req, res)
  })
  // Over TLS, requests arrive on the socket of the secure connection, not on the one beneath it.
  server.on(server instanceof TlsServer ? 'secureConnection' : 'connection', (socket: Socket) => {
    unused.add(socket)
    socket.once('close', () => unused.delete(socket))
  })
  // Node publishes before it lets the connection go idle: it is hung up on the next turn.
  const hangUpIdle = (message: unknown) => {
    if ((message as { server?: unknown }).server === server) setImmediate(() => server.closeIdleConnections())
  }

  return {
    server,
    close() {
      closing = true
      subscribe(RESPONSE_FINISHED, hangUpIdle)
      // Node's close() hangs up the connections between requests itself.
      const closed = new Promise<void>((resolve) =>
        server.close(() => {
          unsubscribe(RESPONSE_FINISHED, hangUpIdle)
          resolve()
        })
      )
      for (const socket of unused) socket.destroy()
      return closed
    }
  }
}
