import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { pipeline } from 'node:stream/promises'
import { bodyOf, runningServer } from './running-server.js'
import { openFileStore } from './store/file-store.js'

/**
 * `homeport backup <file>`: from the running server when there is one (a consistent snapshot,
 * taken without stopping it), else straight from the data directory. Written to a temporary
 * file first, so an interrupted backup never looks complete.
 */
export async function backupToFile(dataDir: string, file: string, token?: string): Promise<'server' | 'directory'> {
  const partial = `${file}.partial`
  try {
    const running = await runningServer(dataDir, token)
    if (running) {
      const response = await running.request('GET', '/api/homeport/v1/backup')
      if (response.statusCode !== 200) {
        const detail = (JSON.parse((await bodyOf(response)) || '{}') as { errors?: Array<{ detail?: string }> }).errors?.[0]?.detail
        throw new Error(`The server refused the backup (HTTP ${response.statusCode})${detail ? `: ${detail}` : '.'}`)
      }
      await pipeline(response, createWriteStream(partial, { mode: 0o600 }))
    } else {
      const store = await openFileStore(dataDir)
      try {
        await store.backup(createWriteStream(partial, { mode: 0o600 }))
      } finally {
        await store.close()
      }
    }
    await rename(partial, file)
    return running ? 'server' : 'directory'
  } catch (error) {
    await rm(partial, { force: true })
    throw error
  }
}
