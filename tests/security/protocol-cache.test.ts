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
  if (caller) req.headers.authorization = authorizationOf(caller)
  ctx.status = 200
  ctx.type = 'application/json'
  ctx.body = body
  return ctx
}

const authorizationOf = (caller: Caller) => `Bearer token-of-${caller.kind === 'team' ? caller.teamId : 'admin'}`

function setup(limits = { maxBytes: 1024 * 1024, maxEntryBytes: 256 * 1024 }) {
  let revision = 1
  let downloads = 0
  let now = Date.parse('2026-11-26T09:00:00Z')
  const cache = new ProtocolCache(() => revision, limits, () => downloads, () => now)
  const remember = (url: string, caller: Caller | undefined, body: string, cacheable: Cacheable = { ttlMs: 60_000 }) =>
    cache.remember(answered(url, caller, body), cacheable, { revision, downloads })
  /** What the fast path finds for `caller`'s request of `url` (with the Host header the contexts above have). */
  const asked = (caller: Caller, url: string, host = '127.0.0.1') => cache.answerTo(authorizationOf(caller), host, url)
  return { cache, remember, asked, write: () => revision++, download: () => downloads++, wait: (ms: number) => (now += ms), now: () => now }
}

describe('the protocol answer cache', () => {
  it('keys by the request as sent: its Authorization header, its Host header and its URL', () => {
    const { cache, remember, asked } = setup()
    remember('/api/registry/v1/modules?limit=5&offset=10', alice, 'page', { ttlMs: 60_000, params: ['offset', 'limit'] })
    expect(asked(alice, '/api/registry/v1/modules?limit=5&offset=10')?.body).toBe('page')
    expect(asked(alice, '/api/registry/v1/modules?limit=5&offset=10')?.caller).toEqual(alice)
    expect(asked(bob, '/api/registry/v1/modules?limit=5&offset=10')).toBeUndefined()
    // Nor is it another host's: a download location is an absolute URL on the host that was asked.
    expect(asked(alice, '/api/registry/v1/modules?limit=5&offset=10', 'localhost')).toBeUndefined()
    // The same token spelled otherwise is another request: Koa answers it (and it is kept in turn).
    expect(cache.answerTo('bearer  token-of-team-alice', '127.0.0.1', '/api/registry/v1/modules?limit=5&offset=10')).toBeUndefined()
    // A repeated parameter has no single meaning: never cached.
    remember('/api/registry/v1/modules?offset=1&offset=2', alice, 'which?', { ttlMs: 60_000, params: ['offset'] })
    expect(asked(alice, '/api/registry/v1/modules?offset=1&offset=2')).toBeUndefined()
  })

  it('keeps one answer per token that asks a URL, up to sixteen, letting the oldest go first', () => {
    const { cache, remember, asked } = setup()
    const url = '/api/registry/v1/modules/acme/a/aws/versions'
    const team = (i: number): Caller => ({ kind: 'team', organizationId: 'org-a', teamId: `team-${i}` })
    const sixteen = Array.from({ length: 16 }, (_, i) => i)
    for (const i of sixteen) remember(url, team(i), `for ${i}`)
    expect(sixteen.map((i) => asked(team(i), url)?.body)).toEqual(sixteen.map((i) => `for ${i}`))
    // Asked again, an answer is replaced, not added.
    remember(url, team(0), 'for 0, again')
    expect(asked(team(0), url)?.body).toBe('for 0, again')
    remember(url, team(16), 'for 16')
    expect(asked(team(1), url)).toBeUndefined()
    expect([asked(team(0), url)?.body, asked(team(2), url)?.body, asked(team(16), url)?.body]).toEqual(['for 0, again', 'for 2', 'for 16'])
    expect(cache.size.urls).toBe(1)
  })

  it('lets an answer go when its caller’s token expires, before its time to live', () => {
    const { remember, asked, wait, now } = setup()
    const expiring: Caller = { ...alice, expiresAt: now() + 1000 }
    remember('/api/registry/v1/modules/acme/a/aws/versions', expiring, 'a', { ttlMs: 60_000 })
    wait(999)
    expect(asked(expiring, '/api/registry/v1/modules/acme/a/aws/versions')?.body).toBe('a')
    wait(1)
    expect(asked(expiring, '/api/registry/v1/modules/acme/a/aws/versions')).toBeUndefined()
  })

  it('keeps no answer for a URL with parameters its answer does not depend on', () => {
    const { cache, remember } = setup()
    const big = 'x'.repeat(100_000)
    for (let i = 1; i <= 40; i++) remember(`/api/registry/v1/modules/acme/vpc/aws/versions?v=${i}`, alice, big)
    expect(cache.size.urls).toBe(0)
    remember('/api/registry/v1/modules/acme/vpc/aws/versions', alice, big)
    expect(cache.size.urls).toBe(1)
  })

  it('stays within its byte budget however many distinct questions are asked, and skips answers too large to keep', () => {
    const { cache, remember, asked } = setup({ maxBytes: 1_000_000, maxEntryBytes: 100_000 })
    for (let offset = 0; offset < 500; offset++) {
      remember(`/api/registry/v1/modules?offset=${offset}`, alice, 'y'.repeat(20_000), { ttlMs: 60_000, params: ['offset'] })
      expect(cache.size.bytes).toBeLessThanOrEqual(1_000_000)
    }
    expect(cache.size.urls).toBeGreaterThan(10)
    // The most recent survive; the oldest went first.
    expect(asked(alice, '/api/registry/v1/modules?offset=499')).toBeDefined()
    expect(asked(alice, '/api/registry/v1/modules?offset=0')).toBeUndefined()

    remember('/api/registry/v1/modules/acme/huge/aws/versions', alice, 'z'.repeat(200_000))
    expect(asked(alice, '/api/registry/v1/modules/acme/huge/aws/versions')).toBeUndefined()
  })

  it('lets everything go at the next write, and sweeps what expired', () => {
    const { cache, remember, asked, write, wait } = setup()
    remember('/api/registry/v1/modules/acme/a/aws/versions', alice, 'a')
    // The fast path knows the token Koa authenticated, until the next write (a revocation is one).
    expect(cache.callerOf('token-of-team-alice')).toEqual(alice)
    expect(cache.callerOf('token-of-nobody')).toBeUndefined()
    write()
    expect(cache.callerOf('token-of-team-alice')).toBeUndefined()
    expect(asked(alice, '/api/registry/v1/modules/acme/a/aws/versions')).toBeUndefined()
    expect(cache.size).toEqual({ urls: 0, bytes: 0 })

    for (let i = 0; i < 20; i++) remember(`/api/registry/v1/modules/acme/m${i}/aws/versions`, alice, 'short-lived', { ttlMs: 1 })
    expect(cache.size.urls).toBe(20)
    // The sweep runs on a later write to the cache, at most every ten seconds.
    wait(11_000)
    remember('/api/registry/v1/modules/acme/fresh/aws/versions', alice, 'fresh', { ttlMs: 60_000 })
    expect(cache.size.urls).toBe(1)
  })

  it('keeps nothing for an unauthenticated request, or an answer computed before a write', () => {
    const { cache, remember } = setup()
    remember('/api/registry/v1/modules/acme/a/aws/versions', undefined, 'a')
    expect(cache.size.urls).toBe(0)
    let revision = 1
    const stale = new ProtocolCache(() => revision)
    const ctx = answered('/api/registry/v1/modules/acme/a/aws/versions', alice, 'old')
    revision = 2
    stale.remember(ctx, { ttlMs: 60_000 }, { revision: 1, downloads: 0 })
    expect(stale.size.urls).toBe(0)
    // Nor the token of a caller authenticated before a write (a signed download's, which keeps no answer).
    stale.knowCaller(ctx, { revision: 1, downloads: 0 })
    expect(stale.callerOf('token-of-team-alice')).toBeUndefined()
    stale.knowCaller(ctx, { revision: 2, downloads: 0 })
    expect(stale.callerOf('token-of-team-alice')).toEqual(alice)
  })

  it('lets an answer that shows download counts go at the next download, and keeps the others', () => {
    const { remember, asked, download } = setup()
    remember('/api/registry/v1/modules/acme/a/aws', alice, 'detail with counts', { ttlMs: 60_000, showsCounts: true })
    remember('/api/registry/v1/modules/acme/a/aws/versions', alice, 'versions')
    expect(asked(alice, '/api/registry/v1/modules/acme/a/aws')?.body).toBe('detail with counts')
    download()
    expect(asked(alice, '/api/registry/v1/modules/acme/a/aws')).toBeUndefined()
    expect(asked(alice, '/api/registry/v1/modules/acme/a/aws/versions')?.body).toBe('versions')
  })
})
