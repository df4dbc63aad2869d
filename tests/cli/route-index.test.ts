import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { routeReference } from '../../src-main/server/boot/route-reference.js'

const ROOT = join(import.meta.dirname, '..', '..')

describe('the route index', () => {
  it('is the one the routers make: run npm run docs after adding, moving or removing a route', async () => {
    const made = await routeReference()
    expect(readFileSync(join(ROOT, 'docs', 'reference', 'routes.md'), 'utf8')).toBe(made)
    // Every face is there, the management API's writes as much as the protocols' reads.
    for (const route of ['`GET /api/v2/organizations`', '`POST /api/v2/organizations/:org/registry-modules`', '`PUT /archivist/v1/object/:objectId`', '`GET /api/registry/v1/modules/:namespace/:name/:provider/versions`', '`POST /mcp`', '`GET /v2/token`']) {
      expect(made).toContain(route)
    }
  })

  it('is linked from the API reference', () => {
    expect(readFileSync(join(ROOT, 'docs', 'reference', 'api.md'), 'utf8')).toContain('(routes.md)')
  })
})
