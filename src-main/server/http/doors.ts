import type { Context, Next } from 'koa'
import { HttpError } from './errors.js'

export interface DoorOptions {
  /** Host names (without port) the server answers to; `any` when it is exposed on purpose without a list. */
  allowedHosts: ReadonlySet<string> | 'any'
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1', '[::1]']

/**
 * The hosts a server listening on `host` answers to: on loopback only loopback names (a web page
 * that rebinds its own DNS name to 127.0.0.1 is refused), plus the base URL's and any listed.
 */
export function allowedHosts(host: string, baseUrl: string | undefined, extra: string[]): ReadonlySet<string> | 'any' {
  const loopback = host === 'localhost' || host === '::1' || host.startsWith('127.')
  if (!loopback && extra.length === 0) return 'any'
  const names = new Set([...(loopback ? LOOPBACK_NAMES : []), ...extra.map((name) => name.toLowerCase())])
  if (!loopback) names.add(host.toLowerCase())
  if (baseUrl) names.add(new URL(baseUrl).hostname.toLowerCase())
  return names
}

export function hostnameOf(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase()
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1)
  return host.split(':')[0] ?? ''
}

/**
 * The local server's doors. A request must name a host the server serves (DNS rebinding), and a
 * browser request from another site is refused: Homeport sends no CORS headers, and a page
 * elsewhere may not even make its browser deliver a request here (a form POST, say).
 */
export function guardDoors({ allowedHosts }: DoorOptions) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (allowedHosts !== 'any' && !allowedHosts.has(hostnameOf(ctx.get('host')))) {
      throw new HttpError(
        403,
        'forbidden',
        `Homeport does not answer to the host "${ctx.get('host')}". Use 127.0.0.1 or localhost, or start it with --allowed-hosts.`
      )
    }
    const origin = ctx.get('origin')
    if (origin && origin !== 'null' && origin !== `${ctx.protocol}://${ctx.get('host')}`) {
      throw new HttpError(403, 'forbidden', 'Requests from other web sites are refused.')
    }
    if (origin === 'null' || ctx.get('sec-fetch-site') === 'cross-site') {
      throw new HttpError(403, 'forbidden', 'Requests from other web sites are refused.')
    }
    await next()
  }
}
