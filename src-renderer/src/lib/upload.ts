/**
 * Sends a file with progress (fetch reports none for uploads): by default a PUT to an upload link,
 * which needs no token; with `token`, to an endpoint that does. Resolves with the answer's JSON (or
 * undefined); a refusal rejects with the server's words.
 */
export function upload<T = unknown>(url: string, body: Blob, onProgress: (share: number) => void, { method = 'PUT', token }: { method?: string; token?: string } = {}): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest()
    request.open(method, url)
    request.setRequestHeader('Content-Type', 'application/octet-stream')
    if (token) request.setRequestHeader('Authorization', `Bearer ${token}`)
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total)
    }
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) return resolve(request.responseText ? (JSON.parse(request.responseText) as T) : undefined)
      let detail: string | undefined
      try {
        detail = (JSON.parse(request.responseText || '{}') as { errors?: Array<{ detail?: string }> }).errors?.[0]?.detail
      } catch {
        detail = undefined
      }
      reject(new Error(detail ?? `The upload was refused (HTTP ${request.status}).`))
    }
    request.onerror = () => reject(new Error('The upload did not reach Homeport.'))
    request.send(body)
  })
}
