import { request } from 'node:http'

/** An answer to a raw request: its status, headers and body as text. */
export interface RawAnswer {
  status: number
  headers: Record<string, unknown>
  body: string
}

/**
 * A request with exactly these headers, as a browser or an attacker sends them: `fetch` will not let
 * a test set Host, and puts its own `Sec-Fetch-Mode: cors` over a browser's navigation headers.
 */
export function rawRequest(url: string, method: string, path: string, headers: Record<string, string | string[]>, body?: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers }, (res) => {
      let text = ''
      res.on('data', (chunk: Buffer) => (text += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}
