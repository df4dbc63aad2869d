import { createApp } from '../api/app.js'
import { assistantContext } from '../api/mcp/assistant-context.js'
import { McpSessions } from '../api/mcp/mcp-router.js'
import { routeIndex, routesOf } from '../api/route-index.js'
import { Background } from '../domain/core/background.js'
import { openMemoryStore } from '../store/memory/memory-store.js'
import { jobTable } from './jobs.js'
import { parseServeOptions } from './options.js'
import { createServices } from './services.js'

/**
 * `docs/reference/routes.md`: the app as `serve` builds it (every face, MCP's too), over a memory
 * store, asked for its routes. Nothing listens, and nothing is written.
 */
export async function routeReference(): Promise<string> {
  const options = parseServeOptions([], {})
  const store = await openMemoryStore()
  const background = new Background({ jobs: jobTable(options), log: () => undefined })
  try {
    const services = createServices(store, background, { ...options, adminToken: 'route-reference-admin-token', mirrorsDir: '/nonexistent', bundlesDir: '/nonexistent' })
    const app = createApp(services, { mcp: new McpSessions(assistantContext(services, options.registryHostname)) })
    return routeIndex(routesOf(app))
  } finally {
    await background.close()
    await store.close()
  }
}
