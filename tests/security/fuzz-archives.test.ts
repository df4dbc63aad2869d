import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Readable } from 'node:stream'
import { InvalidArchiveError, readModuleArchive } from '../../src-main/server/domain/ingest/archive-reader.js'
import { isDocumentationFile } from '../../src-main/server/domain/ingest/terraform-docs.js'
import { gzip, moduleArchive, NETWORK_MODULE, rawTar } from '../helpers/archives.js'

const read = (archive: Uint8Array) => readModuleArchive(Readable.from([Buffer.from(archive)]), archive.length, isDocumentationFile)

/** A record of a PAX extended header: `<length> <key>=<value>\n`, its length counting itself. */
function pax(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`
  let length = Buffer.byteLength(body) + 1
  while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body)
  return Buffer.from(`${length}${body}`)
}

/** Reads an archive, accepting any outcome but a crash or an error that is not about the archive. */
async function outcome(archive: Uint8Array): Promise<'read' | 'refused'> {
  try {
    await read(archive)
    return 'read'
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArchiveError)
    return 'refused'
  }
}

describe('archives beyond the obvious', () => {
  it('reads long names given by PAX headers, and refuses a PAX name that climbs out', async () => {
    const long = `modules/${'n'.repeat(150)}/main.tf`
    const contents = await read(gzip(rawTar([{ path: 'PaxHeader', type: 'x', content: pax('path', long) }, { path: 'short', content: 'x' }, { path: 'main.tf', content: '' }])))
    expect(contents.paths).toContain(long)
    const climbing = gzip(rawTar([{ path: 'PaxHeader', type: 'x', content: pax('path', '../../escape.tf') }, { path: 'harmless.tf', content: 'x' }]))
    await expect(read(climbing)).rejects.toThrow(/climbs out/)
  })

  it('skips global PAX headers, and keeps the last of duplicate entries', async () => {
    const contents = await read(
      gzip(
        rawTar([
          { path: 'pax_global_header', type: 'g', content: pax('comment', 'made by a tool') },
          { path: 'main.tf', content: 'first' },
          { path: 'main.tf', content: 'second' }
        ])
      )
    )
    expect(contents.files.get('main.tf')).toBe('second')
  })

  it('accepts hard links inside the root and refuses them outside, whatever their spelling', async () => {
    await expect(read(gzip(rawTar([{ path: 'a.tf', content: 'x' }, { path: 'b.tf', type: '1', linkpath: './a.tf' }])))).resolves.toBeDefined()
    for (const linkpath of ['../a', 'x/../../a', '/etc/passwd']) {
      await expect(read(gzip(rawTar([{ path: 'b.tf', type: '1', linkpath }]))), linkpath).rejects.toThrow(/outside the module root/)
    }
  })

  it('refuses any random bytes cleanly, gzipped or not', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), fc.boolean(), async (bytes, compressed) => {
        expect(await outcome(compressed ? gzip(Buffer.from(bytes)) : bytes)).toBe('refused')
      }),
      { numRuns: 300 }
    )
  })

  it('reads or refuses, never crashes on, a real archive with bytes flipped', async () => {
    const archive = await moduleArchive(NETWORK_MODULE)
    const tar = Buffer.from(await new Response(new Blob([new Uint8Array(archive)]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer())
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat({ max: tar.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 20 }), async (flips) => {
        const damaged = Buffer.from(tar)
        for (const [at, value] of flips) damaged[at] = value
        await outcome(gzip(damaged))
      }),
      { numRuns: 300 }
    )
  })
})
