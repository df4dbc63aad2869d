import { UsageError } from '../boot/options.js'
import { openFileStore } from '../store/file/file-store.js'
import { migrateStore } from '../store/migrate.js'
import type { Store } from '../store/port.js'
import { command } from './command.js'

export const migrate = command({
  name: 'migrate',
  synopsis: '--from <data dir | postgres://…> --to <data dir | postgres://…>',
  description: `copies a whole registry between stores (a data directory and a PostgreSQL database, either way), checked
  before and after; the target must be empty, and no Homeport may run on either meanwhile.`,
  options: { from: { type: 'string' }, to: { type: 'string' } },
  async run({ values, positionals }) {
    if (!values.from || !values.to || positionals.length > 0) throw new UsageError('homeport migrate takes --from and --to: a data directory or a postgres:// URL each.')
    const from = await openStoreAt(values.from)
    try {
      const to = await openStoreAt(values.to)
      try {
        const report = await migrateStore(from, to, (message) => console.log(message))
        const total = Object.values(report.records).reduce((sum, count) => sum + count, 0)
        console.log(`Migrated ${total} records and ${report.archives} archives from ${redacted(values.from)} to ${redacted(values.to)}, and checked them.`)
        console.log(
          /^postgres/.test(values.to)
            ? `Now start Homeport with --database ${redacted(values.to)} (HOMEPORT_DATABASE_URL). Its data directory still keeps the admin token, TLS files and caches; give every replica the same HOMEPORT_ADMIN_TOKEN.`
            : `Now start Homeport with --data-dir ${values.to}.`
        )
      } finally {
        await to.close()
      }
    } finally {
      await from.close()
    }
  }
})

/** A data directory's file store, or a PostgreSQL database's. */
async function openStoreAt(location: string): Promise<Store> {
  return /^postgres(ql)?:\/\//.test(location) ? (await import('../store/postgres/pg-store.js')).openPostgresStore(location) : openFileStore(location)
}

/** A database URL without its password, for output. */
function redacted(location: string): string {
  return location.replace(/^(postgres(?:ql)?:\/\/[^:/@]+):[^@]*@/, '$1:***@')
}
