import { randomUUID } from 'node:crypto'
import Router from '@koa/router'
import { bodyParser } from '../../http/body-parser.js'
import type { Context, Middleware } from 'koa'
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { HOMEPORT_VERSION } from '../../../shared/version.js'
import { callerKey } from '../../domain/core/access.js'
import { bearerToken, callerOf, requireBearer } from '../../http/auth.js'
import { HttpError } from '../../http/errors.js'
import type { AssistantContext } from './assistant-context.js'

export const MCP_PATH = '/mcp'

/**
 * The MCP SDK and the tools, loaded with the first request to /mcp: with zod and its JSON schemas
 * they are a third of the server's start-up, and most registries never meet an assistant.
 */
let mcpModules: ReturnType<typeof importMcp> | undefined
const loadMcp = () => (mcpModules ??= importMcp())
const importMcp = () =>
  Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('@modelcontextprotocol/sdk/types.js'), import('./assistant-server.js')]).then(
    ([{ StreamableHTTPServerTransport }, { isInitializeRequest }, { createAssistantServer }]) => ({ StreamableHTTPServerTransport, isInitializeRequest, createAssistantServer })
  )

/** How many sessions are kept, and for how long unused. */
export interface SessionLimits {
  /** Sessions kept at once, for every caller together; past it, a caller's new session replaces its own idle longest, and one with none is refused (503) until one ends: nobody's session is closed for another's. */
  max: number
  /** Sessions one caller (one token) keeps at once; past it, that caller's own session idle longest is closed to make room. */
  perCaller: number
  /** A session unused this long is closed (its client starts another, as the protocol says). */
  idleMs: number
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { max: 256, perCaller: 16, idleMs: 30 * 60 * 1000 }

interface Session {
  transport: StreamableHTTPServerTransport
  server: McpServer
  /** Whose token opened it: only that token may use it. */
  owner: string
  usedAt: number
}

/**
 * The MCP sessions of Streamable HTTP at /mcp, bounded (SessionLimits), each bound to the token that
 * opened it. Closed with the server, so that a client's open event stream does not hold the shutdown.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>()
  private closed = false

  constructor(
    private readonly context: AssistantContext,
    private readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    private readonly clock: () => number = Date.now
  ) {}

  get size(): number {
    return this.sessions.size
  }

  /** The session `id` names, for its owner; undefined when it is unknown, closed, or someone else's. */
  find(id: string, owner: string): Session | undefined {
    const session = this.sessions.get(id)
    if (!session || session.owner !== owner) return undefined
    session.usedAt = this.clock()
    return session
  }

  /** A new session's transport, for `owner`; its id is given to the client by the initialize answer. */
  async open(owner: string): Promise<StreamableHTTPServerTransport> {
    if (this.closed) throw new HttpError(503, 'unavailable', 'Homeport is stopping: open the session again in a moment.')
    await this.sweep(owner)
    if (this.sessions.size >= this.limits.max) {
      throw new HttpError(503, 'unavailable', `Homeport keeps ${this.limits.max} MCP sessions at once, and all are in use: open the session again in a moment.`, undefined, { 'Retry-After': '60' })
    }
    const { StreamableHTTPServerTransport, createAssistantServer } = await loadMcp()
    const server = createAssistantServer(this.context, HOMEPORT_VERSION)
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server, owner, usedAt: this.clock() })
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id)
      }
    })
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId)
    }
    await server.connect(transport)
    return transport
  }

  /** Closes every session (the server is stopping); new ones are refused. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.sessions.values()].map((session) => session.server.close().catch(() => undefined)))
    this.sessions.clear()
  }

  /**
   * Closes every session idle too long, and, while there is no room for another of `owner`'s (its
   * own bound, or everyone's), the owner's own session idle longest: one caller never ends another's
   * sessions, however many it opens.
   */
  private async sweep(owner: string): Promise<void> {
    const now = this.clock()
    const idle = [...this.sessions.entries()].sort((a, b) => a[1].usedAt - b[1].usedAt)
    let owned = idle.filter(([, session]) => session.owner === owner).length
    for (const [id, session] of idle) {
      const makesRoom = session.owner === owner && (owned >= this.limits.perCaller || this.sessions.size >= this.limits.max)
      if (now - session.usedAt < this.limits.idleMs && !makesRoom) continue
      if (session.owner === owner) owned--
      this.sessions.delete(id)
      await session.server.close().catch(() => undefined)
    }
  }
}

/**
 * The MCP face at /mcp (Streamable HTTP): the same bearer tokens, rate limit and authorization as
 * the API, so an assistant with a team's token sees what that team sees. Each request is
 * authenticated on its own, and its caller goes to the tools with the message (a token revoked
 * mid-session stops at once); a session is used only with the token that opened it.
 */
export function mcpRouter(sessions: McpSessions, rateLimit: Middleware): Router {
  const router = new Router()
  const handle = async (ctx: Context) => {
    const caller = callerOf(ctx)
    const owner = callerKey(caller)
    const id = ctx.get('mcp-session-id')
    const body = (ctx.request as { body?: unknown }).body
    let transport: StreamableHTTPServerTransport
    if (id) {
      const session = sessions.find(id, owner)
      // The protocol's answer to an unknown session: 404, and the client starts a new one.
      if (!session) throw new HttpError(404, 'not found', 'This MCP session is unknown or has ended: initialize a new one.')
      transport = session.transport
    } else if (ctx.method === 'POST' && (await loadMcp()).isInitializeRequest(body)) {
      transport = await sessions.open(owner)
    } else {
      throw new HttpError(400, 'bad request', 'Start with an initialize request; then send its Mcp-Session-Id header with every request.')
    }
    ctx.respond = false
    const request = Object.assign(ctx.req, { auth: { token: bearerToken(ctx.get('authorization')) ?? '', clientId: owner, scopes: [], extra: { caller } } })
    await transport.handleRequest(request, ctx.res, body)
  }
  router.use(MCP_PATH, rateLimit, requireBearer, bodyParser({ enableTypes: ['json'], jsonLimit: '1mb' }))
  router.post(MCP_PATH, handle)
  router.get(MCP_PATH, handle)
  router.delete(MCP_PATH, handle)
  return router
}
