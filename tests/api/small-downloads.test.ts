import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ArchiveFile } from '../../src-main/server/domain/archives/archive-file.js'
import { SmallFiles } from '../../src-main/server/http/small-files.js'
import { createOrganization, publish, startTestServer, type TestServer } from '../helpers/server.js'

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** A stored file over `bytes`, kept by `hash` (its own unless told), counting how often it is read. */
function stored(bytes: Buffer, hash = sha256(bytes)): ArchiveFile & { reads: number } {
  const file = {
    sha256: hash,
    size: bytes.length,
    reads: 0,
    open: (range?: { start: number; end: number }) => {
      file.reads++
      return Readable.from([range ? bytes.subarray(range.start, range.end + 1) : bytes])
    }
  }
  return file
}

describe('small files kept in memory', () => {
  it('reads a small file once, then sends it from memory', async () => {
    const files = new SmallFiles({ maxFileBytes: 1024, maxBytes: 4096 })
    const file = stored(Buffer.from('terraform {}\n'.repeat(20)))
    expect((await files.read(file))!.toString()).toBe('terraform {}\n'.repeat(20))
    expect((await files.read(file))!.toString()).toBe('terraform {}\n'.repeat(20))
    expect(file.reads).toBe(1)
  })

  it('leaves a file larger than its limit to the store, unread', async () => {
    const files = new SmallFiles({ maxFileBytes: 100, maxBytes: 4096 })
    const file = stored(Buffer.alloc(101, 1))
    expect(await files.read(file)).toBeUndefined()
    expect(file.reads).toBe(0)
  })

  it('never keeps bytes whose SHA-256 is not the one they are stored by: a damaged file is read again each time', async () => {
    const files = new SmallFiles({ maxFileBytes: 1024, maxBytes: 4096 })
    const damaged = stored(Buffer.from('not what was stored'), sha256(Buffer.from('what was stored')))
    expect((await files.read(damaged))!.toString()).toBe('not what was stored')
    await files.read(damaged)
    expect(damaged.reads).toBe(2)
    expect(files.size).toEqual({ files: 0, bytes: 0 })
  })

  it('refuses a file shorter or longer than its record says', async () => {
    const files = new SmallFiles({ maxFileBytes: 1024, maxBytes: 4096 })
    const file = { ...stored(Buffer.from('12345')), size: 6 }
    await expect(files.read(file)).rejects.toThrow(/has 5 bytes, not 6/)
  })

  it('holds at most its bytes, letting the least recently used go first', async () => {
    const files = new SmallFiles({ maxFileBytes: 1000, maxBytes: 2500 })
    const [a, b, c] = ['a', 'b', 'c'].map((fill) => stored(Buffer.alloc(1000, fill)))
    await files.read(a!)
    await files.read(b!)
    await files.read(a!) // a is now the most recently used
    await files.read(c!) // b goes
    expect(files.size).toEqual({ files: 2, bytes: 2000 })
    await files.read(a!)
    await files.read(b!)
    expect([a!.reads, b!.reads, c!.reads]).toEqual([1, 2, 1])
  })

  it('counts a file read by two downloads at once only once', async () => {
    const files = new SmallFiles({ maxFileBytes: 1000, maxBytes: 2500 })
    const file = stored(Buffer.alloc(1000, 'x'))
    await Promise.all([files.read(file), files.read(file), files.read(file)])
    expect(files.size).toEqual({ files: 1, bytes: 1000 })
  })
})

describe('downloading a small module archive', () => {
  let test: TestServer
  let archive: Buffer
  let url: string
  beforeAll(async () => {
    test = await startTestServer()
    await createOrganization(test, 'acme')
    ;({ archive } = await publish(test, 'acme', 'small', 'aws', '1.0.0', {
      'main.tf': 'variable "name" {\n  type = string\n}\n',
      'README.md': `# small\n\n${'A module small enough to be kept in memory once downloaded.\n'.repeat(40)}`
    }))
    const download = await test.api('GET', '/api/registry/v1/modules/acme/small/aws/1.0.0/download')
    url = download.headers.get('x-terraform-get')!
  })
  afterAll(async () => {
    await test.close()
  })

  it('gives the archive whole, each time, with its length and type', async () => {
    for (let time = 0; time < 2; time++) {
      const response = await fetch(url)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-length')).toBe(String(archive.length))
      expect(response.headers.get('content-type')).toBe('application/gzip')
      expect(Buffer.from(await response.arrayBuffer()).equals(archive)).toBe(true)
    }
  })

  it('gives a byte range of it, and a range from its end, as 206', async () => {
    const middle = await fetch(url, { headers: { Range: 'bytes=10-99' } })
    expect(middle.status).toBe(206)
    expect(middle.headers.get('content-range')).toBe(`bytes 10-99/${archive.length}`)
    expect(Buffer.from(await middle.arrayBuffer()).equals(archive.subarray(10, 100))).toBe(true)
    const tail = await fetch(url, { headers: { Range: 'bytes=-20' } })
    expect(tail.status).toBe(206)
    expect(Buffer.from(await tail.arrayBuffer()).equals(archive.subarray(archive.length - 20))).toBe(true)
  })

  it('answers HEAD with the headers alone', async () => {
    const head = await fetch(url, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(archive.length))
    expect(await head.text()).toBe('')
  })
})
