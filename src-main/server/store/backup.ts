import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { create, extract } from 'tar'
import { CA_KEY_FILE } from '../tls.js'
import { linkInside, makeFolder, moveInside, writeInside } from '../files/folder-writes.js'
import { lockDataDir } from './data-dir-lock.js'
import { openFileStore, type FileStore } from './file-store.js'
import { mirroredFiles, providerFiles } from './store.js'
import { SCHEMAS } from './schema.js'

const MANIFEST = 'homeport-backup.json'
const FORMAT = 2
/**
 * The installation's backup key: it signs the manifests of the backups it makes, and is in none
 * of them, so only this installation can vouch for its own backups.
 */
export const BACKUP_KEY_FILE = 'backup-key'

export interface BackupManifest {
  format: number
  createdAt: string
  schemas: Record<string, number>
  files: Array<{ path: string; size: number; sha256: string }>
  /** HMAC-SHA256 of the manifest without this field, under the backup key (format 2). */
  signature?: string
}

/**
 * What the restore could vouch for. `signed`: this installation made the backup, and nothing in
 * it changed since. `unverified`: its checksums match, which proves it was not damaged by
 * accident, but not who made it: anyone can write a backup whose checksums match (planted team
 * token hashes, altered modules).
 */
export type BackupProvenance = 'signed' | 'unverified'

export interface RestoreOptions {
  /** Restore a backup this installation cannot vouch for (another machine's, an older Homeport's). */
  acceptUnverified?: boolean
}

/** A backup that cannot be restored; nothing was changed. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BackupError'
  }
}

/** A sound backup this installation cannot vouch for; restoring it needs the user's explicit word. */
export class UnverifiedBackupError extends BackupError {}

/**
 * Writes a backup of the data directory to `destination`: a .tar.gz of every record, every
 * archive a version refers to, the admin token and the TLS files, with a manifest of their
 * SHA-256. It is consistent while the server runs: the files are hard-linked into a staging
 * folder while writes wait (a moment), and packed after.
 */
export async function writeBackup(store: FileStore, destination: Writable): Promise<BackupManifest> {
  const staging = join(store.dataDir, 'backups', `.staging-${randomBytes(6).toString('hex')}`)
  const data = join(staging, 'data')
  try {
    await store.snapshot(async () => {
      // Every record folder (uploads in progress and git mirrors are not kept: both are made again).
      for (const folder of store.recordFolders) await linkTree(join(store.dataDir, folder), data, folder, (name) => name.endsWith('.json'))
      const archives = new Set<string>()
      for (const module of await store.modules.all()) for (const version of module.versions) if (version.archive) archives.add(version.archive.sha256)
      for (const provider of await store.providers.all()) for (const sha256 of providerFiles(provider)) archives.add(sha256)
      for (const provider of await store.providerMirror.all()) for (const sha256 of mirroredFiles(provider)) archives.add(sha256)
      for (const sha256 of archives) {
        const archive = store.archives.pathOf(sha256)
        for (const file of [archive, archive.replace(/\.tar\.gz$/, '.docs.json')]) {
          await linkInside(file, data, relative(store.dataDir, file), { orCopy: true }).catch(ignoreMissing)
        }
      }
      // The CA's private key stays on this machine: a backup that leaks must not be able to sign.
      await linkTree(join(store.dataDir, 'tls'), data, 'tls', (name) => name !== CA_KEY_FILE)
      await linkInside(join(store.dataDir, 'admin-token'), data, 'admin-token', { orCopy: true }).catch(ignoreMissing)
    })
    const files: BackupManifest['files'] = []
    for (const path of await listFiles(data)) {
      const full = join(data, path)
      files.push({ path, size: (await stat(full)).size, sha256: await sha256Of(full) })
    }
    const unsigned: BackupManifest = {
      format: FORMAT,
      createdAt: new Date().toISOString(),
      schemas: Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, schema.version])),
      files
    }
    const manifest = { ...unsigned, signature: sign(await ensureBackupKey(store.dataDir), unsigned) }
    await writeInside(staging, MANIFEST, JSON.stringify(manifest, null, 2))
    await pipeline(create({ cwd: staging, gzip: true, portable: true }, [MANIFEST, 'data']), destination)
    return manifest
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

/**
 * Replaces the data directory with a backup, which is checked first: every file against the
 * manifest, and the whole loaded as Homeport would load it (older schemas are upgraded). The
 * current data directory is kept beside it (`<data-dir>.before-restore-<time>`), never deleted.
 * The server must be stopped.
 */
