import { readFile } from 'node:fs/promises'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { readAdminTokenFile } from '../../data-dir/admin-token.js'
import { CA_CERT_FILE, SERVER_FILE, TLS_DIR } from '../../data-dir/layout.js'

/**
 * The Homeport running on a data directory, for the commands that ask it to do something
 * (`homeport backup`, `homeport mirror-provider`): where it listens, from `server.json`, and a
 * site-admin token (given, from HOMEPORT_ADMIN_TOKEN, or from the data directory).
 */
export interface RunningServer {
  url: string
  token: string
  /** A request to it, trusting its own CA when it serves HTTPS with one: a JSON:API document, or a zip streamed. */
  request(method: string, path: string, body?: unknown): Promise<IncomingMessage>
}

export async function runningServer(dataDir: string, token?: string): Promise<RunningServer | undefined> {
  let url: string
  try {
    const found = JSON.parse(await readFile(join(dataDir, SERVER_FILE), 'utf8')) as { pid: number; url: string }
    process.kill(found.pid, 0)
    url = found.url
  } catch {
    return undefined
  }
  const adminToken = token ?? process.env.HOMEPORT_ADMIN_TOKEN ?? (await readAdminTokenFile(dataDir))
  if (!adminToken) throw new Error('Homeport is running but no admin token was found: pass --token.')
  const https = url.startsWith('https:')
  const ca = https ? await readFile(join(dataDir, TLS_DIR, CA_CERT_FILE), 'utf8').catch(() => undefined) : undefined
  return {
    url,
    token: adminToken,
    request: (method, path, body) =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string> = { Authorization: `Bearer ${adminToken}` }
        if (body !== undefined) headers['Content-Type'] = body instanceof Readable ? 'application/zip' : 'application/vnd.api+json'
        const request = (https ? httpsRequest : httpRequest)(`${url}${path}`, { method, headers, ...(ca ? { ca } : {}) }, resolve)
        request.on('error', reject)
        if (body instanceof Readable) {
          // A file that cannot be read to the end must not leave a request waiting for the rest.
          body.on('error', (error) => request.destroy(error)).pipe(request)
        }
        else request.end(body === undefined ? undefined : JSON.stringify(body))
      })
  }
}

/** The whole body of a response, as text. */
export async function bodyOf(response: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of response as AsyncIterable<Buffer>) text += chunk.toString()
  return text
}
