import { createHash, createHmac, randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { create } from 'tar'
import { linkInside, writeInside } from '../../files/folder-writes.js'
import { mirroredFiles, providerDocsFiles, providerFiles, type Store } from '../port.js'
import { SCHEMAS } from '../schema.js'
import { ADMIN_TOKEN_FILE, BACKUP_KEY_FILE, BACKUPS_DIR, CA_KEY_FILE, TLS_DIR } from '../../data-dir/layout.js'

export const MANIFEST = 'homeport-backup.json'
export const FORMAT = 2

export interface BackupManifest {
  format: number
  createdAt: string
  schemas: Record<string, number>
  files: Array<{ path: string; size: number; sha256: string }>
  /** HMAC-SHA256 of the manifest without this field, under the backup key (format 2). */
  signature?: string
}

/**
 * Writes a backup of the data directory to `destination`: a .tar.gz of every record, every
 * archive a version refers to, the admin token and the TLS files, with a manifest of their
 * SHA-256. It is consistent while the server runs: the files are hard-linked into a staging
 * folder while writes wait (a moment), and packed after.
 */
/** What a backup reads of the file store: its folder, its records and archives, and a moment no record is written. */
export interface BackupSource extends Pick<Store, 'modules' | 'providers' | 'providerMirror' | 'providerDocs'> {
  readonly dataDir: string
  readonly archives: { pathOf(sha256: string): string }
  /** The folders that hold records, relative to the data directory. */
  readonly recordFolders: readonly string[]
  /** Runs `task` while no record is being written: one consistent state of the folder. */
  snapshot<R>(task: () => Promise<R>): Promise<R>
}

export async function writeBackup(store: BackupSource, destination: Writable): Promise<BackupManifest> {
  const staging = join(store.dataDir, BACKUPS_DIR, `.staging-${randomBytes(6).toString('hex')}`)
  const data = join(staging, 'data')
  try {
    await store.snapshot(async () => {
      // Every record folder (uploads in progress and git mirrors are not kept: both are made again).
      for (const folder of store.recordFolders) await linkTree(join(store.dataDir, folder), data, folder, (name) => name.endsWith('.json'))
      const archives = new Set<string>()
      for (const module of await store.modules.all()) for (const version of module.versions) if (version.archive) archives.add(version.archive.sha256)
      for (const provider of await store.providers.all()) for (const sha256 of providerFiles(provider)) archives.add(sha256)
      for (const provider of await store.providerMirror.all()) for (const sha256 of mirroredFiles(provider)) archives.add(sha256)
      for (const docs of await store.providerDocs.all()) for (const sha256 of providerDocsFiles(docs)) archives.add(sha256)
      for (const sha256 of archives) {
        const archive = store.archives.pathOf(sha256)
        for (const file of [archive, archive.replace(/\.tar\.gz$/, '.docs.json')]) {
          await linkInside(file, data, relative(store.dataDir, file), { orCopy: true }).catch(ignoreMissing)
        }
      }
      // The CA's private key stays on this machine: a backup that leaks must not be able to sign.
      await linkTree(join(store.dataDir, TLS_DIR), data, TLS_DIR, (name) => name !== CA_KEY_FILE)
      await linkInside(join(store.dataDir, ADMIN_TOKEN_FILE), data, ADMIN_TOKEN_FILE, { orCopy: true }).catch(ignoreMissing)
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

/** The data directory's backup key, if it has one. */
export function readBackupKey(dataDir: string): Promise<Buffer | undefined> {
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

export function sign(key: Buffer, manifest: BackupManifest): string {
  return createHmac('sha256', key).update(JSON.stringify(manifest)).digest('hex')
}

/** Links every file of `from` that `include` names into `path` inside `staging` (a hard link keeps this exact content even if a record is renamed over later). */
async function linkTree(from: string, staging: string, path: string, include: (name: string) => boolean): Promise<void> {
  const entries = await readdir(from, { withFileTypes: true }).catch(() => [])
  for (const entry of entries) {
    if (entry.isDirectory()) await linkTree(join(from, entry.name), staging, join(path, entry.name), include)
    else if (entry.isFile() && include(entry.name)) await linkInside(join(from, entry.name), staging, join(path, entry.name), { orCopy: true })
  }
}

export async function listFiles(root: string): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(relative(root, join(entry.parentPath, entry.name)))
  }
  return files.sort()
}

export async function sha256Of(path: string): Promise<string> {
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
