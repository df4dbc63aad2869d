import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readFile, readdir, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import type { Readable } from 'node:stream'
import { create, extract } from 'tar'
import { makeFolder, moveInside, pathInside, writeInside } from '../../files/folder-writes.js'
import type { ArchiveRef } from '../../store/records.js'
import { InvalidInputError } from '../core/errors.js'
import type { BundleFile, BundleManifest } from '../../../shared/bundle-manifest.js'
import { checkManifest, MANIFEST, manifestFiles } from './bundle-format.js'

/** Where a stored file goes in a bundle (or bytes made for it: a provider's docs.json), and what the manifest says of it. */
export type StagedFile = { path: string; stored: ArchiveRef } | { path: string; bytes: Buffer }

/**
 * Writes a bundle to `output`: each stored file copied into a staging folder beside it, the
 * manifest, then one tar of it all. The bundle appears under its name only once whole.
 */
export async function writeBundle(
  output: string,
  manifest: BundleManifest,
  files: StagedFile[],
  read: (sha256: string) => Readable,
  progress: (done: number, total: number) => void
): Promise<{ size: number; sha256: string }> {
  const staging = `${output}.staging`
  await rm(staging, { recursive: true, force: true })
  try {
    const sizeOf = (file: StagedFile) => ('stored' in file ? file.stored.size : file.bytes.length)
    const total = files.reduce((sum, file) => sum + sizeOf(file), 0)
    let done = 0
    for (const file of files) {
      // Names come from records (a provider's file names): the staging folder is where they stay.
      await writeInside(staging, file.path, 'stored' in file ? read(file.stored.sha256) : file.bytes, { exclusive: true })
      done += sizeOf(file)
      progress(done, total)
    }
    await writeInside(staging, MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`)
    const top = (await readdir(staging)).sort((a, b) => (a === MANIFEST ? -1 : b === MANIFEST ? 1 : a.localeCompare(b)))
    const partial = pathInside(dirname(output), `${basename(output)}.partial`)
    // Uncompressed: module archives and provider zips are compressed already.
    await create({ cwd: staging, file: partial, portable: true }, top)
    const written = { size: (await stat(partial)).size, sha256: await sha256Of(partial) }
    await moveInside(dirname(output), partial, output)
    return written
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

/** A bundle unpacked into a folder, its manifest checked against every file in it. */
export interface OpenedBundle {
  folder: string
  manifest: BundleManifest
  /** A file of the bundle, by its path in the manifest (or the bytes from `start` to `end` of it, both included). */
  open(file: BundleFile, range?: { start: number; end: number }): Readable
  read(file: BundleFile): Promise<Buffer>
}

/**
 * Unpacks the bundle at `file` into `folder` (regular files and folders only: links and devices
 * are left out, so a listed file they stand for is missing) and checks it: the manifest's shape,
 * every file it lists present with its size and SHA-256, and nothing it does not list.
 */
export async function openBundle(file: string, folder: string): Promise<OpenedBundle> {
  const refuse = (reason: string) => new InvalidInputError(`This is not a Homeport bundle it can read: ${reason}.`, 'bundle')
  await rm(folder, { recursive: true, force: true })
  await makeFolder(folder)
  try {
    await extract({
      file,
      cwd: folder,
      strict: true,
      filter: (_path, entry) => {
        const type = 'type' in entry ? entry.type : 'File'
        return type === 'File' || type === 'Directory'
      }
    })
  } catch (error) {
    throw refuse(`it is not a tar archive (${(error as Error).message})`)
  }
  let manifest: BundleManifest
  try {
    manifest = checkManifest(JSON.parse(await readFile(join(folder, MANIFEST), 'utf8')) as unknown)
  } catch (error) {
    if (error instanceof InvalidInputError) throw error
    throw refuse(`it has no readable manifest.json (${(error as Error).message})`)
  }
  const listed = manifestFiles(manifest)
  const expected = new Set([MANIFEST, ...listed.map((entry) => entry.path)])
  for (const path of await filesUnder(folder)) if (!expected.has(path)) throw refuse(`it holds ${path}, which its manifest does not list`)
  for (const entry of listed) {
    const path = pathInside(folder, entry.path)
    const size = await stat(path).then((found) => (found.isFile() ? found.size : -1), () => -1)
    if (size === -1) throw refuse(`${entry.path}, which its manifest lists, is missing`)
    if (size !== entry.size) throw refuse(`${entry.path} has ${size} bytes where its manifest says ${entry.size}: it was cut short or changed`)
    const sha256 = await sha256Of(path)
    if (sha256 !== entry.sha256) throw refuse(`${entry.path}'s SHA-256 is ${sha256}, not the ${entry.sha256} its manifest records: it changed since the bundle was written`)
  }
  return {
    folder,
    manifest,
    open: (entry, range) => createReadStream(join(folder, entry.path), range),
    read: (entry) => readFile(join(folder, entry.path))
  }
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true })
  return entries.filter((entry) => !entry.isDirectory()).map((entry) => relative(folder, join(entry.parentPath, entry.name)).split('\\').join('/'))
}

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}
