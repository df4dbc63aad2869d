import { readdir, readFile } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'

/** One zip of a `terraform providers mirror` folder, with the hashes its `<version>.json` lists. */
export interface FolderPackage {
  hostname: string
  namespace: string
  type: string
  version: string
  /** `<os>_<arch>` */
  platform: string
  hashes: string[]
  path: string
}

/**
 * The packages of a folder written by `terraform providers mirror` (shared/research/providers.md §6):
 * `<host>/<namespace>/<type>/<version>.json` lists each platform's zip (`url`, beside it) and its
 * hashes. Only the JSON is trusted for what a zip is; the zips are checked against it on import.
 * A zip named outside its provider's folder is refused, so a crafted index cannot read elsewhere.
 */
export async function readMirrorFolder(dir: string): Promise<FolderPackage[]> {
  const root = resolve(dir)
  const packages: FolderPackage[] = []
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.json') || entry.name === 'index.json') continue
    const folder = entry.parentPath
    const parts = relative(root, folder).split(sep)
    if (parts.length !== 3) continue
    const [hostname, namespace, type] = parts as [string, string, string]
    const version = entry.name.slice(0, -'.json'.length)
    let archives: Record<string, { url?: unknown; hashes?: unknown }>
    try {
      archives = (JSON.parse(await readFile(join(folder, entry.name), 'utf8')) as { archives: typeof archives }).archives
      if (typeof archives !== 'object' || archives === null) throw new Error('it has no "archives" object')
    } catch (error) {
      throw new Error(`${join(folder, entry.name)} is not a <version>.json of terraform providers mirror: ${(error as Error).message}`, { cause: error })
    }
    for (const [platform, archive] of Object.entries(archives)) {
      const path = typeof archive.url === 'string' ? resolve(folder, archive.url) : ''
      if (!path || relative(folder, path).includes(sep) || relative(folder, path).startsWith('..')) {
        throw new Error(`${join(folder, entry.name)}: the ${platform} archive's url must name a zip beside it, not ${JSON.stringify(archive.url)}.`)
      }
      const hashes = Array.isArray(archive.hashes) ? archive.hashes.filter((hash): hash is string => typeof hash === 'string') : []
      packages.push({ hostname, namespace, type, version, platform, hashes, path })
    }
  }
  return packages.sort((a, b) => a.path.localeCompare(b.path))
}
