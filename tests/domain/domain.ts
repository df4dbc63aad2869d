import { Readable } from 'node:stream'
import type { Caller } from '../../src-main/server/domain/core/access.js'
import { Background } from '../../src-main/server/domain/core/background.js'
import { jobTable } from '../../src-main/server/boot/jobs.js'
import { parseServeOptions } from '../../src-main/server/boot/options.js'
import { createServices } from '../../src-main/server/boot/services.js'
import type { Services } from '../../src-main/server/domain/services.js'
import { openMemoryStore } from '../../src-main/server/store/memory/memory-store.js'
import { moduleArchive } from '../helpers/archives.js'

export const ADMIN: Caller = { kind: 'site-admin' }

export interface Domain {
  services: Services
  background: Background
  /** A team of `org` and the caller it is. */
  team(org: string, name: string, manageModules?: boolean): Promise<Caller>
  owners(org: string): Promise<Caller>
  /** Stores a module archive of `files` for a version's upload link. */
  /** Uploads a module archive: its files (packed now), or an archive packed before. */
  upload(objectId: string, files: Record<string, string> | Buffer): Promise<void>
  close(): Promise<void>
}

/** The domain services over the memory store: no HTTP, no disk, milliseconds a test. */
export async function domain(edition: 'hosted' | 'self-hosted' = 'hosted'): Promise<Domain> {
  const store = await openMemoryStore()
  const background = new Background({ jobs: jobTable({ vcsPollIntervalMs: 60_000 }), log: () => undefined })
  const services = createServices(store, background, {
    ...parseServeOptions([], {}),
    edition,
    adminToken: 'domain-test-admin-token-0123456789',
    mirrorsDir: '/nonexistent',
    bundlesDir: '/nonexistent'
  })
  const callerOf = (org: { id: string }, teamId: string): Caller => ({ kind: 'team', organizationId: org.id, teamId })
  return {
    services,
    background,
    async team(org, name, manageModules = false) {
      const { org: record, team } = await services.teams.create(ADMIN, org, { name, manageModules })
      return callerOf(record, team.id)
    },
    async owners(org) {
      const record = await services.organizations.read(ADMIN, org)
      return callerOf(record, record.teams.find((team) => team.owners)!.id)
    },
    async upload(objectId, files) {
      const archive = Buffer.isBuffer(files) ? files : await moduleArchive(files)
      await services.uploads.receive(objectId, Readable.from([archive]), archive.length)
    },
    async close() {
      await background.close()
      await services.ingest.close()
      await store.close()
    }
  }
}
