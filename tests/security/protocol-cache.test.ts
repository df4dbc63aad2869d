import { describe, expect, it } from 'vitest'
import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import Koa from 'koa'
import type { Caller } from '../../src-main/server/domain/core/access.js'
import { ProtocolCache, type Cacheable } from '../../src-main/server/http/protocol-cache.js'

const app = new Koa()
const alice: Caller = { kind: 'team', organizationId: 'org-a', teamId: 'team-alice' }
const bob: Caller = { kind: 'team', organizationId: 'org-a', teamId: 'team-bob' }

/** A Koa context as the protocol router leaves it: a caller identified, an answer computed. */
function answered(url: string, caller: Caller | undefined, body: string) {
  const req = new IncomingMessage(new Socket())
  req.method = 'GET'
  req.url = url
  req.headers.host = '127.0.0.1'
  const ctx = app.createContext(req, new ServerResponse(req))
  ;(ctx.state as { identity: unknown }).identity = { presented: true, caller }
  if (caller) req.headers.authorization = `Bearer token-of-${caller.kind === 'team' ? caller.teamId : 'admin'}`
  ctx.status = 200
  ctx.type = 'application/json'
  ctx.body = body
  return ctx
}

function setup(limits = { maxBytes: 1024 * 1024, maxEntryBytes: 256 * 1024 }) {
  let revision = 1
  let downloads = 0
  let now = Date.parse('2026-11-26T09:00:00Z')
  const cache = new ProtocolCache(() => revision, limits, () => downloads, () => now)
  const remember = (url: string, caller: Caller | undefined, body: string, cacheable: Cacheable = { ttlMs: 60_000 }) =>
    cache.remember(answered(url, caller, body), cacheable, { revision, downloads })
  return { cache, remember, write: () => revision++, download: () => downloads++, wait: (ms: number) => (now += ms) }
}

describe('the protocol answer cache', () => {
  it('keys by the authenticated caller and the URL with its parameters in order', () => {
    const { cache, remember } = setup()
    remember('/api/registry/v1/modules?limit=5&offset=10', alice, 'page', { ttlMs: 60_000, params: ['offset', 'limit'] })
    expect(cache.get(ProtocolCache.keyOf(alice, '127.0.0.1', '/api/registry/v1/modules?offset=10&limit=5')!)?.body).toBe('page')
    expect(cache.get(ProtocolCache.keyOf(bob, '127.0.0.1', '/api/registry/v1/modules?offset=10&limit=5')!)).toBeUndefined()
    // Nor is it another host's: a download location is an absolute URL on the host that was asked.
    expect(cache.get(ProtocolCache.keyOf(alice, 'localhost', '/api/registry/v1/modules?offset=10&limit=5')!)).toBeUndefined()
    // A repeated parameter has no single meaning: never cached.
    expect(ProtocolCache.keyOf(alice, '127.0.0.1', '/api/registry/v1/modules?offset=1&offset=2')).toBeUndefined()
  })

  it('keeps no answer for a URL with parameters its answer does not depend on', () => {
    const { cache, remember } = setup()
    const big = 'x'.repeat(100_000)
    for (let i = 1; i <= 40; i++) remember(`/api/registry/v1/modules/acme/vpc/aws/versions?v=${i}`, alice, big)
    expect(cache.size.entries).toBe(0)
    remember('/api/registry/v1/modules/acme/vpc/aws/versions', alice, big)
    expect(cache.size.entries).toBe(1)
  })

  it('stays within its byte budget however many distinct questions are asked, and skips answers too large to keep', () => {
    const { cache, remember } = setup({ maxBytes: 1_000_000, maxEntryBytes: 100_000 })
    for (let offset = 0; offset < 500; offset++) {
      remember(`/api/registry/v1/modules?offset=${offset}`, alice, 'y'.repeat(20_000), { ttlMs: 60_000, params: ['offset'] })
      expect(cache.size.bytes).toBeLessThanOrEqual(1_000_000)
    }
    expect(cache.size.entries).toBeGreaterThan(10)
    // The most recent survive; the oldest went first.
    expect(cache.get(ProtocolCache.keyOf(alice, '127.0.0.1', '/api/registry/v1/modules?offset=499')!)).toBeDefined()
    expect(cache.get(ProtocolCache.keyOf(alice, '127.0.0.1', '/api/registry/v1/modules?offset=0')!)).toBeUndefined()

    remember('/api/registry/v1/modules/acme/huge/aws/versions', alice, 'z'.repeat(200_000))
    expect(cache.get(ProtocolCache.keyOf(alice, '127.0.0.1', '/api/registry/v1/modules/acme/huge/aws/versions')!)).toBeUndefined()
  })

  it('lets everything go at the next write, and sweeps what expired', () => {
    const { cache, remember, write, wait } = setup()
    remember('/api/registry/v1/modules/acme/a/aws/versions', alice, 'a')
    // The fast path knows the token Koa authenticated, until the next write (a revocation is one).
    expect(cache.callerOf('token-of-team-alice')).toEqual(alice)
    expect(cache.callerOf('token-of-nobody')).toBeUndefined()
    write()
    expect(cache.callerOf('token-of-team-alice')).toBeUndefined()
    expect(cache.get(ProtocolCache.keyOf(alice, '127.0.0.1', '/api/registry/v1/modules/acme/a/aws/versions')!)).toBeUndefined()
    expect(cache.size).toEqual({ entries: 0, bytes: 0 })

    for (let i = 0; i < 20; i++) remember(`/api/registry/v1/modules/acme/m${i}/aws/versions`, alice, 'short-lived', { ttlMs: 1 })
    expect(cache.size.entries).toBe(20)
    // The sweep runs on a later write to the cache, at most every ten seconds.
    wait(11_000)
    remember('/api/registry/v1/modules/acme/fresh/aws/versions', alice, 'fresh', { ttlMs: 60_000 })
    expect(cache.size.entries).toBe(1)
  })

  it('keeps nothing for an unauthenticated request, or an answer computed before a write', () => {
    const { cache, remember } = setup()
    remember('/api/registry/v1/modules/acme/a/aws/versions', undefined, 'a')
    expect(cache.size.entries).toBe(0)
    let revision = 1
    const stale = new ProtocolCache(() => revision)
    const ctx = answered('/api/registry/v1/modules/acme/a/aws/versions', alice, 'old')
    revision = 2
    stale.remember(ctx, { ttlMs: 60_000 }, { revision: 1, downloads: 0 })
    expect(stale.size.entries).toBe(0)
  })

  it('lets an answer that shows download counts go at the next download, and keeps the others', () => {
    const { cache, remember, download } = setup()
    remember('/api/registry/v1/modules/acme/a/aws', alice, 'detail with counts', { ttlMs: 60_000, showsCounts: true })
    remember('/api/registry/v1/modules/acme/a/aws/versions', alice, 'versions')
    expect(cache.get(ProtocolCache.keyOf(alice, '127.0.0.1', '/api/registry/v1/modules/acme/a/aws')!)?.body).toBe('detail with counts')
    download()
    expect(cache.get(ProtocolCache.keyOf(alice, '127.0.0.1', '/api/registry/v1/modules/acme/a/aws')!)).toBeUndefined()
    expect(cache.get(ProtocolCache.keyOf(alice, '127.0.0.1', '/api/registry/v1/modules/acme/a/aws/versions')!)?.body).toBe('versions')
  })
})
