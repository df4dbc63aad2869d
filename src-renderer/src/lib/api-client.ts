/** A JSON:API error the server sent, in words for a person. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly pointer?: string,
    /** The server's stable code for what went wrong (`name-taken`): what the GUI decides on, never the words. */
    readonly code?: string
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

interface ErrorDocument {
  errors?: Array<{ code?: string; title?: string; detail?: string; source?: { pointer?: string } }>
}

/**
 * Calls Homeport's public API, the same one every other client uses, with the session's token; with
 * none (`null`), as the person whose single sign-on session the browser's cookie holds.
 */
export class ApiClient {
  constructor(readonly token: string | null) {}

  /** The credential sent with each request: the token, or none where the session cookie goes by itself. */
  private get authorization(): Record<string, string> {
    return this.token === null ? {} : { Authorization: `Bearer ${this.token}` }
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.send<T>(method, `/api/v2${path}`, body)
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path)
  }

  /** A GET outside /api/v2 (Homeport's own endpoints, the registry protocol). */
  getAbsolute<T>(path: string): Promise<T> {
    return this.send<T>('GET', path)
  }

  /** Any request outside /api/v2 (HCP's GPG keys live under /api/registry/private/v2). */
  requestAbsolute<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.send<T>(method, path, body)
  }

  /** A file the API sends (a bundle), whole, with the name the server gives it. */
  download(path: string): Promise<{ blob: Blob; filename: string }> {
    return this.downloadAbsolute(`/api/v2${path}`)
  }

  /** A file from outside /api/v2 (Homeport's backup), as `download`. */
  async downloadAbsolute(url: string): Promise<{ blob: Blob; filename: string }> {
    const response = await fetch(url, { headers: this.authorization }).catch(() => {
      throw new ApiError(0, 'Homeport is not answering. Is the server still running?')
    })
    if (!response.ok) {
      const [first] = ((await response.json().catch(() => ({}))) as ErrorDocument).errors ?? []
      throw new ApiError(response.status, first?.detail ?? first?.title ?? response.statusText, first?.source?.pointer, first?.code)
    }
    const filename = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'download'
    return { blob: await response.blob(), filename }
  }

  /** A JSON:API document is sent as JSON; a Blob (an archive) as it is. */
  private async send<T>(method: string, url: string, body?: unknown): Promise<T> {
    const raw = body instanceof Blob
    let response: Response
    try {
      response = await fetch(url, {
        method,
        headers: {
          ...this.authorization,
          Accept: 'application/vnd.api+json',
          ...(body === undefined ? {} : { 'Content-Type': raw ? 'application/gzip' : 'application/vnd.api+json' })
        },
        body: body === undefined ? undefined : raw ? body : JSON.stringify(body)
      })
    } catch {
      throw new ApiError(0, 'Homeport is not answering. Is the server still running?')
    }
    if (response.status === 204) return undefined as T
    const document = (await response.json().catch(() => ({}))) as T & ErrorDocument
    if (!response.ok) {
      const [first] = document.errors ?? []
      throw new ApiError(response.status, first?.detail ?? first?.title ?? response.statusText, first?.source?.pointer, first?.code)
    }
    return document
  }
}
