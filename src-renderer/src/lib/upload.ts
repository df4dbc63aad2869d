/** PUT to an upload link with progress (fetch reports none for uploads); a refusal rejects with the server's words. */
export function upload(url: string, body: Blob, onProgress: (share: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest()
    request.open('PUT', url)
    request.setRequestHeader('Content-Type', 'application/octet-stream')
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total)
    }
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) return resolve()
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
