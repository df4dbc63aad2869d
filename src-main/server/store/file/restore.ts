import { timingSafeEqual } from 'node:crypto'
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { extract } from 'tar'
import { makeFolder, moveInside, writeInside } from '../../files/folder-writes.js'
import { lockDataDir } from '../../data-dir/lock.js'
import { BACKUP_KEY_FILE, LOCK_FILE } from '../../data-dir/layout.js'
import { FORMAT, listFiles, MANIFEST, readBackupKey, sha256Of, sign, type BackupManifest } from './backup.js'
import { openFileStore } from './file-store.js'

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
    if ((await readdir(dataDir)).some((entry) => entry !== LOCK_FILE)) {
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
    if (await stat(dataDir).catch(() => undefined)) await rm(join(dataDir, LOCK_FILE), { force: true })
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

function signaturesEqual(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
}
