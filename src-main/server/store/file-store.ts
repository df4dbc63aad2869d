import { chmod, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Collection } from './collection.js'
import { lockDataDir } from './data-dir-lock.js'
import type { InstallationRecord, OrganizationRecord } from './records.js'
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js'
import { ORGANIZATION_NAME, TEAM_ID, TOKEN_HASH, organizationNameKey, type Store } from './store.js'

type InstallationFileRecord = InstallationRecord & { id: string }
const INSTALLATION_ID = 'installation-main'

/**
 * Opens (creating it if needed) the data directory:
 *
 *     homeport.lock                  pid of the Homeport using it
 *     installation/installation-main.json
 *     organizations/<org-id>.json    an organization with its teams and settings
 *
 * Each record is its own file, so one write costs in proportion to that record.
 */
export async function openFileStore(dataDir: string): Promise<Store> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const unlock = await lockDataDir(dataDir)
  try {
    const installation = new Collection<InstallationFileRecord>('installation', join(dataDir, 'installation'), {
      schemaVersion: SCHEMA_VERSION,
      migrations: MIGRATIONS
    })
    const organizations = new Collection<OrganizationRecord>('organizations', join(dataDir, 'organizations'), {
      schemaVersion: SCHEMA_VERSION,
      migrations: MIGRATIONS,
      unique: {
        [ORGANIZATION_NAME]: (org) => organizationNameKey(org.name),
        [TOKEN_HASH]: (org) => org.teams.flatMap((team) => (team.token ? [team.token.hash] : [])),
        [TEAM_ID]: (org) => org.teams.map((team) => team.id)
      }
    })
    await installation.load()
    await organizations.load()
    let current = await installation.get(INSTALLATION_ID)
    if (!current) current = await installation.create(newInstallation())
    await chmod(dataDir, 0o700).catch(() => undefined)

    return {
      dataDir,
      organizations,
      installation: () => current as InstallationRecord,
      async updateInstallation(change) {
        const { record } = await installation.update(INSTALLATION_ID, change)
        current = record
        return record
      },
      async close() {
        await Promise.all([installation.drain(), organizations.drain()])
        await unlock()
      }
    }
  } catch (error) {
    await unlock()
    throw error
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
