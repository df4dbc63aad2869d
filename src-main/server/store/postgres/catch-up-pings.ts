import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { CHANGES_CHANNEL } from './pg-collection.js'

/** What starts a ping's NOTIFY: no collection's name (the part of a write's before its colon) is this. */
const PING = 'catch-up-ping:'
/** How long a ping may take to come back before the wait gives up and answers with what it heard. */
const PING_TIMEOUT_MS = 2000

/**
 * How a replica knows it has heard every write answered before a moment (Store.caughtUp): it sends a
 * NOTIFY of its own on the changes channel and waits for it on its LISTEN connection. PostgreSQL hands
 * a listener the notifications of different transactions in the order they committed, and a write
 * another replica answered had committed, NOTIFY and all, before the ping was sent: once the ping
 * comes back, every such write has been heard. One query and a notification's way back: well under a
 * millisecond on one machine.
 */
export class CatchUpPings {
  private readonly waiting = new Map<string, () => void>()
  /** This replica's pings; another's are heard as pings and let be. */
  private readonly prefix = `${PING}${randomUUID()}:`
  private sent = 0

  constructor(private readonly pool: pg.Pool) {}

  /** Whether a NOTIFY is a ping, anyone's (a ping is no write); one of this replica's ends its wait. */
  heard(payload: string): boolean {
    if (!payload.startsWith(PING)) return false
    this.waiting.get(payload)?.()
    return true
  }

  /** Sends a ping and waits for it to come back. */
  async ping(): Promise<void> {
    const token = `${this.prefix}${++this.sent}`
    let timer: NodeJS.Timeout | undefined
    const back = new Promise<void>((resolve) => {
      this.waiting.set(token, resolve)
      timer = setTimeout(resolve, PING_TIMEOUT_MS).unref()
    })
    try {
      await this.pool.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, token])
      await back
    } finally {
      clearTimeout(timer)
      this.waiting.delete(token)
    }
  }

  /** The LISTEN connection was lost: no ping comes back on it (and the feed has told its listeners to read everything again). */
  lost(): void {
    for (const resolve of this.waiting.values()) resolve()
  }
}
