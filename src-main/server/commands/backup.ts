import { dirname, resolve } from 'node:path'
import { PassThrough } from 'node:stream'
import { writeInside } from '../files/folder-writes.js'
import { bodyOf, runningServer } from './lib/running-server.js'
import { openFileStore } from '../store/file/file-store.js'

/**
 * `homeport backup <file>`: from the running server when there is one (a consistent snapshot,
 * taken without stopping it), else straight from the data directory. Written to a temporary
 * file first, so an interrupted backup never looks complete.
 */
export async function backupToFile(dataDir: string, file: string, token?: string): Promise<'server' | 'directory'> {
  const write = (contents: NodeJS.ReadableStream) => writeInside(dirname(resolve(file)), file, contents as AsyncIterable<Uint8Array>, { atomic: true })
  const running = await runningServer(dataDir, token)
  if (running) {
    const response = await running.request('GET', '/api/homeport/v1/backup')
    if (response.statusCode !== 200) {
      const detail = (JSON.parse((await bodyOf(response)) || '{}') as { errors?: Array<{ detail?: string }> }).errors?.[0]?.detail
      throw new Error(`The server refused the backup (HTTP ${response.statusCode})${detail ? `: ${detail}` : '.'}`)
    }
    await write(response)
    return 'server'
  }
  const store = await openFileStore(dataDir)
  try {
    const through = new PassThrough()
    const backup = store.backup(through).catch((error: unknown) => {
      through.destroy(error as Error)
      throw error
    })
    await Promise.all([backup, write(through)])
  } finally {
    await store.close()
  }
  return 'directory'
}
