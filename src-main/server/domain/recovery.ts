import { BY_ORGANIZATION, INGESTING, type Store } from '../store/port.js'
import type { ArchiveKeeper } from './archives/archive-keeper.js'
import type { DomainEvents } from './core/events.js'

/**
 * Brings the store back to a consistent state after a crash, at start: modules of an
 * organization that was being destroyed, counts of modules that are gone, archives no version
 * refers to, and versions whose ingest was interrupted (announced again, so they are ingested
 * again). The VCS builds resume their own half-built versions (vcs/builds.ts).
 */
export async function recover(store: Store, archives: ArchiveKeeper, events: DomainEvents): Promise<void> {
  // Modules are found through the indexes, not read one by one: the server waits for this to listen,
  // and a file store whose indexes were saved reads a module only when it is asked for.
  const organizations = new Set((await store.organizations.all()).map((org) => org.id))
  for (const organizationId of await store.modules.groupKeys(BY_ORGANIZATION)) {
    if (organizations.has(organizationId)) continue
    for (const module of await store.modules.listBy(BY_ORGANIZATION, organizationId)) await store.modules.delete(module.id)
  }
  const modules = new Set(await store.modules.ids())
  for (const record of await store.downloads.all()) {
    if (!modules.has(record.moduleId)) await store.downloads.delete(record.id)
  }
  await archives.release(await store.archives.list())
  for (const module of await store.modules.listBy(INGESTING, 'all')) {
    for (const version of module.versions) {
      if (version.status === 'reg_ingressing') await events.emit('archiveStored', { organizationId: module.organizationId, moduleId: module.id, versionId: version.id })
    }
  }
}
