import { BY_ORGANIZATION, INGESTING, type Store } from '../store/port.js'
import type { DomainEvents } from './core/events.js'
import { recordId } from './modules/downloads.js'

/**
 * Brings the store back to a consistent state after a crash, at start, before the server listens:
 * modules of an organization that was being destroyed, counts of modules that are gone, and
 * versions whose ingest was interrupted (announced again, so they are ingested again). The VCS
 * builds resume their own half-built versions (vcs/builds.ts), and archives no version refers to go
 * in the archive sweep that follows the start's search index build (boot/start-server.ts): listing every
 * archive and looking each up took 0.7 s of a start at 100,000 modules.
 */
export async function recover(store: Store, events: DomainEvents): Promise<void> {
  // Modules are found through the indexes, not read one by one: the server waits for this to listen,
  // and a file store whose indexes were saved reads a module only when it is asked for.
  const organizations = new Set((await store.organizations.all()).map((org) => org.id))
  for (const organizationId of await store.modules.groupKeys(BY_ORGANIZATION)) {
    if (organizations.has(organizationId)) continue
    for (const module of await store.modules.listBy(BY_ORGANIZATION, organizationId)) await store.modules.delete(module.id)
  }
  // By their names: reading every download record would read a file per module counted, at every start.
  const counted = new Set((await store.modules.ids()).map(recordId))
  for (const id of await store.downloads.ids()) {
    if (!counted.has(id)) await store.downloads.delete(id)
  }
  for (const module of await store.modules.listBy(INGESTING, 'all')) {
    for (const version of module.versions) {
      if (version.status === 'reg_ingressing') await events.emit('archiveStored', { organizationId: module.organizationId, moduleId: module.id, versionId: version.id })
    }
  }
}
