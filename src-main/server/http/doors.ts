import { isIPv4, isIPv6 } from 'node:net'
import type { IncomingMessage } from 'node:http'
import type { Context, Next } from 'koa'
import { HttpError } from './errors.js'

export interface DoorOptions {
  /** Host names (without port) the server answers to; `any` when it is exposed on purpose without a list. */
  allowedHosts: ReadonlySet<string> | 'any'
  /**
   * Paths another site may send the browser to, as a page (a GET navigation): single sign-on's callback,
   * where the identity provider's redirect lands. Its own checks (the sign-in's state, in a cookie of its
   * own) refuse a callback this browser did not start.
   */
  crossSiteLandings?: readonly string[]
  /**
   * Answers any other page another site sends the browser to (a link in chat, a tile on the identity
   * provider's dashboard) with the GUI's page, which then draws what the path names as if typed in;
   * false when there is no GUI. Only that static page is answered: no router sees the request.
   */
  crossSitePage?: (ctx: Context) => Promise<boolean>
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1', '[::1]']

/**
 * The hosts a server listening on `host` answers to: on loopback only loopback names (a web page
 * that rebinds its own DNS name to 127.0.0.1 is refused), plus the base URL's, the registry
 * hostname (which the generated certificate covers, so that discovery over HTTPS works by that
 * name) and any listed. Never any host at all: off loopback, `serve` refuses to start without a base
 * URL or names to answer to (options.ts), since links are built from the Host header.
 */
export function allowedHosts(host: string, baseUrl: string | undefined, extra: string[], registryHostname?: string): ReadonlySet<string> {
  const loopback = host === 'localhost' || host === '::1' || host.startsWith('127.')
  const names = new Set([...(loopback ? LOOPBACK_NAMES : []), ...extra.map((name) => name.toLowerCase())])
  if (registryHostname) names.add(registryHostname.split(':')[0]!.toLowerCase())
  if (!loopback) names.add(host.toLowerCase())
  if (baseUrl) names.add(new URL(baseUrl).hostname.toLowerCase())
  return names
}

/** A DNS name or IPv4 address: labels of letters, digits and hyphens, as RFC 3986's reg-name allows in practice. */
const REG_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?$/
const PORT = /^[0-9]{1,5}$/

/** Host headers already parsed, and what they name: a few in use, so cleared should many be sent, and none long kept. */
const parsedHosts = new Map<string, string | undefined>()
const MAX_PARSED_HOSTS = 256
const MAX_KEPT_HOST_LENGTH = 300

/**
 * The host name of a `Host` header (lower case, an IPv6 address in brackets), or undefined when
 * the header is not exactly `host[:port]`. Strict on purpose: links, upload links among them, are
 * built from this header, so `localhost:80@evil.example` or a port of `abc` must not get through.
 */
export function parseHost(header: string | undefined): string | undefined {
  if (!header) return undefined
  // A client names the same host request after request: each header is checked once.
  if (parsedHosts.has(header)) return parsedHosts.get(header)
  const hostname = hostnameOf(header)
  if (header.length > MAX_KEPT_HOST_LENGTH) return hostname
  if (parsedHosts.size >= MAX_PARSED_HOSTS) parsedHosts.clear()
  parsedHosts.set(header, hostname)
  return hostname
}

function hostnameOf(header: string): string | undefined {
  const value = header.toLowerCase()
  let hostname: string
  let rest: string
  if (value.startsWith('[')) {
    const end = value.indexOf(']')
    if (end < 0 || !isIPv6(value.slice(1, end))) return undefined
    hostname = value.slice(0, end + 1)
    rest = value.slice(end + 1)
  } else {
    const colon = value.indexOf(':')
    hostname = colon < 0 ? value : value.slice(0, colon)
    rest = colon < 0 ? '' : value.slice(colon)
    if (!REG_NAME.test(hostname) && !isIPv4(hostname)) return undefined
  }
  if (rest === '') return hostname
  const port = rest.slice(1)
  if (!rest.startsWith(':') || !PORT.test(port) || Number(port) < 1 || Number(port) > 65535) return undefined
  return hostname
}

/** Why a request may not come in; undefined when it may. */
export interface Refusal {
  status: 400 | 403
  detail: string
}

export interface DoorRequest {
  host: string | undefined
  origin: string | undefined
  fetchSite: string | undefined
  protocol: string
  /** A page another site may send the browser to (DoorOptions.crossSiteLandings), reached by a GET navigation. */
  landing?: boolean
}

/**
 * The local server's doors, checked by the Koa app and by the fast paths alike. A
 * request must name, in a well-formed Host header, a host the server serves (DNS rebinding), and
 * a browser request from another site is refused: Homeport sends no CORS headers, and a page
 * elsewhere may not even make its browser deliver a request here (a form POST, say). The Koa app
 * lets in the few navigations another site may make (guardDoors).
 */
export function checkDoors(request: DoorRequest, allowed: ReadonlySet<string> | 'any'): Refusal | undefined {
  const hostname = parseHost(request.host)
  if (hostname === undefined) {
    return { status: 400, detail: `The Host header ${JSON.stringify(request.host ?? '')} is not a host name with an optional port.` }
  }
  if (allowed !== 'any' && !allowed.has(hostname)) {
    return {
      status: 403,
      detail: `Homeport does not answer to the host "${request.host}". Use 127.0.0.1 or localhost, or start it with --allowed-hosts.`
    }
  }
  const { origin } = request
  if ((origin && origin !== `${request.protocol}://${request.host}`) || (request.fetchSite === 'cross-site' && !request.landing)) {
    return { status: 403, detail: 'Requests from other web sites are refused.' }
  }
  return undefined
}

/** Whether a request may come in, for the fast paths that answer before Koa (protocol-cache.ts, signed-files.ts). */
export function passesDoors(req: IncomingMessage, protocol: string, allowed: ReadonlySet<string> | 'any'): boolean {
  return !checkDoors({ host: req.headers.host, origin: req.headers.origin, fetchSite: req.headers['sec-fetch-site'], protocol }, allowed)
}

/** The doors as Koa middleware; a refusal is an error in the format of the path asked for. */
export function guardDoors({ allowedHosts, crossSiteLandings = [], crossSitePage }: DoorOptions) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const navigation = ctx.method === 'GET' && ctx.get('sec-fetch-mode') === 'navigate'
    const request: DoorRequest = {
      host: ctx.get('host') || undefined,
      origin: ctx.get('origin') || undefined,
      fetchSite: ctx.get('sec-fetch-site') || undefined,
      protocol: ctx.protocol,
      landing: navigation && crossSiteLandings.includes(ctx.path)
    }
    const refusal = checkDoors(request, allowedHosts)
    if (refusal) {
      // A page in a tab of its own (not a frame, an image or a script), refused only for coming from another site.
      const page = navigation && ctx.get('sec-fetch-dest') === 'document' && !checkDoors({ ...request, landing: true }, allowedHosts)
      if (page && crossSitePage && (await crossSitePage(ctx))) return
      throw new HttpError(refusal.status, refusal.status === 400 ? 'bad request' : 'forbidden', refusal.detail)
    }
    await next()
  }
}
