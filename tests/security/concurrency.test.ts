import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createModule, createOrganization, doc, startTestServer, type TestServer } from '../helpers/server.js'

let test: TestServer
beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'busy')
  await createModule(test, 'busy', 'shared', 'aws')
})
afterAll(async () => {
  await test.close()
})

describe('fifty clients at once', () => {
  it('create versions of one module: each version once, no update lost, every answer right', async () => {
    // Twenty-five distinct versions, each asked for twice at the same moment.
    const versions = Array.from({ length: 50 }, (_, i) => `2.0.${i % 25}`)
    const responses = await Promise.all(
      versions.map((version) =>
        test.api('POST', '/organizations/busy/registry-modules/private/busy/shared/aws/versions', {
          body: doc('registry-module-versions', { version })
        })
      )
    )
    for (const [index, response] of responses.entries()) {
      expect([201, 422], versions[index]).toContain(response.status)
      if (response.status === 201) expect(response.body.data.attributes.version).toBe(versions[index])
      else expect(response.body.errors[0].detail).toMatch(/already exists/)
    }
    expect(responses.filter((response) => response.status === 201)).toHaveLength(25)
    const module = await test.api('GET', '/organizations/busy/registry-modules/private/busy/shared/aws')
    const stored = module.body.data.attributes['version-statuses'].map((entry: { version: string }) => entry.version)
    expect(stored).toHaveLength(25)
    expect(new Set(stored).size).toBe(25)
  })

  it('create modules in one organization: all kept, duplicates refused', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `mod-${i % 40}`)
    const responses = await Promise.all(
      names.map((name) => test.api('POST', '/organizations/busy/registry-modules', { body: doc('registry-modules', { name, provider: 'aws' }) }))
    )
    expect(responses.filter((response) => response.status === 201)).toHaveLength(40)
    expect(responses.filter((response) => response.status === 422)).toHaveLength(10)
    await test.restart()
    const list = await test.api('GET', '/organizations/busy/registry-modules?q=mod-&page[size]=100')
    expect(list.body.meta.pagination['total-count']).toBe(40)
  })
})
