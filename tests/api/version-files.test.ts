import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrganization, createTeamWithToken, createVersion, publish, startTestServer, type TestServer } from '../helpers/server.js'

/** A published version's files, as its archive holds them: Homeport's own endpoints for the GUI's Files tab. */
let homeport: TestServer
let published: Buffer
const MODULE = '/organizations/acme/registry-modules/private/acme/network/aws'
const MAIN_TF = 'variable "cidr_block" {\n  type = string\n}\n'

beforeAll(async () => {
  homeport = await startTestServer()
  await createOrganization(homeport, 'acme')
  ;({ archive: published } = await publish(homeport, 'acme', 'network', 'aws', '1.0.0', {
    'README.md': '# Network\n',
    'main.tf': MAIN_TF,
    'modules/subnet/main.tf': 'variable "cidr" {}\n',
    'docs/diagram.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
    'big.json': 'x'.repeat(1024 * 1024 + 1)
  }))
})
afterAll(() => homeport.close())

describe('a version’s files', () => {
  it('lists every file of the archive with its size, by path as a person sorts them', async () => {
    const listed = await homeport.api('GET', `${MODULE}/1.0.0/files`)
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((file: { attributes: { path: string; size: number } }) => [file.attributes.path, file.attributes.size])).toEqual([
      ['big.json', 1024 * 1024 + 1],
      ['docs/diagram.png', 8],
      ['main.tf', MAIN_TF.length],
      ['modules/subnet/main.tf', 19],
      ['README.md', 10]
    ])
  })

  it('downloads the archive as it was published, named for the version, without counting an install', async () => {
    const response = await homeport.fetch(`${homeport.url}/api/v2${MODULE}/1.0.0/archive`, { headers: { Authorization: `Bearer ${homeport.adminToken}` } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/gzip')
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="network-aws-1.0.0.tar.gz"')
    expect(Buffer.from(await response.arrayBuffer()).equals(published)).toBe(true)
    const summary = await homeport.api('GET', '/api/registry/v2/modules/acme/network/aws/downloads/summary')
    expect(summary.body.data.attributes.total).toBe(0)
  })

  it('reads one file’s text, in a submodule too', async () => {
    const main = await homeport.api('GET', `${MODULE}/1.0.0/files/main.tf`)
    expect([main.status, main.body.data.attributes.text]).toEqual([200, MAIN_TF])
    expect((await homeport.api('GET', `${MODULE}/1.0.0/files/modules/subnet/main.tf`)).body.data.attributes.text).toBe('variable "cidr" {}\n')
  })

  it('says why a file is not shown: missing, not text, too large, or its version not published', async () => {
    const detail = async (path: string) => {
      const answer = await homeport.api('GET', `${MODULE}/${path}`)
      return [answer.status, answer.body.errors[0].detail]
    }
    expect(await detail('1.0.0/files/nothing.tf')).toEqual([404, '1.0.0 has no file nothing.tf.'])
    expect(await detail('1.0.0/files/docs/diagram.png')).toEqual([422, 'docs/diagram.png is not text: download the archive to read it.'])
    expect(await detail('1.0.0/files/big.json')).toEqual([422, 'big.json is larger than 1 MB: download the archive to read it.'])
    await createVersion(homeport, 'acme', 'network', 'aws', '1.1.0')
    expect(await detail('1.1.0/files')).toEqual([404, '1.1.0 is not published: it has no files to show.'])
  })

  it('is read by those who may read the module, and no one else', async () => {
    await createOrganization(homeport, 'other')
    const outsider = (await createTeamWithToken(homeport, 'other', 'readers')).token
    expect((await homeport.api('GET', `${MODULE}/1.0.0/files`, { token: outsider })).status).toBe(404)
    expect((await homeport.api('GET', `${MODULE}/1.0.0/files/main.tf`, { token: outsider })).status).toBe(404)
    const reader = (await createTeamWithToken(homeport, 'acme', 'readers')).token
    expect((await homeport.api('GET', `${MODULE}/1.0.0/files/main.tf`, { token: reader })).body.data.attributes.text).toBe(MAIN_TF)
  })
})
