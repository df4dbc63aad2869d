import { describe, expect, it } from 'vitest'
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { crc32 } from 'node:zlib'
import { unzipSync } from 'fflate'
import { DEFAULT_ARCHIVE_LIMITS } from '../../src-main/server/domain/ingest/archive-reader.js'
import { ModuleZipWriter, storeModuleZip } from '../../src-main/server/domain/ingest/module-zip.js'
import type { Archives } from '../../src-main/server/store/port.js'
import type { ArchiveRef } from '../../src-main/server/store/records.js'
import { openMemoryStore } from '../../src-main/server/store/memory/memory-store.js'
import { largeTerraform } from '../../bench/fixtures.js'
import { moduleArchive, zipDirectory } from '../helpers/archives.js'

describe('a module’s OCI zip', () => {
  it('holds every file with its CRC-32 and size, small files deflated at once, large ones streamed, images stored', async () => {
    const store = await openMemoryStore()
    const files: Record<string, string | Buffer> = {
      'main.tf': 'variable "name" {\n  type = string\n}\n',
      'README.md': '# Module\n\nWhat it does.\n',
      'empty.tf': '',
      // At the limit of what is deflated at once, and one byte over it (streamed through zlib).
      'at-limit.tf': largeTerraform(64 * 1024, 'a').slice(0, 64 * 1024),
      'over-limit.tf': largeTerraform(64 * 1024 + 1, 'b').slice(0, 64 * 1024 + 1),
      'modules/large/main.tf': largeTerraform(900 * 1024, 'c'),
      'docs/diagram.png': randomBytes(300 * 1024)
    }
    const archive = await moduleArchive(files)
    const ref = await storeModuleZip(store.archives, Readable.from([archive]), archive.length, DEFAULT_ARCHIVE_LIMITS)
    const chunks: Buffer[] = []
    for await (const chunk of store.archives.read(ref.sha256)) chunks.push(chunk as Buffer)
    const zip = Buffer.concat(chunks)

    const unzipped = unzipSync(new Uint8Array(zip))
    const directory = zipDirectory(zip)
    expect([...directory.keys()].sort()).toEqual(Object.keys(files).sort())
    for (const [path, content] of Object.entries(files)) {
      const bytes = Buffer.from(content)
      expect(Buffer.from(unzipped[path]!).equals(bytes), path).toBe(true)
      expect(directory.get(path), path).toMatchObject({ crc: crc32(bytes), size: bytes.length, method: path.endsWith('.png') ? 0 : 8 })
    }
    // Deflated, each of them, Terraform text being what it is.
    expect(directory.get('modules/large/main.tf')!.compressed).toBeLessThan(files['modules/large/main.tf']!.length / 10)
    expect(directory.get('over-limit.tf')!.compressed).toBeLessThan(64 * 1024 / 10)
    await store.close()
  })
})

describe('a module’s OCI zip abandoned', () => {
  it('fails its store quietly when the archive fails before the store has begun to read the zip', async () => {
    const store = await openMemoryStore()
    // A store that begins to read a while after it is asked to, as the file store does (it makes its folder first).
    let reading: Promise<ArchiveRef> | undefined
    const slow: Archives = {
      ...store.archives,
      put: (source, maxBytes) => (reading = new Promise<void>((resolve) => setTimeout(resolve, 20)).then(() => store.archives.put(source, maxBytes)))
    }
    const writer = new ModuleZipWriter(slow, DEFAULT_ARCHIVE_LIMITS)
    // An archive that fails at once (bytes after its gzip stream, say), before the store reads.
    await writer.abandon(new Error('the archive has bytes after its gzip stream'))
    await expect(reading).rejects.toThrow('the archive has bytes after its gzip stream')
    expect(await store.archives.list()).toEqual([])
    await store.close()
  })
})
