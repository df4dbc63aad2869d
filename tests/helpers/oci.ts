import type { TestServer } from './server.js'

export interface OciRequest {
  /** The bearer token: the admin's unless told; null for none. */
  token?: string | null
  method?: string
  headers?: Record<string, string>
}

/** A distribution request to `server`'s OCI face (/v2), as a client holding a token sends it, with its answer's bytes. */
export async function ociRequest(server: TestServer, path: string, { token = server.adminToken, method = 'GET', headers = {} }: OciRequest = {}) {
  const response = await server.fetch(`${server.url}${path}`, { method, headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } })
  const bytes = Buffer.from(await response.arrayBuffer())
  return { status: response.status, headers: response.headers, bytes, json: () => JSON.parse(bytes.toString('utf8')) }
}
