import { isDeepStrictEqual } from 'node:util'
import type { Identified } from './engine/collection.js'
import { collectionSpecs, type CollectionSpec, type RecordStores } from './engine/collections.js'
import type { RecordStore, Store } from './port.js'

/**
 * The collections a migration copies, by their name in the Store: every one of the one list the
 * stores are built from (the installation record goes on its own), so a new collection is never
 * left behind (the gate's and the provider docs' once were).
 */
const COPIED = Object.keys(collectionSpecs()).filter((name): name is keyof RecordStores => name !== 'installation')

export class MigrationError extends Error {}

export interface MigrationReport {
  records: Record<keyof RecordStores, number>
  archives: number
}

/**
 * Copies a whole registry from one store to another through the store port (the file store to
 * PostgreSQL, or back): the installation record (its signing key among it, so links signed before
 * stay good), every record of every collection, and every archive with its documentation. Checked
 * before, like a restore (each record against its collection's rules, the target empty), and after
 * (every record and archive read back from the target and compared).
 */
export async function migrateStore(from: Store, to: Store, progress: (message: string) => void = () => undefined): Promise<MigrationReport> {
  const specs = collectionSpecs()
  for (const name of COPIED) {
    if ((await to[name].all()).length > 0) throw new MigrationError(`The target already holds a registry (its ${specs[name].name} are not empty): migrate into an empty database or data directory.`)
  }
  if ((await to.archives.list()).length > 0) throw new MigrationError('The target already holds archives: migrate into an empty database or data directory.')

  const records = {} as MigrationReport['records']
  const source = from.installation()
  await to.updateInstallation((draft) => Object.assign(draft, structuredClone(source)))
  for (const name of COPIED) {
    records[name] = await copyCollection(from[name], to[name], specs[name] as CollectionSpec<Identified>)
    progress(`Copied ${records[name]} ${specs[name].name} records.`)
  }
  const hashes = (await from.archives.list()).sort()
  for (const [index, sha256] of hashes.entries()) {
    const copied = await to.archives.put(from.archives.read(sha256), Number.MAX_SAFE_INTEGER)
    if (copied.sha256 !== sha256) throw new MigrationError(`The archive ${sha256} reads back as ${copied.sha256}: the source is damaged.`)
    const docs = await from.archives.readDocs(sha256)
    if (docs !== undefined) await to.archives.writeDocs(sha256, docs)
    if ((index + 1) % 100 === 0 || index + 1 === hashes.length) progress(`Copied ${index + 1} of ${hashes.length} archives.`)
  }

  // After: everything reads back from the target as it was in the source.
  if (!isDeepStrictEqual(to.installation(), from.installation())) throw new MigrationError('The installation record differs after the copy.')
  for (const name of COPIED) {
    const byId = (records: readonly Identified[]) => [...records].sort((a, b) => a.id.localeCompare(b.id))
    if (!isDeepStrictEqual(byId(await to[name].all()), byId(await from[name].all()))) throw new MigrationError(`The ${specs[name].name} records differ after the copy.`)
  }
  if (!isDeepStrictEqual((await to.archives.list()).sort(), hashes)) throw new MigrationError('The archives differ after the copy.')
  return { records, archives: hashes.length }
}

async function copyCollection(from: RecordStore<Identified>, to: RecordStore<Identified>, spec: CollectionSpec<Identified>): Promise<number> {
  const records = await from.all()
  for (const record of records) {
    const problem = spec.options.check?.(record)
    if (problem) throw new MigrationError(`${spec.name} ${record.id} is not sound: ${problem}. Nothing was changed in the source.`)
    await to.create(structuredClone(record))
  }
  return records.length
}
