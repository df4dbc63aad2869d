import { chmod, rm, unlink } from 'node:fs/promises'
import { makeFolder, writeInside } from '../../files/folder-writes.js'
import { join } from 'node:path'
import { ArchiveStore } from './archive-store.js'
import { writeBackup } from './backup.js'
import { everyCollection, holdingWrites, makeCollections, storeOver } from '../engine/collections.js'
import { lockDataDir } from '../../data-dir/lock.js'
import { unwritableCause, WritesRefusedError } from '../errors.js'
import { RecordFiles } from './record-files.js'
import type { Store } from '../port.js'
import { BACKUPS_DIR, writeProbeFile } from '../../data-dir/layout.js'

/** What the file store knows beyond the port: its folder, and how to take a consistent copy of it (backups). */
export interface FileStore extends Store {
  readonly dataDir: string
  readonly archives: ArchiveStore
  /** The folders that hold records, relative to the data directory. */
  readonly recordFolders: readonly string[]
  /** Runs `task` while no record is being written (writes wait): one consistent state of the folder. */
  snapshot<R>(task: () => Promise<R>): Promise<R>
}

/**
 * Opens (creating it if needed) the data directory:
 *
 *     homeport.lock                  pid of the Homeport using it
 *     installation/installation-main.json
 *     organizations/<org-id>.json    an organization with its teams and settings
 *     modules/<module-id>.json       a registry module (one provider) with its versions
 *     downloads/dl-<id>.json         download counts of a module, per day
 *     upstream-cache/up-<hash>.json  answers of the upstream public registry, for offline use
 *     <folder>/saved/indexes         a folder's indexes at the last clean close (saved-index-file.ts)
 *     archives/<ab>/<sha256>.tar.gz  module archives, content-addressed, and their parsed docs
 *     uploads/                       uploads in progress
 *
 * Each record is its own file, so one write costs in proportion to that record. When the
 * directory cannot be written at all (a full disk, a read-only mount), the store opens read-only:
 * it changes no file, takes no lock (nobody can write there), and refuses every write with the
 * reason, so that reads go on being served.
 */
export async function openFileStore(dataDir: string): Promise<FileStore> {
  await makeFolder(dataDir, undefined, 0o700)
  const writesRefused = await probeWrites(dataDir)
  const unlock = writesRefused ? () => Promise.resolve() : await lockDataDir(dataDir)
  try {
    const collections = makeCollections((folder) => new RecordFiles(join(dataDir, folder), writesRefused), writesRefused)
    const archives = new ArchiveStore(dataDir, writesRefused)
    await archives.open()
    // What an interrupted backup left behind.
    if (!writesRefused) await rm(join(dataDir, BACKUPS_DIR), { recursive: true, force: true })
    const fileStore: FileStore = {
      ...(await storeOver(collections, archives, {
        writesRefused,
        backup: (destination) => writeBackup(fileStore, destination).then(() => undefined),
        release: unlock
      })),
      dataDir,
      archives,
      recordFolders: everyCollection(collections).map((collection) => collection.name),
      snapshot: (task) => holdingWrites(collections, task)
    }
    await chmod(dataDir, 0o700).catch(() => undefined)
    return fileStore
  } catch (error) {
    await unlock()
    throw error
  }
}

/** Whether anything can be written in the data directory now; if not, the refusal that says why. */
async function probeWrites(dataDir: string): Promise<WritesRefusedError | undefined> {
  const probe = join(dataDir, writeProbeFile(process.pid))
  try {
    await writeInside(dataDir, probe, 'probe')
    return undefined
  } catch (error) {
    const cause = unwritableCause(error)
    if (!cause) throw error
    return new WritesRefusedError(cause)
  } finally {
    await unlink(probe).catch(() => undefined)
  }
}
