import { readdir, readlink } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from '../helpers/eventually.js'
import { makeSigningKey, providerRelease, publishProvider, sha256 } from '../helpers/providers.js'
import { createOrganization, startTestServer, type TestServer } from '../helpers/server.js'

// A zip of a few MB, as providers are: larger than the chunk a file is sent in (256 KB), so it
// goes the way large files go (read into reused buffers), not the stream small ones take.
const BINARY_BYTES = 3 * 1024 * 1024 + 12_345

let test: TestServer
let zip: Buffer
let url: string
beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  const key = await makeSigningKey()
  const release = await providerRelease('large', '1.0.0', ['linux_amd64'], key, { binaryBytes: BINARY_BYTES })
  await publishProvider(test, 'acme', release, key)
  zip = release.zips.get('terraform-provider-large_1.0.0_linux_amd64.zip')!.bytes
  const download = await test.api('GET', '/api/registry/v1/providers/acme/large/1.0.0/download/linux/amd64')
  url = new URL(download.body.download_url as string, test.url).toString()
})
afterAll(async () => {
  await test.close()
})

const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer())
/** The descriptors this process (the server's) holds open on the zip's stored copy, named by its hash. */
const openCopies = async () => {
  const targets = await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')))
  return targets.filter((target) => target.includes(sha256(zip))).length
}

describe('downloading a file larger than a chunk', () => {
  it('gives the whole file, byte for byte, with its length', async () => {
    const response = await fetch(url)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-length')).toBe(String(zip.length))
    expect(sha256(await bytesOf(response))).toBe(sha256(zip))
  })

  it('gives a range that spans several chunks, and a range from the end', async () => {
    const across = await fetch(url, { headers: { Range: 'bytes=200000-1300000' } })
    expect(across.status).toBe(206)
    expect(across.headers.get('content-range')).toBe(`bytes 200000-1300000/${zip.length}`)
    expect(sha256(await bytesOf(across))).toBe(sha256(zip.subarray(200_000, 1_300_001)))
    const tail = await fetch(url, { headers: { Range: 'bytes=-300000' } })
    expect(tail.status).toBe(206)
    expect(sha256(await bytesOf(tail))).toBe(sha256(zip.subarray(zip.length - 300_000)))
  })

  it('gives eight downloads at once the same bytes', async () => {
    const hashes = await Promise.all(Array.from({ length: 8 }, async () => sha256(await bytesOf(await fetch(url)))))
    expect(new Set(hashes)).toEqual(new Set([sha256(zip)]))
  })

  // Thirty, because what they found shows under load only: a write still buffered when the client
  // hangs up may never call back, and the file stayed open.
  it('lets go of the file when the client hangs up midway, and serves the next download whole', async () => {
    for (let i = 0; i < 30; i++) {
      const controller = new AbortController()
      const response = await fetch(url, { signal: controller.signal })
      const reader = response.body!.getReader()
      await reader.read()
      controller.abort()
      await reader.closed.catch(() => undefined)
    }
    // Each download the server gave up on closed its file: no descriptor is left open.
    await eventually(async () => expect(await openCopies()).toBe(0), { timeoutMs: 5000 })
    expect(sha256(await bytesOf(await fetch(url)))).toBe(sha256(zip))
  })
})
