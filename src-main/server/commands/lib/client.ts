import { readFile } from 'node:fs/promises'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { readAdminTokenFile } from '../../boot/admin-token.js'
import { CA_CERT_FILE, SERVER_FILE, TLS_DIR } from '../../data-dir/layout.js'
import type { BundleAttributes, BundleImportAttributes, BundleRequestAttributes } from '../../../shared/wire/bundles.js'
import type { Document, ListDocument } from '../../../shared/wire/jsonapi.js'
import type { OrganizationAttributes, TeamAttributes, TokenAttributes } from '../../../shared/wire/organizations.js'
import type { MirroredPackageAttributes, ProviderMirrorAttributes, ProviderReleaseImportAttributes } from '../../../shared/wire/providers.js'

/** A request Homeport refused (or one that could not be sent): the server's own words when it gave some. */
export class ClientError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

/** A provider package's address in the mirror, as `terraform providers mirror` lays it out. */
export interface PackageAddress {
  hostname: string
  namespace: string
  type: string
  version: string
  /** `<os>_<arch>`. */
  platform: string
}

/** A provider release's signed files, as `homeport import-providers` reads them from a release folder. */
export interface ReleaseFiles {
  shasums: string
  /** The detached signature, in base64. */
  'shasums-signature': string
  'signing-key': string
  protocols: string[]
}

const path = (...segments: string[]) => segments.map(encodeURIComponent).join('/')

/** Where the Homeport serving a data directory listens, and its own CA when it serves HTTPS with one. */
export interface RunningServer {
  url: string
  ca?: string
}

/**
 * The Homeport running on a data directory, from the server file it writes once listening (and
 * removes on a clean stop), checked against a live process; undefined when none runs there. An
 * address bound to every interface (0.0.0.0, ::) is reached on loopback.
 */
export async function runningServer(dataDir: string): Promise<RunningServer | undefined> {
  let url: string
  try {
    const found = JSON.parse(await readFile(join(dataDir, SERVER_FILE), 'utf8')) as { pid: number; url: string }
    process.kill(found.pid, 0)
    url = found.url.replace('://0.0.0.0:', '://127.0.0.1:').replace('://[::]:', '://[::1]:')
  } catch {
    return undefined
  }
  const ca = url.startsWith('https:') ? await readFile(join(dataDir, TLS_DIR, CA_CERT_FILE), 'utf8').catch(() => undefined) : undefined
  return { url, ...(ca ? { ca } : {}) }
}

/** Why no admin token was found, in the words that fit: the server that runs was given its own, or none has run on the folder. */
export function noAdminToken(dataDir: string, running: RunningServer | undefined): string {
  return running
    ? `Homeport is running at ${running.url}, but ${dataDir} holds no admin token: it was started with HOMEPORT_ADMIN_TOKEN. Set the same HOMEPORT_ADMIN_TOKEN here.`
    : `${dataDir} holds no admin token: Homeport has not run on it yet (start it once), or it runs with HOMEPORT_ADMIN_TOKEN (set the same here), or on another --data-dir.`
}

/**
 * The one way the command line talks to a Homeport: a URL and a token, every endpoint typed over
 * the same wire documents the server and the GUI use, and every refusal one `ClientError` carrying
 * the server's details. `HomeportClient.running(dataDir)` finds the Homeport serving a data
 * directory, as every subcommand that has a server do the work does.
 */
export class HomeportClient {
  constructor(
    readonly url: string,
    private readonly token: string,
    /** The CA a Homeport serving HTTPS with its own certificate is trusted through. */
    private readonly ca?: string
  ) {}

  /**
   * The Homeport running on a data directory (where it listens, from its server file; undefined
   * when none runs), with a token: the one given, HOMEPORT_ADMIN_TOKEN, or the data directory's.
   */
  static async running(dataDir: string, token?: string): Promise<HomeportClient | undefined> {
    const server = await runningServer(dataDir)
    if (!server) return undefined
    const adminToken = token ?? process.env.HOMEPORT_ADMIN_TOKEN ?? (await readAdminTokenFile(dataDir))
    if (!adminToken) throw new Error(`${noAdminToken(dataDir, server)} Or pass --token.`)
    return new HomeportClient(server.url, adminToken, server.ca)
  }

  /**
   * A fetch for this Homeport, for clients that bring their own protocol (the MCP bridge): its
   * token on every request, and its own CA trusted when it serves HTTPS with its own certificate.
   * undici (for the CA) is loaded here, not with every command.
   */
  async fetcher(): Promise<typeof fetch> {
    const { Agent, fetch: undiciFetch } = await import('undici')
    const dispatcher = this.ca ? new Agent({ connect: { ca: this.ca } }) : undefined
    return (input, init) => {
      const headers = new Headers(init?.headers)
      headers.set('Authorization', `Bearer ${this.token}`)
      return undiciFetch(input as never, { ...init, headers, ...(dispatcher ? { dispatcher } : {}) } as never) as unknown as Promise<Response>
    }
  }

  organizations(): Promise<ListDocument<OrganizationAttributes>> {
    return this.send('GET', '/api/v2/organizations')
  }

  teams(organization: string): Promise<ListDocument<TeamAttributes>> {
    return this.send('GET', `/api/v2/organizations/${path(organization)}/teams`)
  }

