import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { randomBytes } from 'node:crypto'
import { readdir, stat } from 'node:fs/promises'
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { createOrganization, publish, startTestServer, type TestServer } from '../helpers/server.js'

const RENDERER = fileURLToPath(new URL('../../out/renderer', import.meta.url))
let test: TestServer
beforeAll(async () => {
  test = await startTestServer({ rendererDir: RENDERER })
  await createOrganization(test, 'acme')
  // Incompressible, so the archive is larger than what socket buffers absorb at once.
  await publish(test, 'acme', 'bulky', 'aws', '1.0.0', { 'main.tf': 'output "x" {\n  value = 1\n}\n', 'blob.bin': randomBytes(4 * 1024 * 1024) })
})
afterAll(async () => {
  await test.close()
})

/**
 * Asks for `path` over a raw connection (with `Connection: close`, as Terraform does, or kept
 * alive) and hangs up once the answer's head is in; resolves with that head.
 */
function hangUpAfterHead(path: string, connection: 'close' | 'keep-alive'): Promise<string> {
  const { port } = new URL(test.url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: ${connection}\r\n\r\n`)
    })
    let head = ''
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1')
      if (!head.includes('\r\n\r\n')) return
      socket.destroy()
      resolve(head.slice(0, head.indexOf('\r\n\r\n') + 2))
    })
    socket.once('error', reject)
  })
}

/** The status line Homeport starts its answer to `path` with, to a client that hangs up then. */
const hangUpEarly = async (path: string) => (await hangUpAfterHead(path, 'close')).split('\r\n')[0]

describe('a client that hangs up early', () => {
  it('is not an error: nothing is logged for archive downloads or GUI files', async () => {
    const errors = vi.spyOn(console, 'error')
    try {
      const location = await test.fetch(`${test.url}/api/registry/v1/modules/acme/bulky/aws/1.0.0/download`, {
        headers: { Authorization: `Bearer ${test.adminToken}` }
      })
      const archivePath = new URL(location.headers.get('x-terraform-get')!).pathname
      const assets = join(RENDERER, 'assets')
      const sizes = await Promise.all((await readdir(assets)).map(async (name) => ({ name, size: (await stat(join(assets, name))).size })))
      const largest = sizes.sort((a, b) => b.size - a.size)[0]!.name
      for (let round = 0; round < 5; round++) {
        expect(await hangUpEarly(archivePath)).toBe('HTTP/1.1 200 OK')
        expect(await hangUpEarly(`/assets/${largest}`)).toBe('HTTP/1.1 200 OK')
      }
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(errors.mock.calls.map((call) => String(call[0]))).toEqual([])
      // And the server is fine.
      expect((await test.api('GET', '/organizations/acme')).status).toBe(200)
    } finally {
      errors.mockRestore()
    }
  })
})

describe('a connection the client keeps', () => {
  it('is kept longer than Terraform keeps one idle (90 s), and the answer says how long', async () => {
    const head = await hangUpAfterHead('/api/v2/ping', 'keep-alive')
    // Else a request sent on it just as the server hung up would fail (an upload is not sent again).
    expect(head).toMatch(/^HTTP\/1\.1 204 /)
    expect(head.toLowerCase()).toContain('\r\nkeep-alive: timeout=95\r\n')
  })
})
