import { chmod, mkdir, rm, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Collection } from './collection.js'
import { lockDataDir } from './data-dir-lock.js'
import { writeBackup } from './backup.js'
import { unwritableCause, WritesRefusedError } from './errors.js'
import { ArchiveStore } from './archive-store.js'
import type { DownloadRecord, InstallationRecord, ModuleRecord, OrganizationRecord, UpstreamCacheRecord } from './records.js'
import { SCHEMAS } from './schema.js'
import { checkDownloads, checkModule, checkOrganization, checkUpstreamAnswer } from './record-checks.js'
import {
  BY_ARCHIVE,
  BY_ORGANIZATION,
  MODULE_KEY,
  ORGANIZATION_NAME,
  TEAM_ID,
  TOKEN_HASH,
  VCS_CONNECTION_ID,
  VCS_MODULES,
  VCS_TOKEN_ID,
  VERSION_ID,
  WEBHOOK_ID,
  moduleKey,
  organizationNameKey,
  type Store
} from './store.js'

type InstallationFileRecord = InstallationRecord & { id: string }
const INSTALLATION_ID = 'installation-main'

/**
 * Opens (creating it if needed) the data directory:
 *
 *     homeport.lock                  pid of the Homeport using it
 *     installation/installation-main.json
 *     organizations/<org-id>.json    an organization with its teams and settings
 *     modules/<module-id>.json       a registry module (one provider) with its versions
 *     downloads/dl-<id>.json         download counts of a module, per day
 *     upstream-cache/up-<hash>.json  answers of the upstream public registry, for offline use
 *     archives/<ab>/<sha256>.tar.gz  module archives, content-addressed, and their parsed docs
 *     uploads/                       uploads in progress
 *
 * Each record is its own file, so one write costs in proportion to that record. When the
 * directory cannot be written at all (a full disk, a read-only mount), the store opens read-only:
 * it changes no file, takes no lock (nobody can write there), and refuses every write with the
 * reason, so that reads go on being served.
 */
export async function openFileStore(dataDir: string): Promise<Store> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const writesRefused = await probeWrites(dataDir)
  const unlock = writesRefused ? () => Promise.resolve() : await lockDataDir(dataDir)
  try {
    const installation = new Collection<InstallationFileRecord>('installation', join(dataDir, 'installation'), { schema: SCHEMAS.installation, writesRefused })
    const organizations = new Collection<OrganizationRecord>('organizations', join(dataDir, 'organizations'), {
      schema: SCHEMAS.organizations,
      check: checkOrganization,
      writesRefused,
      unique: {
        [ORGANIZATION_NAME]: (org) => organizationNameKey(org.name),
        [TOKEN_HASH]: (org) => org.teams.flatMap((team) => (team.token ? [team.token.hash] : [])),
        [TEAM_ID]: (org) => org.teams.map((team) => team.id),
        [VCS_CONNECTION_ID]: (org) => org.vcsConnections.map((connection) => connection.id),
        [VCS_TOKEN_ID]: (org) => org.vcsConnections.map((connection) => connection.tokenId)
      }
    })
    const modules = new Collection<ModuleRecord>('modules', join(dataDir, 'modules'), {
      schema: SCHEMAS.modules,
      check: checkModule,
      writesRefused,
      unique: {
        [MODULE_KEY]: moduleKey,
        [VERSION_ID]: (module) => module.versions.map((version) => version.id),
        [WEBHOOK_ID]: (module) => (module.vcsRepo ? [module.vcsRepo.webhookId] : [])
      },
      groups: {
        [BY_ORGANIZATION]: (module) => module.organizationId,
        [BY_ARCHIVE]: (module) => module.versions.flatMap((version) => (version.archive ? [version.archive.sha256] : [])),
        // Every module published from VCS, for the watcher.
        [VCS_MODULES]: (module) => (module.vcsRepo ? ['all'] : [])
      }
    })
    const downloads = new Collection<DownloadRecord>('downloads', join(dataDir, 'downloads'), { schema: SCHEMAS.downloads, check: checkDownloads, writesRefused })
    const upstreamCache = new Collection<UpstreamCacheRecord>(
      'upstream-cache',
      join(dataDir, 'upstream-cache'),
      { schema: SCHEMAS.upstreamCache, check: checkUpstreamAnswer, writesRefused }
    )
    const archives = new ArchiveStore(dataDir, writesRefused)
    await installation.load()
    await organizations.load()
    await modules.load()
    await downloads.load()
    await upstreamCache.load()
    await archives.open()
    // What an interrupted backup left behind.
    if (!writesRefused) await rm(join(dataDir, 'backups'), { recursive: true, force: true })
    let current = await installation.get(INSTALLATION_ID)
    if (!current) current = await installation.create(newInstallation())
    await chmod(dataDir, 0o700).catch(() => undefined)

    const store: Store = {
      dataDir,
      writesRefused,
      organizations,
      modules,
      downloads,
      upstreamCache,
      archives,
      installation: () => current as InstallationRecord,
      revision: () => installation.revision + organizations.revision + modules.revision,
      async updateInstallation(change) {
        const { record } = await installation.update(INSTALLATION_ID, change)
        current = record
        return record
      },
      snapshot<R>(task: () => Promise<R>): Promise<R> {
        const collections: Array<{ hold: <T>(work: () => Promise<T>) => Promise<T> }> = [installation, organizations, modules, downloads, upstreamCache]
        const holdAll = (index: number): Promise<R> => (index === collections.length ? task() : collections[index]!.hold(() => holdAll(index + 1)))
        return holdAll(0)
      },
      async backup(destination) {
        await writeBackup(store, destination)
      },
      async close() {
        await Promise.all([installation.drain(), organizations.drain(), modules.drain(), downloads.drain(), upstreamCache.drain()])
        await unlock()
      }
    }
    return store
  } catch (error) {
    await unlock()
    throw error
  }
}

/** Whether anything can be written in the data directory now; if not, the refusal that says why. */
async function probeWrites(dataDir: string): Promise<WritesRefusedError | undefined> {
  const probe = join(dataDir, `.write-probe-${process.pid}`)
  try {
    await writeFile(probe, 'probe')
    return undefined
  } catch (error) {
    const cause = unwritableCause(error)
    if (!cause) throw error
    return new WritesRefusedError(cause)
  } finally {
    await unlink(probe).catch(() => undefined)
  }
}

function newInstallation(): InstallationFileRecord {
  const now = new Date().toISOString()
  return {
    id: INSTALLATION_ID,
    installationId: randomBytes(8).toString('hex'),
    createdAt: now,
    signingKey: randomBytes(32).toString('base64url'),
    costEstimationEnabled: false,
    defaultDataRetentionPolicy: { id: 'drp-default', kind: 'dont-delete', createdAt: now }
  }
}
