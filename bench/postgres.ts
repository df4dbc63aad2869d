import { mkdtemp } from 'node:fs/promises'
import pg from 'pg'
import { join } from 'node:path'
import { findPostgres, postgresDatabases, startPostgres } from '../tests/helpers/postgres.js'
import { busyTicks, processTicks, run, startHomeport } from './lib.js'
import { measureProviderDownload } from './provider-download.js'
import { wrk } from './protocol.js'
import { createTime, generatedName, generateRegistry, round } from './store.js'

export interface PostgresFigures {
  /** Figure 9: creating a version at 1,000 and at 100,000 versions, median ms. */
  create: { smallMs: number; largeMs: number; ratio: number }
  /**
   * Figure 10: list-versions reads per second through one replica and through two on one database;
   * and the most two could reach on this machine (see measurePostgres), from what the rest cost per
   * answer (wrk, PostgreSQL, the kernel's loopback) against the one replica.
   */
  replicas: { one: number; two: number; ratio: number; cpus: number; restPerReplica: number; ceiling: number }
  /** Figure 11: a 100 MB file downloaded from each store, MB/s; PostgreSQL's first download too (its archive cache cold). */
  download: { filesMbPerS: number; postgresMbPerS: number; postgresFirstMbPerS: number; ratio: number }
}

/** A registry generated as files (store.ts), carried into a new database by `homeport migrate`. */
async function registryIn(databases: ReturnType<typeof postgresDatabases>, workDir: string, name: string, modules: number, versions: number): Promise<string> {
  const dir = join(workDir, name)
  await generateRegistry(dir, modules, versions)
  const database = await databases.create()
  await run(process.execPath, ['out/main/cli.js', 'migrate', '--from', dir, '--to', database], { maxBuffer: 16 * 1024 * 1024 })
  return database
}

/**
 * Figures 9–11, on a PostgreSQL server the benchmark starts (Debian's, as the tests do): the write
 * path at 1,000 and 100,000 versions; protocol reads through two replicas against one (each replica
 * pinned to a CPU of its own, wrk unpinned); and a 100 MB download from PostgreSQL against the file
 * store. Undefined, and said, where PostgreSQL is not installed.
 *
 * With one replica, its CPU is the limit and the rest (wrk, PostgreSQL, the kernel) run beside it.
 * With two on two CPUs, the rest has no CPU of its own: if it costs r of a replica's CPU time per
 * answer, two CPUs give about 2 / (1 + r) times one replica's answers at most, however well replicas
 * scale (about: r falls a little as the load grows, each read and write carrying more). That ceiling
 * is measured and shown beside the figure; the faster a replica answers, the larger r and the lower
 * the ceiling.
 */
export async function measurePostgres(workDir: string, cpus: number, log: (line: string) => void): Promise<PostgresFigures | undefined> {
  const bin = findPostgres()
  if (!bin) {
    log('  PostgreSQL is not installed here: figures 9–11 are left out.')
    return undefined
  }
  const server = await startPostgres(bin)
  const databases = postgresDatabases(server.url)
  try {
    log('  generating 50 × 20 and 5,000 × 20 versions, and migrating them into PostgreSQL…')
    const small = await registryIn(databases, workDir, 'pg-1k', 50, 20)
    const large = await registryIn(databases, workDir, 'pg-100k', 5000, 20)
    const smallMs = await createTime(await mkdtemp(join(workDir, 'pg-data-')), 40, ['--database', small])
    const largeMs = await createTime(await mkdtemp(join(workDir, 'pg-data-')), 40, ['--database', large])

    log('  protocol reads through one replica, then two…')
    const path = `/api/registry/v1/modules/bench/${generatedName(1)}/aws/versions`
    const one = await startHomeport(1, await mkdtemp(join(workDir, 'pg-replica-')), ['--database', large])
    let single: number
    let restPerReplica: number
    try {
      await wrk(`${one.url}${path}`, 1, '0-1')
      const before = { replica: await processTicks(one.child.pid!), all: await busyTicks() }
      single = (await wrk(`${one.url}${path}`, 5, '0-1')).rps
      const replica = (await processTicks(one.child.pid!)) - before.replica
      restPerReplica = ((await busyTicks()) - before.all - replica) / replica
    } finally {
      await one.stop()
    }
    const replicas = [await startHomeport(0, await mkdtemp(join(workDir, 'pg-replica-')), ['--database', large]), await startHomeport(1, await mkdtemp(join(workDir, 'pg-replica-')), ['--database', large])]
    let both: number
    try {
      for (const replica of replicas) await wrk(`${replica.url}${path}`, 1, '0-1', 16)
      const results = await Promise.all(replicas.map((replica) => wrk(`${replica.url}${path}`, 5, '0-1', 16)))
      both = results.reduce((sum, result) => sum + result.rps, 0)
    } finally {
      for (const replica of replicas) await replica.stop()
    }

    log('  a 100 MB download from each store…')
    const fromFiles = await startHomeport(1, await mkdtemp(join(workDir, 'files-download-')), ['--max-archive-size', '200'])
    const files = await measureProviderDownload(fromFiles, workDir).finally(() => fromFiles.stop())
    const downloadDatabase = await databases.create()
    const fromPostgres = await startHomeport(1, await mkdtemp(join(workDir, 'pg-download-')), ['--max-archive-size', '200', '--database', downloadDatabase])
    // The upload leaves 100 MB of dead chunk rows (staged, then renamed): vacuumed first, so that autovacuum does not share the two cores with the downloads.
    const settle = () => vacuum(downloadDatabase)
    const postgres = await measureProviderDownload(fromPostgres, workDir, { settle }).finally(() => fromPostgres.stop())
    return {
      create: { smallMs: round(smallMs), largeMs: round(largeMs), ratio: round(largeMs / smallMs) },
      replicas: { one: Math.round(single), two: Math.round(both), ratio: round(both / single), cpus, restPerReplica: round(restPerReplica), ceiling: round(Math.min(cpus, 2) / (1 + restPerReplica)) },
      download: { filesMbPerS: files.homeportMbPerS, postgresMbPerS: postgres.homeportMbPerS, postgresFirstMbPerS: postgres.firstMbPerS, ratio: round(postgres.homeportMbPerS / files.homeportMbPerS) }
    }
  } finally {
    await server.stop()
  }
}

async function vacuum(database: string): Promise<void> {
  const client = new pg.Client({ connectionString: database })
  await client.connect()
  try {
    await client.query('VACUUM ANALYZE')
  } finally {
    await client.end()
  }
}
