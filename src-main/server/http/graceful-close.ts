import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { Server as TlsServer } from 'node:tls'

/** Node publishes each finished response here, to subscribers only (a closing server's is the one). */
const RESPONSE_FINISHED = 'http.server.response.finish'

/**
 * Once closing, how long a connection with no answer in progress may stay silent before it is hung
 * up: one whose next request comes too slowly ever to be answered. An answer in progress is let be.
 */
const CLOSING_SILENCE_MS = 10_000

/** Hangs a connection up once it has been silent for a while, while closing: a socket time-out of CLOSING_SILENCE_MS unless a test says when. */
export type SilenceWatch = (socket: Socket, hangUp: () => void) => void
const socketSilence: SilenceWatch = (socket, hangUp) => socket.setTimeout(CLOSING_SILENCE_MS, hangUp)

/** Where a connection keeps the response to its latest request: one property, set once a request, on an object that lasts. */
const LATEST = Symbol('latest response')
type Connection = Socket & { [LATEST]?: ServerResponse }

/**
 * Wraps a request handler so the server can stop gracefully: `close()` stops accepting
 * connections, hangs up those with no request in progress at once, and lets each request in
 * progress finish, then hangs up its connection (a request that comes after, on a connection kept
 * alive, is answered with `Connection: close`). Node's own close() would wait for a kept-alive
 * connection's request to end and the connection to time out.
 *
 * Node knows which connections are between requests (closeIdleConnections), but counts one that
 * has not sent its first request yet as busy, for its headers' time-out, and one that is sending its
 * next request: the first are hung up at once (they have no latest response; over TLS, nor have
 * those still shaking hands), and the second once silent (CLOSING_SILENCE_MS).
 * Nothing is counted per request: a listener on each response cost a cached protocol answer a
 * fiftieth of its time.
 */
export function gracefulServer(
  create: (handler: (req: IncomingMessage, res: ServerResponse) => void) => Server,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  whenSilent: SilenceWatch = socketSilence
): { server: Server; close(): Promise<void> } {
  let closing = false
  const connections = new Set<Connection>()
  const server = create((req, res) => {
    ;(req.socket as Connection)[LATEST] = res
    if (closing) res.setHeader('Connection', 'close')
    handle(req, res)
  })
  const secure = server instanceof TlsServer
  // Over TLS, a connection's secure socket, on which its requests arrive, exists once its handshake is
  // done; until then only the TCP socket beneath it does, known by the address and port it comes from.
  const handshaking = new Map<string, Socket>()
  if (secure) {
    server.on('connection', (raw: Socket) => {
      const peer = peerOf(raw)
      handshaking.set(peer, raw)
      raw.once('close', () => handshaking.get(peer) === raw && handshaking.delete(peer))
    })
  }
  server.on(secure ? 'secureConnection' : 'connection', (socket: Connection) => {
    if (secure) handshaking.delete(peerOf(socket))
    // Made now, so that each request's store finds the property in place rather than adding it.
    socket[LATEST] = undefined
    connections.add(socket)
    socket.once('close', () => connections.delete(socket))
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
      // Mid-handshake (or never begun: a port scan, a client gone quiet): no request yet, hung up now, not
      // after Node's handshake time-out of two minutes.
      for (const raw of handshaking.values()) raw.destroy()
      for (const socket of connections) {
        const latest = socket[LATEST]
        // No request yet: hung up now. The latest answered: hung up once silent. One being answered: let be.
        if (!latest) socket.destroy()
        else if (latest.writableFinished) whenSilent(socket, () => socket.destroy())
      }
      return closed
    }
  }
}

function peerOf(socket: Socket): string {
  return `${socket.remoteAddress}:${socket.remotePort}`
}
