import { createHash, randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** Terraform's side of login.v1: a listener on this machine for the code, and the PKCE verifier. */
export async function terraformListener(): Promise<{ server: Server; port: number; code: Promise<string> }> {
  let received!: (code: string) => void
  const code = new Promise<string>((resolve) => (received = resolve))
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>The login server has returned an authentication code to Terraform.</p>')
    received(url.searchParams.get('code') ?? '')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as AddressInfo).port, code }
}

/** What Terraform sends to the authorization page, for its listener on `port` and its PKCE `verifier`. */
export function authorizationQuery(port: number, verifier: string): URLSearchParams {
  return new URLSearchParams({
    client_id: 'terraform-cli',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    redirect_uri: `http://localhost:${port}/login`,
    response_type: 'code',
    state: randomUUID()
  })
}
