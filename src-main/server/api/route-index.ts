import type Koa from 'koa'

/** What a router's `routes()` middleware carries: the router, whose layers are its routes. */
interface MountedRouter {
  router?: { stack: Array<{ path: unknown; methods: string[] }> }
}

/** A method and path Homeport answers, as a router holds it. */
export interface Route {
  methods: string[]
  path: string
}

/** More methods than HTTP's usual ones: a route that takes any method (`router.all`). */
const ANY_METHOD = 10

/**
 * Every route the app's routers hold, in the order they are mounted: what `docs/reference/routes.md`
 * lists (made by `npm run docs`, and checked against the code by tests/cli/route-index.test.ts), so
 * that no route goes undocumented. HEAD goes with GET, as Koa's router answers it.
 */
export function routesOf(app: Koa): Route[] {
  return app.middleware
    .flatMap((middleware) => (middleware as MountedRouter).router?.stack ?? [])
    .filter((layer) => layer.methods.length > 0 && typeof layer.path === 'string')
    .map((layer) => ({ methods: layer.methods.filter((method) => method !== 'HEAD'), path: layer.path as string }))
}

/** Where a path lives: `/api/v2`, `/api/registry/v1`, `/v2` (OCI), `/oauth`… */
function faceOf(path: string): string {
  const segments = path.split('/').filter(Boolean)
  if (segments[0] !== 'api') return `/${segments[0] ?? ''}`
  return segments[1] === 'v2' ? '/api/v2' : `/${segments.slice(0, 3).join('/')}`
}

/** The routes as Markdown, grouped by where they live, each group and its paths in order. */
export function routeIndex(routes: Route[]): string {
  const faces = new Map<string, Route[]>()
  for (const route of routes) faces.set(faceOf(route.path), [...(faces.get(faceOf(route.path)) ?? []), route])
  const lines = [
    '# Routes',
    '',
    'Every method and path Homeport answers, made from its routers by `npm run docs`',
    '(`src-main/server/api/route-index.ts`; a test fails when this page and the routers disagree). What each',
    'does, with its parameters and answers, is in [the API reference](api.md). `*` is a route that takes any',
    'method; `{*rest}` is the rest of the path.',
    ''
  ]
  for (const [face, members] of [...faces].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`## \`${face}\``, '')
    for (const { methods, path } of members.sort((a, b) => a.path.localeCompare(b.path))) lines.push(`- \`${methods.length > ANY_METHOD ? '*' : methods.join(', ')} ${path}\``)
    lines.push('')
  }
  return lines.join('\n')
}
