import { afterEach, describe, expect, it } from 'vitest'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { connect as connectPlain, type Socket } from 'node:net'
import { connect as connectTls } from 'node:tls'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gracefulServer } from '../../src-main/server/http/graceful-close.js'
import { resolveTls } from '../../src-main/server/data-dir/tls.js'

/** A connection that sends requests by hand and reads answers as they come, and says when the server hangs up. */
interface Connection {
  /** The port this end of the connection sends from: the server's socket's remote port. */
  port: number
  send(path: string): void
  /** Sends bytes as they are: part of a request, say. */
  sendRaw(text: string): void
  /** Resolves with the next `count` answers' heads and bodies, once they are all in. */
  answers(count: number): Promise<string[]>
  closed: Promise<void>
}

async function open(port: number, tls: boolean): Promise<Connection> {
  const socket: Socket = await new Promise((resolve, reject) => {
    const opened: Socket = tls
      ? connectTls({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => resolve(opened))
      : connectPlain(port, '127.0.0.1', () => resolve(opened))
    opened.once('error', reject)
  })
  let received = ''
  const waiting: (() => void)[] = []
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1')
    for (const wake of waiting.splice(0)) wake()
  })
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.on('error', () => undefined)
  const complete = () => received.split(/(?=HTTP\/1\.1 )/).filter((answer) => /\r\n\r\n[^]*done\n$/.test(answer))
  return {
    port: socket.localPort!,
    send: (path) => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
    sendRaw: (text) => socket.write(text),
    async answers(count) {
      while (complete().length < count) await new Promise<void>((resolve) => waiting.push(resolve))
      return complete()
    },
    closed
  }
}

let stop: (() => Promise<void>) | undefined
afterEach(async () => {
  await stop?.()
  stop = undefined
})

/**
 * A server whose `/slow` answers when the test says so; every body ends in `done`. The silence
 * allowed once closing ends when the test says so too (`silenceEnds`): it lists the remote ports
 * of the connections it watches.
 */
async function start(tls: boolean) {
  const hangUps: (() => void)[] = []
  const watched: number[] = []
  const whenSilent = (socket: Socket, hangUp: () => void) => {
    watched.push(socket.remotePort!)
    hangUps.push(hangUp)
  }
  const releases: (() => void)[] = []
  const arrived: string[] = []
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    arrived.push(req.url!)
    const answer = () => res.end(`${req.url} done\n`)
    if (req.url === '/slow') releases.push(answer)
    else answer()
  }
  const dir = await mkdtemp(join(tmpdir(), 'homeport-graceful-'))
  const material = tls ? await resolveTls(dir) : undefined
  const graceful = gracefulServer((handler): Server => (material ? createHttpsServer({ cert: material.cert, key: material.key }, handler) : createServer(handler)), handle, whenSilent)
  // Homeport keeps idle connections longer than clients do (95 s): Node's own time-out must not be what hangs up here.
  graceful.server.keepAliveTimeout = 95_000
  await new Promise<void>((resolve) => graceful.server.listen(0, '127.0.0.1', resolve))
  stop = async () => {
    graceful.server.closeAllConnections()
    await new Promise((resolve) => graceful.server.close(resolve))
    await rm(dir, { recursive: true, force: true })
  }
  const { port } = graceful.server.address() as { port: number }
  const hasArrived = async (path: string) => {
    while (!arrived.includes(path)) await new Promise((resolve) => setTimeout(resolve, 5))
  }
  // The server's end of each connection, by the port its client sends from.
  const serverEnds = new Map<number, Socket>()
  graceful.server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => serverEnds.set(socket.remotePort!, socket))
  /** Resolves once the server has read more of a connection than `before` (bytes), which is what `read(connection)` says now. */
  const read = (connection: Connection) => serverEnds.get(connection.port)!.bytesRead
  const hasRead = async (connection: Connection, before: number) => {
    while (read(connection) <= before) await new Promise((resolve) => setTimeout(resolve, 5))
  }
  const silenceEnds = () => hangUps.splice(0).forEach((hangUp) => hangUp())
  return { port, graceful, releaseSlow: () => releases.shift()!(), hasArrived, read, hasRead, watched, silenceEnds }
}

describe.each([{ tls: false }, { tls: true }])('a graceful close (TLS: $tls)', ({ tls }) => {
  it('hangs up idle connections at once, answers the request in progress in full, then hangs up its connection', async () => {
    const { port, graceful, releaseSlow, hasArrived, watched, silenceEnds } = await start(tls)
    const idle = await open(port, tls)
    idle.send('/quick')
    await idle.answers(1)
    // Node counts a connection that has sent nothing yet as busy: it is idle all the same.
    const seen = once(graceful.server, tls ? 'secureConnection' : 'connection')
    const unused = await open(port, tls)
    await seen
    const busy = await open(port, tls)
    busy.send('/slow')
    await hasArrived('/slow')

    let closed = false
    const closing = graceful.close().then(() => (closed = true))
    await idle.closed
    await unused.closed
    // An answer in progress is let be however long it takes, past the silence allowed once closing.
    expect(watched).not.toContain(busy.port)
    silenceEnds()
    expect(closed).toBe(false)

    releaseSlow()
    const [answer] = await busy.answers(1)
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(answer).toMatch(/\/slow done\n$/)
    await busy.closed
    await closing
    expect(closed).toBe(true)
  })

  it('hangs up a connection whose next request is still coming once it falls silent, so that a slow client cannot hold the close', async () => {
    const { port, graceful, read, hasRead, watched, silenceEnds } = await start(tls)
    const slow = await open(port, tls)
    slow.send('/quick')
    await slow.answers(1)
    const before = read(slow)
    slow.sendRaw('GET /never HTTP/1.1\r\nHo')
    // Read, and so begun: Node no longer counts the connection idle, and its close would wait for the request.
    await hasRead(slow, before)
    const closing = graceful.close()
    expect(watched).toEqual([slow.port])
    silenceEnds()
    await slow.closed
    await closing
  })

  it('answers a request sent after the close began on a kept connection, with Connection: close', async () => {
    const { port, graceful, releaseSlow, hasArrived } = await start(tls)
    const kept = await open(port, tls)
    kept.send('/quick')
    await kept.answers(1)
    const busy = await open(port, tls)
    busy.send('/slow')
    await hasArrived('/slow')
    const closing = graceful.close()
    // Pipelined behind the slow one, so that it is sure to arrive before its connection is idle.
    busy.send('/after')
    await hasArrived('/after')
    releaseSlow()
    const answers = await busy.answers(2)
    expect(answers[1]).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(answers[1]!.toLowerCase()).toContain('\r\nconnection: close\r\n')
    expect(answers[1]).toMatch(/\/after done\n$/)
    await busy.closed
    await kept.closed
    await closing
  })
})

describe('a graceful close over TLS', () => {
  it('hangs up at once a connection that has not finished its TLS handshake, rather than after the handshake time-out', async () => {
    const { port, graceful } = await start(true)
    let accepted = 0
    const seen = new Promise<void>((resolve) => graceful.server.on('connection', () => ++accepted === 2 && resolve()))
    // A TCP connection that says nothing (a port scan, a client gone quiet), and one that stops after its hello's first bytes.
    const quiet = connectPlain(port, '127.0.0.1')
    const halfHello = connectPlain(port, '127.0.0.1', () => halfHello.write(Buffer.from([0x16, 0x03, 0x01])))
    for (const socket of [quiet, halfHello]) socket.on('error', () => undefined)
    await seen
    const gone = [quiet, halfHello].map((socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())))
    await graceful.close()
    await Promise.all(gone)
  })
})
