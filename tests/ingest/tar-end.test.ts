import { describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { TarEndCheck } from '../../src-main/server/domain/ingest/tar-end.js'
import { moduleArchive, rawTar } from '../helpers/archives.js'

/** Feeds `tar` to the check in chunks of `size` bytes; true when nothing but padding followed its end. */
function clean(tar: Buffer, size = 700): boolean {
  const check = new TarEndCheck()
  for (let at = 0; at < tar.length; at += size) if (!check.write(tar.subarray(at, at + size))) return false
  return true
}

function pax(records: Record<string, string>): string {
  return Object.entries(records)
    .map(([key, value]) => {
      const body = ` ${key}=${value}\n`
      let length = body.length + 1
      while (`${length}${body}`.length !== length) length++
      return `${length}${body}`
    })
    .join('')
}

describe('the end of a tar archive', () => {
  it('accepts what real tar writers make, padding included', async () => {
    expect(clean(gunzipSync(await moduleArchive({ 'main.tf': 'x', 'modules/a/main.tf': 'y'.repeat(3000) })))).toBe(true)
    const dir = await mkdtemp(join(tmpdir(), 'homeport-tar-'))
    try {
      await writeFile(join(dir, `${'long-name-'.repeat(15)}.tf`), 'z'.repeat(10_000))
      // GNU tar pads to a 10 KiB record and writes long names as ././@LongLink entries.
      const gnu = execFileSync('tar', ['-c', '-C', dir, '.'])
      expect(gnu.length % 10240).toBe(0)
      expect(clean(gnu)).toBe(true)
      expect(clean(execFileSync('tar', ['-c', '--format=pax', '-C', dir, '.']), 512)).toBe(true)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
    // An archive that simply stops after its last entry is read by Go too.
    expect(clean(rawTar([{ path: 'main.tf', content: 'x' }]).subarray(0, -1024))).toBe(true)
  })

  it('follows a PAX size record as Go does, so a body cannot pose as the end', () => {
    const hidden = Buffer.concat([Buffer.alloc(1024), Buffer.from('evil')])
    const tar = rawTar([
      { path: 'PaxHeaders/main.tf', type: 'x', content: pax({ size: String(hidden.length) }) },
      { path: 'main.tf', size: 0, content: hidden }
    ])
    expect(clean(tar)).toBe(true)
    expect(clean(Buffer.concat([tar, Buffer.from('more')]))).toBe(false)
  })

  it('refuses anything but zeros after the end, however the bytes arrive', () => {
    const tar = Buffer.concat([rawTar([{ path: 'main.tf', content: 'x' }]), rawTar([{ path: '../evil.tf', content: 'y' }])])
    for (const size of [1, 100, 512, 4096, tar.length]) expect(clean(tar, size), `chunks of ${size}`).toBe(false)
  })
})
