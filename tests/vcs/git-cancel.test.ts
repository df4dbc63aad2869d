import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { listRemote, syncMirror } from '../../src-main/server/domain/vcs/git.js'

/** A "git server" that takes connections and never answers: git waits on it until it is stopped. */
let server: Server | undefined
const sockets = new Set<Socket>()
afterEach(async () => {
  for (const socket of sockets) socket.destroy()
  await new Promise((done) => server?.close(done))
})

async function silentRemote(): Promise<{ url: string; connected: Promise<void> }> {
  let connected!: () => void
  const reached = new Promise<void>((resolve) => (connected = resolve))
  server = createServer((socket) => {
    sockets.add(socket)
    connected()
  })
  await new Promise<void>((listening) => server!.listen(0, '127.0.0.1', listening))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/acme/network.git`, connected: reached }
}

describe('git under a background job', () => {
  it('stops when the job is cancelled (shutdown), instead of waiting on a remote that never answers', async () => {
    const remote = await silentRemote()
    const job = new AbortController()
    const listing = listRemote(remote.url, job.signal)
    await remote.connected
    job.abort(new Error('Homeport is stopping'))
    await expect(listing).rejects.toThrow()
  })

  it('stops a mirror’s first clone too, and leaves no half-made mirror behind', async () => {
    const remote = await silentRemote()
    const dir = join(await mkdtemp(join(tmpdir(), 'homeport-git-cancel-')), 'mirror.git')
    try {
      const job = new AbortController()
      const cloning = syncMirror(remote.url, dir, job.signal)
      await remote.connected
      job.abort(new Error('Homeport is stopping'))
      await expect(cloning).rejects.toThrow()
      await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' })
    } finally {
      await rm(join(dir, '..'), { recursive: true, force: true })
    }
  })
})
