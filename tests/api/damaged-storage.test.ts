import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createHash } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pg from 'pg'
import { ociRequest } from '../helpers/oci.js'
import { createModule, createOrganization, publish, startTestServer, testDatabase, type TestServer } from '../helpers/server.js'

/**
 * Storage damaged under a running server, by hand or by a disk: a stored file that a version names,
 * gone from the data directory or the database, and a record file damaged after the server took
 * the indexes its last close saved. Every face answers the reads that need it with the error that
 * says so, in its own format, and the log names the file; the rest of the registry goes on serving.
 */
let homeport: TestServer
let sha256: string
/** What the server logs (each of these answers is logged, as any 500 is), kept from the test's output. */
const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
const MODULE = '/organizations/acme/registry-modules/private/acme/network/aws'
const DETAIL = /A file this answer needs is missing from Homeport’s storage .* Restore it from a backup, or publish it again\./

beforeAll(async () => {
  // Over HTTPS, as OCI clients ask for.
  homeport = await startTestServer({ tls: true })
  await createOrganization(homeport, 'acme')
  const { archive } = await publish(homeport, 'acme', 'network', 'aws', '1.0.0', { 'main.tf': 'variable "cidr_block" {\n  type = string\n}\n' })
  await publish(homeport, 'acme', 'network', 'aws', '1.1.0', { 'main.tf': 'variable "cidr" {\n  type = string\n}\n' })
  sha256 = createHash('sha256').update(archive).digest('hex')
  await removeStoredFile(homeport, sha256)
})
afterAll(async () => {
  logged.mockRestore()
  await homeport.close()
})

/** Takes a stored file from under the server, as a person tidying the disk (or the database, and the replica's copy) by hand would. */
async function removeStoredFile(test: TestServer, sha256: string): Promise<void> {
  const database = await testDatabase(test.dataDir)
  if (!database) return rm(join(test.dataDir, 'archives', sha256.slice(0, 2), `${sha256}.tar.gz`))
  await rm(join(test.dataDir, 'archive-cache', sha256), { force: true })
  const client = new pg.Client({ connectionString: database })
  await client.connect()
  try {
    await client.query('DELETE FROM hp_archive_chunks WHERE sha256 = $1', [sha256])
    await client.query('DELETE FROM hp_archives WHERE sha256 = $1', [sha256])
  } finally {
    await client.end()
  }
}

describe('a version whose archive is missing from the store', () => {
  it('answers Terraform’s download with the registry protocol’s error and its code', async () => {
    const location = await homeport.api('GET', '/api/registry/v1/modules/acme/network/aws/1.0.0/download')
    expect(location.status).toBe(204)
    const link = new URL(location.headers.get('x-terraform-get')!, homeport.url).toString()
    for (const headers of [{}, { Range: 'bytes=0-9' }] as Record<string, string>[]) {
      const download = await homeport.fetch(link, { headers })
      expect(download.status).toBe(500)
      const body = (await download.json()) as { errors: string[]; code: string }
      expect(body.code).toBe('stored-file-missing')
      expect(body.errors[0]).toMatch(DETAIL)
    }
  })

  it('answers the management API’s archive and file reads with a JSON:API error and its code', async () => {
    for (const path of [`${MODULE}/1.0.0/archive`, `${MODULE}/1.0.0/files`, `${MODULE}/1.0.0/files/main.tf`]) {
      const answer = await homeport.api('GET', path)
      expect(answer.status, path).toBe(500)
      expect(answer.body.errors[0], path).toMatchObject({ status: '500', code: 'stored-file-missing', detail: expect.stringMatching(DETAIL) })
    }
  })

  it('answers an OCI client’s read of a layer that is missing in OCI’s error format, with the code in its detail', async () => {
    const manifest = await ociRequest(homeport, '/v2/modules/acme/network/aws/manifests/1.0.0')
    const digest = manifest.json().layers[0].digest as string
    await removeStoredFile(homeport, digest.slice('sha256:'.length))
    const blob = await ociRequest(homeport, `/v2/modules/acme/network/aws/blobs/${digest}`)
    expect(blob.status).toBe(500)
    expect(blob.json()).toEqual({ errors: [{ code: 'UNKNOWN', message: expect.stringMatching(DETAIL), detail: { code: 'stored-file-missing' } }] })
  })

  it('logs which file is missing, and goes on serving the versions whose files are there', async () => {
    logged.mockClear()
    expect((await homeport.api('GET', `${MODULE}/1.0.0/files/main.tf`)).status).toBe(500)
    expect(logged.mock.calls.map((call) => String(call[0])).join('\n')).toContain(sha256)
    const other = await homeport.api('GET', '/api/registry/v1/modules/acme/network/aws/1.1.0/download')
    const download = await homeport.fetch(new URL(other.headers.get('x-terraform-get')!, homeport.url).toString())
    expect(download.status).toBe(200)
    expect((await homeport.api('GET', `${MODULE}/1.1.0/files/main.tf`)).body.data.attributes.text).toBe('variable "cidr" {\n  type = string\n}\n')
  })
})

const POSTGRES = process.env.HOMEPORT_TEST_STORE === 'postgres'

describe.skipIf(POSTGRES)(`a record file damaged while the server runs on the indexes its last close saved${POSTGRES ? ' (skipped: PostgreSQL keeps no record files)' : ''}`, () => {
  it('answers the reads that need it with the code stored-record-damaged, names the file in the log, and serves the rest', async () => {
    const test = await startTestServer()
    try {
      await createOrganization(test, 'acme')
      await createModule(test, 'acme', 'kept', 'aws')
      const id = (await createModule(test, 'acme', 'damaged', 'aws')).id as string
      // A clean close saves the indexes: the next start reads each record only when it is first asked for.
      await test.restart()
      const file = join(test.dataDir, 'modules', `${id}.json`)
      await writeFile(file, '{"schemaVersion": 1, "record": ')
      logged.mockClear()
      const answer = await test.api('GET', '/organizations/acme/registry-modules/private/acme/damaged/aws')
      expect(answer.status).toBe(500)
      expect(answer.body.errors[0]).toMatchObject({ code: 'stored-record-damaged', detail: expect.stringMatching(/A record this answer needs cannot be read: .* Restore it from a backup \(homeport restore\)\./) })
      expect(logged.mock.calls.map((call) => String(call[0])).join('\n')).toContain(`${id}.json`)
      expect((await test.api('GET', '/organizations/acme/registry-modules/private/acme/kept/aws')).status).toBe(200)
    } finally {
      await test.close()
    }
  })
})
