import { createWriteStream } from 'node:fs'
import { readFile, rename, rm } from 'node:fs/promises'
import { get as httpGet, type IncomingMessage } from 'node:http'
import { get as httpsGet } from 'node:https'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { readAdminTokenFile } from './admin-token.js'
import { openFileStore } from './store/file-store.js'

/**
 * `homeport backup <file>`: from the running server when there is one (a consistent snapshot,
 * taken without stopping it), else straight from the data directory. Written to a temporary
 * file first, so an interrupted backup never looks complete.
 */
export async function backupToFile(dataDir: string, file: string, token?: string): Promise<'server' | 'directory'> {
  const partial = `${file}.partial`
  try {
    const running = await runningServer(dataDir)
    if (running) {
      const adminToken = token ?? process.env.HOMEPORT_ADMIN_TOKEN ?? (await readAdminTokenFile(dataDir))
      if (!adminToken) throw new Error(`Homeport is running but no admin token was found: pass --token.`)
      const response = await download(`${running.url}/api/homeport/v1/backup`, adminToken, dataDir)
      if (response.statusCode !== 200) throw new Error(`The server refused the backup (HTTP ${response.statusCode}).`)
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

async function runningServer(dataDir: string): Promise<{ url: string } | undefined> {
  try {
    const { pid, url } = JSON.parse(await readFile(join(dataDir, 'server.json'), 'utf8')) as { pid: number; url: string }
    process.kill(pid, 0)
    return { url }
  } catch {
    return undefined
  }
}

async function download(url: string, token: string, dataDir: string): Promise<IncomingMessage> {
  const https = url.startsWith('https:')
  // A server with --tls and Homeport's own CA: trust that CA for this request.
  const ca = https ? await readFile(join(dataDir, 'tls', 'ca.crt'), 'utf8').catch(() => undefined) : undefined
  return new Promise((resolve, reject) => {
    const options = { headers: { Authorization: `Bearer ${token}` }, ...(ca ? { ca } : {}) }
    const request = (https ? httpsGet : httpGet)(url, options, resolve)
    request.on('error', reject)
  })
}
