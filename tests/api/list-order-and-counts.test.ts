import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrganization, publish, startTestServer, type TestServer } from '../helpers/server.js'

/** Homeport's own order of the module list (`sort`), each entry's download count, and each organization's module count, for the GUI's lists. */
let homeport: TestServer
const files = { 'main.tf': 'variable "name" {}\n' }

beforeAll(async () => {
  homeport = await startTestServer()
  await createOrganization(homeport, 'acme')
  // Published in this order: alpha, then beta, then gamma.
  for (const name of ['alpha', 'beta', 'gamma']) await publish(homeport, 'acme', name, 'aws', '1.0.0', files)
  const download = (name: string) => homeport.api('GET', `/api/registry/v1/modules/acme/${name}/aws/1.0.0/download`)
  for (const name of ['beta', 'beta', 'alpha']) expect((await download(name)).status).toBe(204)
})
afterAll(() => homeport.close())

const names = async (query: string) => {
  const listed = await homeport.api('GET', `/organizations/acme/registry-modules${query}`)
  expect(listed.status).toBe(200)
  return (listed.body.data as Array<{ attributes: { name: string; downloads: number } }>).map(({ attributes }) => `${attributes.name} ${attributes.downloads}`)
}

describe('the module list’s order', () => {
  it('is by name unless asked, each entry with its downloads', async () => {
    expect(await names('')).toEqual(['alpha 1', 'beta 2', 'gamma 0'])
    expect(await names('?sort=name')).toEqual(['alpha 1', 'beta 2', 'gamma 0'])
  })

  it('puts the most downloaded first, or the most recently published', async () => {
    expect(await names('?sort=-downloads')).toEqual(['beta 2', 'alpha 1', 'gamma 0'])
    expect(await names('?sort=-published')).toEqual(['gamma 0', 'beta 2', 'alpha 1'])
  })

  it('refuses an order it does not know, naming those it does', async () => {
    const refused = await homeport.api('GET', '/organizations/acme/registry-modules?sort=stars')
    expect([refused.status, refused.body.errors[0].detail]).toEqual([400, 'sort is one of name, -downloads, -published.'])
  })
})

describe('the organization list', () => {
  it('says how many modules each organization has (Homeport’s own module-count)', async () => {
    await createOrganization(homeport, 'empty')
    const listed = await homeport.api('GET', '/organizations')
    const counts = Object.fromEntries((listed.body.data as Array<{ id: string; attributes: { 'module-count': number } }>).map((org) => [org.id, org.attributes['module-count']]))
    expect(counts).toEqual({ acme: 3, empty: 0 })
    // A single organization is HCP's document as it is.
    expect((await homeport.api('GET', '/organizations/acme')).body.data.attributes['module-count']).toBeUndefined()
  })
})
