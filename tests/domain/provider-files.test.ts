import { describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { zipSync } from 'fflate'
import { archiveHash1 } from '../../src-main/server/domain/providers/release-files.js'
import { readMirrorFolder } from '../../src-main/server/commands/lib/mirror-folder.js'
import { dirHash } from '../helpers/terraform-client.js'

const hashOf = (zip: Uint8Array) => archiveHash1(zip.length, (start, end) => Readable.from([Buffer.from(zip.subarray(start, end + 1))]))

describe('the h1: of a provider zip', () => {
  it('is the h1: of its unpacked files when it has no directory entries', async () => {
    const files = { 'terraform-provider-null_v3.2.3': new TextEncoder().encode('#!/bin/sh\n'), 'LICENSE.txt': new TextEncoder().encode('MPL-2.0\n') }
    expect(await hashOf(zipSync(files))).toBe(dirHash(files))
  })

  it('lists directory entries too, as Go’s dirhash.HashZip does', async () => {
    const zip = zipSync({ 'docs/': new Uint8Array(), 'docs/a.md': new TextEncoder().encode('a\n') })
    const empty = createHash('sha256').digest('hex')
    const a = createHash('sha256').update('a\n').digest('hex')
    const summary = `${empty}  docs/\n${a}  docs/a.md\n`
    expect(await hashOf(zip)).toBe(`h1:${createHash('sha256').update(summary).digest('base64')}`)
  })

  it('refuses what is not a zip', async () => {
    await expect(hashOf(new TextEncoder().encode('not a zip at all, just some text'))).rejects.toThrow(/not a zip archive Terraform can read/)
  })
})

describe('a terraform providers mirror folder', () => {
  it('lists each zip with its hashes, and refuses a zip named outside its provider’s folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'homeport-folder-'))
    try {
      const folder = join(root, 'registry.terraform.io', 'hashicorp', 'null')
      await mkdir(folder, { recursive: true })
      await writeFile(join(folder, 'index.json'), '{"versions":{"3.2.3":{}}}')
      await writeFile(join(folder, '3.2.3.json'), JSON.stringify({ archives: { linux_amd64: { url: 'terraform-provider-null_3.2.3_linux_amd64.zip', hashes: ['h1:x'] } } }))
      expect(await readMirrorFolder(root)).toEqual([
        { hostname: 'registry.terraform.io', namespace: 'hashicorp', type: 'null', version: '3.2.3', platform: 'linux_amd64', hashes: ['h1:x'], path: join(folder, 'terraform-provider-null_3.2.3_linux_amd64.zip') }
      ])
      await writeFile(join(folder, '3.2.4.json'), JSON.stringify({ archives: { linux_amd64: { url: '../../../../etc/passwd', hashes: [] } } }))
      await expect(readMirrorFolder(root)).rejects.toThrow(/the linux_amd64 archive's url must name a zip beside it/)
      await writeFile(join(folder, '3.2.4.json'), 'not json')
      await expect(readMirrorFolder(root)).rejects.toThrow(/3\.2\.4\.json is not a <version>\.json of terraform providers mirror/)
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