export async function restoreBackup(file: string, dataDir: string, options: RestoreOptions = {}): Promise<{ kept: string | undefined; provenance: BackupProvenance }> {
  await makeFolder(dataDir)
  const unlock = await lockDataDir(dataDir).catch((error: Error) => {
    throw new BackupError(`${error.message} Stop Homeport before restoring.`)
  })
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const temp = `${dataDir}.restoring-${stamp}`
  try {
    await makeFolder(temp)
    try {
      await extract({
        file,
        cwd: temp,
        strict: true,
        // Only what a backup holds: its manifest and files under data/, no links, nothing else.
        filter: (path, entry) => {
          const type = 'type' in entry ? entry.type : 'File'
          return (path === MANIFEST || path.startsWith('data/')) && (type === 'File' || type === 'Directory')
        }
      })
    } catch (error) {
      throw new BackupError(`${basename(file)} is not a Homeport backup (${(error as Error).message}).`)
    }
    const manifest = await readManifest(join(temp, MANIFEST))
    const data = join(temp, 'data')
    const present = new Set(await listFiles(data).catch(() => []))
    for (const entry of manifest.files) {
      const full = join(data, entry.path)
      if (!present.delete(entry.path) || (await sha256Of(full)) !== entry.sha256) {
        throw new BackupError(`The backup is damaged: ${entry.path} is missing or altered. Nothing was restored.`)
      }
    }
    if (present.size > 0) throw new BackupError(`The backup holds files its manifest does not list (${[...present][0]}). Nothing was restored.`)
    const key = await readBackupKey(dataDir)
    const { signature, ...unsigned } = manifest
    const provenance: BackupProvenance = key && signature && signaturesEqual(signature, sign(key, unsigned)) ? 'signed' : 'unverified'
    if (provenance === 'unverified' && !options.acceptUnverified) {
      throw new UnverifiedBackupError(
        `This installation cannot vouch for ${basename(file)}: ${key ? 'it was made by another Homeport installation, or changed since' : 'this data directory has no backup key (it made no backup)'}. ` +
          'Its checksums match, which shows it is not damaged, but not who made it: a forged backup can carry team tokens or modules of its maker’s choosing. ' +
          'Restore it only if you know where it came from, with --accept-unverified. Nothing was restored.'
      )
    }
    const store = await openFileStore(data).catch((error: Error) => {
      throw new BackupError(`The backup does not load: ${error.message} Nothing was restored.`)
    })
    await store.close()

    let kept: string | undefined
    if ((await readdir(dataDir)).some((entry) => entry !== 'homeport.lock')) {
      kept = `${dataDir}.before-restore-${stamp}`
      await moveInside(dirname(dataDir), dataDir, kept)
    } else {
      await rm(dataDir, { recursive: true, force: true })
    }
    // The installation keeps its own backup key, so its next backups are signed as before.
    if (key) await writeInside(data, BACKUP_KEY_FILE, key)
    await moveInside(dirname(dataDir), data, dataDir)
    return { kept, provenance }
  } finally {
    await unlock()
    if (await stat(dataDir).catch(() => undefined)) await rm(join(dataDir, 'homeport.lock'), { force: true })
    await rm(temp, { recursive: true, force: true })
  }
}

async function readManifest(path: string): Promise<BackupManifest> {
  let manifest: BackupManifest
  try {
    manifest = JSON.parse(await readFile(path, 'utf8')) as BackupManifest
  } catch {
    throw new BackupError('The file has no readable Homeport backup manifest.')
  }
  // Format 1 had no signature; it restores as unverified.
  if ((manifest.format !== FORMAT && manifest.format !== 1) || !Array.isArray(manifest.files)) {
    throw new BackupError(`The backup's format (${String(manifest.format)}) is not one this Homeport reads.`)
  }
  return manifest
}

/** The data directory's backup key, if it has one. */
function readBackupKey(dataDir: string): Promise<Buffer | undefined> {
  return readFile(join(dataDir, BACKUP_KEY_FILE)).catch(ignoreMissingValue)
}

/** The data directory's backup key, made on first use. */
async function ensureBackupKey(dataDir: string): Promise<Buffer> {
  const existing = await readBackupKey(dataDir)
  if (existing) return existing
  const key = randomBytes(32)
  await writeInside(dataDir, BACKUP_KEY_FILE, key, { atomic: true })
  return key
}

function sign(key: Buffer, manifest: BackupManifest): string {
  return createHmac('sha256', key).update(JSON.stringify(manifest)).digest('hex')
}

function signaturesEqual(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
}

/** Links every file of `from` that `include` names into `path` inside `staging` (a hard link keeps this exact content even if a record is renamed over later). */
async function linkTree(from: string, staging: string, path: string, include: (name: string) => boolean): Promise<void> {
  const entries = await readdir(from, { withFileTypes: true }).catch(() => [])
  for (const entry of entries) {
    if (entry.isDirectory()) await linkTree(join(from, entry.name), staging, join(path, entry.name), include)
    else if (entry.isFile() && include(entry.name)) await linkInside(join(from, entry.name), staging, join(path, entry.name), { orCopy: true })
  }
}

async function listFiles(root: string): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(relative(root, join(entry.parentPath, entry.name)))
  }
  return files.sort()
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error
}

function ignoreMissingValue(error: NodeJS.ErrnoException): undefined {
  ignoreMissing(error)
  return undefined
}