  /** One more token acting as a team (HCP's multiple team tokens), described; its text is in this answer only. */
  addTeamToken(teamId: string, description: string): Promise<Document<TokenAttributes>> {
    return this.send('POST', `/api/v2/teams/${path(teamId)}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description } } })
  }

  createBundle(attributes: BundleRequestAttributes): Promise<Document<BundleAttributes>> {
    return this.send('POST', '/api/v2/bundles', { data: { type: 'bundles', attributes } })
  }

  bundle(id: string): Promise<Document<BundleAttributes>> {
    return this.send('GET', `/api/v2/bundles/${path(id)}`)
  }

  /** A ready bundle's file, streamed. */
  downloadBundle(id: string): Promise<IncomingMessage> {
    return this.stream('GET', `/api/v2/bundles/${path(id)}/download`)
  }

  async deleteBundle(id: string): Promise<void> {
    await this.send('DELETE', `/api/v2/bundles/${path(id)}`)
  }

  importBundle(file: Readable, organization?: string): Promise<Document<BundleImportAttributes>> {
    const query = organization ? `?organization=${encodeURIComponent(organization)}` : ''
    return this.send('POST', `/api/v2/admin/bundle-imports${query}`, file)
  }

  mirrorProvider(source: string, platforms: string[], versions?: string): Promise<Document<ProviderMirrorAttributes>> {
    return this.send('POST', '/api/v2/admin/provider-mirror', {
      data: { type: 'provider-mirrors', attributes: { source, platforms, ...(versions ? { versions } : {}) } }
    })
  }

  /** One provider zip into the mirror, checked there against `hashes` (`zh:` or `h1:`). */
  importProviderPackage(address: PackageAddress, hashes: string[], zip: Readable): Promise<Document<MirroredPackageAttributes>> {
    const { hostname, namespace, type, version, platform } = address
    const query = new URLSearchParams(hashes.map((hash) => ['hash', hash]))
    return this.send('PUT', `/api/v2/admin/provider-mirror/packages/${path(hostname, namespace, type, version, platform)}?${query}`, zip)
  }

  importProviderRelease(address: Omit<PackageAddress, 'platform'>, files: ReleaseFiles): Promise<Document<ProviderReleaseImportAttributes>> {
    const { hostname, namespace, type, version } = address
    return this.send('PUT', `/api/v2/admin/provider-mirror/releases/${path(hostname, namespace, type, version)}`, { data: { type: 'provider-releases', attributes: files } })
  }

  /** A consistent snapshot of the whole registry, streamed. */
  backup(): Promise<IncomingMessage> {
    return this.stream('GET', '/api/homeport/v1/backup')
  }

  /** A JSON document (a JSON:API one, or nothing for 204), or the server's refusal as a ClientError. */
  private async send<D>(method: string, path: string, body?: unknown): Promise<D> {
    const response = await this.request(method, path, body)
    const text = await textOf(response)
    const status = response.statusCode ?? 0
    if (status >= 200 && status < 300) return (text ? JSON.parse(text) : {}) as D
    throw refusal(status, text)
  }

  /** A response to stream on, once it says 200; else its refusal as a ClientError. */
  private async stream(method: string, path: string): Promise<IncomingMessage> {
    const response = await this.request(method, path)
    if (response.statusCode === 200) return response
    throw refusal(response.statusCode ?? 0, await textOf(response))
  }

  private request(method: string, path: string, body?: unknown): Promise<IncomingMessage> {
    const https = this.url.startsWith('https:')
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { Authorization: `Bearer ${this.token}` }
      if (body !== undefined) headers['Content-Type'] = body instanceof Readable ? 'application/octet-stream' : 'application/vnd.api+json'
      const request = (https ? httpsRequest : httpRequest)(`${this.url}${path}`, { method, headers, ...(this.ca ? { ca: this.ca } : {}) }, resolve)
      request.on('error', (error) => reject(error instanceof ClientError ? error : new ClientError(0, `could not reach Homeport at ${this.url}: ${error.message}`)))
      if (body instanceof Readable) {
        // A file that cannot be read to the end must not leave a request waiting for the rest.
        const what = (body as Readable & { path?: string | Buffer }).path?.toString() ?? 'the request body'
        body.on('error', (error) => request.destroy(new ClientError(0, `could not send ${what}: ${error.message}`))).pipe(request)
      } else request.end(body === undefined ? undefined : JSON.stringify(body))
    })
  }
}

async function textOf(response: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of response as AsyncIterable<Buffer>) text += chunk.toString()
  return text
}

/** The error a refused request is: the details of the JSON:API errors it answered with, else its status. */
function refusal(status: number, text: string): ClientError {
  let details: string[] = []
  try {
    const errors = (JSON.parse(text) as { errors?: Array<{ detail?: string; title?: string } | string> }).errors ?? []
    details = errors.map((error) => (typeof error === 'string' ? error : (error.detail ?? error.title ?? ''))).filter(Boolean)
  } catch {
    // Not JSON (a proxy's page, say): the status says enough.
  }
  return new ClientError(status, details.length > 0 ? details.join(' ') : `Homeport refused (HTTP ${status}).`)
}
