import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** Where a response keeps the socket it was answered on. */
const SOCKET = Symbol('socket')

/**
 * Wraps a request handler so the server can stop gracefully: `close()` stops accepting
 * connections, hangs up those with no request in progress at once, and lets each request in
 * progress finish (its response says `Connection: close`). Node's own close() waits for
 * kept-alive and just-opened connections to time out.
 */
export function gracefulServer(
  create: (handler: (req: IncomingMessage, res: ServerResponse) => void) => Server,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  /** The event that gives the sockets requests arrive on: `secureConnection` for HTTPS. */
  connectionEvent: 'connection' | 'secureConnection' = 'connection'
): { server: Server; close(): Promise<void> } {
  const active = new Map<Socket, number>()
  let closing = false

  // One listener for every response, not a closure each: a response closes once, so `on` does (and
  // `once` would wrap it in another closure); the socket may be gone from it by then, so it is kept on it.
  function finished(this: ServerResponse & { [SOCKET]?: Socket }): void {
    const socket = this[SOCKET]!
    const left = (active.get(socket) ?? 1) - 1
    active.set(socket, left)
    if (closing && left === 0) socket.destroySoon()
  }
  const server = create((req, res: ServerResponse & { [SOCKET]?: Socket }) => {
    const socket = req.socket
    active.set(socket, (active.get(socket) ?? 0) + 1)
    if (closing) res.setHeader('Connection', 'close')
    res[SOCKET] = socket
    res.on('close', finished)
    handle(req, res)
  })
  server.on(connectionEvent, (socket: Socket) => {
    active.set(socket, 0)
    socket.once('close', () => active.delete(socket))
  })

  return {
    server,
    close() {
      closing = true
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const [socket, requests] of active) if (requests === 0) socket.destroy()
      return closed
    }
  }
}
