/**
 * A minimal ustar writer for publishing a folder from the GUI: regular files only (what a
 * module archive holds), long paths through PAX headers, then gzip with the browser's own
 * CompressionStream. The server checks every archive it receives anyway.
 */
export interface TarFile {
  /** Path relative to the module root, with `/`. */
  path: string
  file: Blob
}

const encoder = new TextEncoder()

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`
}

function header(name: string, size: number, type: string, mtime: number): Uint8Array {
  const block = new Uint8Array(512)
  const put = (text: string, offset: number) => block.set(encoder.encode(text), offset)
  put(name, 0)
  put(octal(0o644, 8), 100)
  put(octal(0, 8), 108)
  put(octal(0, 8), 116)
  put(octal(size, 12), 124)
  put(octal(mtime, 12), 136)
  put('        ', 148)
  put(type, 156)
  put('ustar\0', 257)
  put('00', 263)
  let sum = 0
  for (const byte of block) sum += byte
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148)
  return block
}

function padding(size: number): Uint8Array {
  return new Uint8Array((512 - (size % 512)) % 512)
}

/** A PAX record `<length> path=<value>\n`, whose length counts its own digits. */
function paxRecord(key: string, value: string): Uint8Array {
  const body = ` ${key}=${value}\n`
  const bodyLength = encoder.encode(body).length
  let length = bodyLength + 1
  while (String(length).length + bodyLength !== length) length = String(length).length + bodyLength
  return encoder.encode(`${length}${body}`)
}

/** Packs the files into a .tar.gz; `onProgress` gets the share of bytes packed (0–1). */
export async function packTarGz(files: TarFile[], onProgress: (share: number) => void = () => undefined): Promise<Blob> {
  const parts: BlobPart[] = []
  const total = files.reduce((sum, entry) => sum + entry.file.size, 0) || 1
  let done = 0
  const mtime = Math.floor(Date.now() / 1000)
  for (const { path, file } of files) {
    if (encoder.encode(path).length > 100) {
      const record = paxRecord('path', path)
      parts.push(header('PaxHeader', record.length, 'x', mtime) as BlobPart, record as BlobPart, padding(record.length) as BlobPart)
    }
    parts.push(header(path.slice(0, 100), file.size, '0', mtime) as BlobPart, file, padding(file.size) as BlobPart)
    done += file.size
    onProgress(done / total)
  }
  parts.push(new Uint8Array(1024))
  const tar = new Blob(parts)
  return new Response(tar.stream().pipeThrough(new CompressionStream('gzip'))).blob()
}
