import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { findPostgres, postgresDatabases, startPostgres } from '../tests/helpers/postgres.js'
import { measureModuleList, measureModulePage, type GuiFigure } from './gui.js'
import { ADMIN_TOKEN, median, run, startHomeport, type Started } from './lib.js'
import { generatedId, generatedName, publishTemplate } from './store.js'

/** Versions per module in the growth registries. */
const GROWTH_VERSIONS = 10
/** The versions of the first generated module (`generated-000001`), whose page figure 15 shows. */
const MANY_VERSIONS = 500
/** The words generated modules are described by: a few common, most rare, as in a real registry's READMEs. */
const TOPICS = ['network', 'storage', 'cluster', 'database', 'queue', 'cache', 'gateway', 'identity', 'logging', 'monitoring', 'backup', 'firewall', 'dns', 'certificate', 'secrets', 'registry', 'pipeline', 'function', 'bucket', 'subnet']
const RESOURCES = ['aws_s3_bucket', 'aws_vpc', 'aws_subnet', 'aws_iam_role', 'aws_lambda_function', 'aws_sqs_queue', 'aws_rds_cluster', 'aws_route53_record', 'aws_kms_key', 'aws_cloudwatch_log_group']

/** A word of its own for module `m` (letters only, as a README's would be): `m` in base 26. */
function wordOf(m: number): string {
  let word = ''
  for (let rest = m + 26 * 26; rest > 0; rest = Math.floor(rest / 26)) word = String.fromCharCode(97 + (rest % 26)) + word
  return `zed${word}`
}

/**
 * A registry of `modules` × `versions` for the growth figures: one module is published through the
 * API, then its record is copied with new ids, names and versions (as figure 4's generator does), and
 * each module's latest version gets documentation of its own (a description, inputs, outputs,
 * resources and a README with words of its own and common ones), written where ingest writes it, so
 * that a search reads as many distinct words as such a registry holds. Publishing 1,000,000 versions
 * through HTTP would take hours; what is measured afterwards goes through the API. Each latest version's
 * archive is a file of its own (a few bytes, named by their hash, as every archive is), so that
 * `homeport migrate` carries its documentation into PostgreSQL with it.
 */
export async function generateGrowthRegistry(dataDir: string, modules: number, versions = GROWTH_VERSIONS): Promise<void> {
  const { modulesDir, file, version } = await publishTemplate(dataDir)
  const docsPath = (sha256: string) => join(dataDir, 'archives', sha256.slice(0, 2), `${sha256}.docs.json`)
  const docs = JSON.parse(await readFile(docsPath(version.archive.sha256), 'utf8')) as {
    description: string
    root: { readme: string; inputs: Array<Record<string, unknown>>; outputs: Array<Record<string, unknown>>; resources: Array<Record<string, unknown>> }
  }
  for (let m = 1; m < modules; m++) {
    const id = generatedId(m)
    const own = wordOf(m)
    const topic = TOPICS[m % TOPICS.length]!
    const archive = gzipSync(`generated module ${m}\n`)
    const sha256 = createHash('sha256').update(archive).digest('hex')
    const described = {
      ...docs,
      description: `A ${topic} module for ${own} workloads`,
      root: {
        ...docs.root,
        readme: `# ${own}\n\nCreates the ${topic} pieces a ${own} team needs: ${TOPICS.slice(0, 1 + (m % 7)).join(', ')}.\n`,
        inputs: [{ ...docs.root.inputs[0], name: `${own}_name`, description: `The ${topic} name` }, ...docs.root.inputs.slice(1)],
        outputs: [{ ...docs.root.outputs[0], name: `${topic}_id`, description: `The ${own} id` }],
        resources: [{ ...docs.root.resources[0], type: RESOURCES[m % RESOURCES.length] }]
      }
    }
    await mkdir(join(dataDir, 'archives', sha256.slice(0, 2)), { recursive: true })
    await writeFile(docsPath(sha256), JSON.stringify(described))
    await writeFile(docsPath(sha256).replace(/\.docs\.json$/, '.tar.gz'), archive)
    const record = {
      ...file.record,
      id,
      name: generatedName(m),
      versions: Array.from({ length: m === 1 ? MANY_VERSIONS : versions }, (_, v) => ({
        ...version,
        id: `modver-G${m.toString(36)}x${v.toString(36)}`,
        version: `1.${v}.0`,
        description: described.description,
        archive: v === (m === 1 ? MANY_VERSIONS : versions) - 1 ? { ...version.archive, sha256, size: archive.length } : version.archive
      }))
    }
    await writeFile(join(modulesDir, `${id}.json`), JSON.stringify({ schemaVersion: file.schemaVersion, record }))
  }
}

/**
 * How many requests of each path are measured: enough that the p99 is the tenth slowest answer. Of
 * 200, it was the second slowest, which one young-generation collection of a large heap (3–11 ms at
 * 100,000 modules, seen with --trace-gc) decided by itself from one run to the next.
 */
export const GROWTH_SAMPLES = 1000
/** How long one path's samples may take: a path that takes seconds an answer is measured on fewer (and says how many). */
const SAMPLING_MS = 60_000
/** How many requests in a row one registry answers before the next one's turn (interleavedLatencies): the keystrokes once. */
const TURN = 20

async function get(server: Started, path: string): Promise<void> {
  const response = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`)
  await response.arrayBuffer()
}

/** A path's p50 and p99 in ms, of how many samples. */
export interface Latencies {
  p50: number
  p99: number
  samples: number
}

export interface GrowthFigures {
  modules: number
  /** From starting the process to the answer to its first request (the protocol's versions list), after a clean close: the median of three starts. */
  firstAnswerMs: number
  /** The same on the first start, which reads every record (no Homeport has closed the generated registry). */
  firstStartAnswerMs: number
  /** Resident memory at that first answer, and after the measurements (the search index built, the records read). */
  rssMb: number
  rssAfterMb: number
  /** The organization's module list in Chromium (figure 6's measure). */
  moduleList: GuiFigure
  /** A module page with MANY_VERSIONS versions in Chromium, from a click in the list; and all its versions listed, from "Show all". */
  modulePage: { shownMs: number; allShownMs: number }
  search: Latencies
  typing: Latencies
  byDownloads: Latencies
  versions: Latencies
}

/** What a search-as-you-type sends, keystroke by keystroke: 20 prefix queries. */
export const KEYSTROKES = ['n', 'ne', 'net', 'netw', 'netwo', 'networ', 'network', 'network ', 'network s', 'network st', 'network sto', 'network stor', 'network stora', 'network storag', 'network storage', 'b', 'bu', 'buc', 'buck', 'bucket']

/**
 * A registry of the growth figures, served: its start and memory figures measured, and Homeport left
 * running on it for the latencies, which every registry's server answers in turns (interleavedLatencies).
 */
interface Served {
  modules: number
  server: Started
  firstAnswerMs: number
  firstStartAnswerMs: number
  rssMb: number
  /** What each path of the latencies asks of this registry (its size names other modules). */
  paths: Record<LatencyPath, string[]>
}

type LatencyPath = 'search' | 'typing' | 'byDownloads' | 'versions'

/**
 * Starts Homeport on `dataDir` (with `extra` options: a database) and measures its starts: it is
 * stopped cleanly after its first answer and started three times more, and the last start is left
 * running.
 */
async function serveGrowth(dataDir: string, modules: number, extra: string[] = []): Promise<Served> {
  const versionsPath = `/api/registry/v1/modules/bench/${generatedName(Math.max(1, Math.floor(modules / 2)))}/aws/versions`
  const first = await startToAnswer(dataDir, versionsPath, extra)
  await first.server.stop()
  // The median of three starts, as figure 5's: one start's time moves by a tenth from one to the next.
  const starts = [await startToAnswer(dataDir, versionsPath, extra)]
  for (let round = 1; round < 3; round++) {
    await starts.at(-1)!.server.stop()
    starts.push(await startToAnswer(dataDir, versionsPath, extra))
  }
  const search = (q: string) => `/api/v2/search?q=${encodeURIComponent(q)}`
  return {
    modules,
    server: starts.at(-1)!.server,
    firstAnswerMs: median(starts.map((start) => start.ms)),
    firstStartAnswerMs: first.ms,
    rssMb: median(starts.map((start) => start.rssMb)),
    paths: {
      search: [wordOf(Math.floor(modules / 2)), generatedName(Math.max(1, Math.floor(modules / 3))), `${TOPICS[3]} ${wordOf(Math.floor(modules / 4))}`, 'aws_rds_cluster zedzzzz'].map(search),
      typing: KEYSTROKES.map(search),
      byDownloads: ['/api/v2/organizations/bench/registry-modules?sort=-downloads&page[size]=20'],
      versions: [versionsPath]
    }
  }
}

/**
 * p50 and p99 of GROWTH_SAMPLES sequential GETs of a path on each registry, in ms (fewer where a
 * registry's answers take longer than SAMPLING_MS in all: the count says so), after one unmeasured
 * round. The registries answer in turns of 20 requests, smallest first, so that what the machine does
 * meanwhile (another guest's load on the host, the kernel writing back what the seeding wrote) falls
 * on every size alike: measured one size after the other, minutes apart, one registry's p99 of the
 * module list on PostgreSQL came out anywhere between 8.5 and 24 ms from one run to the next.
 */
async function interleavedLatencies(registries: Served[], path: LatencyPath): Promise<Latencies[]> {
  const times = registries.map((): number[] => [])
  const spent = registries.map(() => 0)
  // A first round unmeasured: what a start reads lazily is read once.
  for (const { server, paths } of registries) for (const each of paths[path]) await get(server, each)
  const due = (at: number) => times[at]!.length < GROWTH_SAMPLES && spent[at]! < SAMPLING_MS
  while (registries.some((_, at) => due(at))) {
    for (const [at, { server, paths }] of registries.entries()) {
      for (let step = 0; step < TURN && due(at); step++) {
        const started = performance.now()
        await get(server, paths[path][times[at]!.length % paths[path].length]!)
        const took = performance.now() - started
        times[at]!.push(took)
        spent[at]! += took
      }
    }
  }
  return times.map((measured) => {
    measured.sort((a, b) => a - b)
    const at = (q: number) => Math.round(measured[Math.min(measured.length - 1, Math.floor(q * measured.length))]! * 100) / 100
    return { p50: at(0.5), p99: at(0.99), samples: measured.length }
  })
}

/** Every registry's latencies (interleavedLatencies), then each one's memory and GUI figures; every server is stopped. */
async function measureServed(registries: Served[]): Promise<GrowthFigures[]> {
  try {
    const latencies = {} as Record<LatencyPath, Latencies[]>
    for (const path of ['search', 'typing', 'byDownloads', 'versions'] as const) latencies[path] = await interleavedLatencies(registries, path)
    const figures: GrowthFigures[] = []
    for (const [at, { modules, server, firstAnswerMs, firstStartAnswerMs, rssMb }] of registries.entries()) {
      figures.push({
        modules,
        firstAnswerMs,
        firstStartAnswerMs,
        rssMb,
        rssAfterMb: await rssOf(server),
        search: latencies.search[at]!,
        typing: latencies.typing[at]!,
        byDownloads: latencies.byDownloads[at]!,
        versions: latencies.versions[at]!,
        moduleList: await measureModuleList(server, modules),
        modulePage: await measureModulePage(server, generatedName(1), MANY_VERSIONS)
      })
    }
    return figures
  } finally {
    for (const { server } of registries) await server.stop()
  }
}

/** Starts Homeport on `dataDir` and asks for `path` at once: the time from the start to that answer, and the resident memory then. */
async function startToAnswer(dataDir: string, path: string, extra: string[]): Promise<{ server: Started; ms: number; rssMb: number }> {
  const started = performance.now()
  const server = await startHomeport(1, dataDir, extra)
  await get(server, path)
  const ms = Math.round(performance.now() - started)
  return { server, ms, rssMb: await rssOf(server) }
}

async function rssOf(server: Started): Promise<number> {
  const status = await readFile(`/proc/${server.child.pid}/status`, 'utf8')
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024)
}

/**
 * Figure 15: a registry of each size generated (generateGrowthRegistry), smallest first, on the file
 * store; or, with `postgres`, carried into a database of its own by `homeport migrate` (the store's
 * import: the same registry, read back through PostgreSQL). Each is served as it is made (its starts
 * measured, serveGrowth), and once all are, measured together (measureServed). Undefined when
 * PostgreSQL is asked for and not installed.
 */
export async function measureGrowthFigures(work: string, sizes: number[], log: (line: string) => void, postgres = false): Promise<GrowthFigures[] | undefined> {
  const bin = postgres ? findPostgres() : undefined
  if (postgres && !bin) return undefined
  const server = bin ? await startPostgres(bin) : undefined
  const served: Served[] = []
  const dataDirs: string[] = []
  try {
    for (const modules of sizes) {
      const dataDir = join(work, `growth-${modules}`)
      dataDirs.push(dataDir)
      log(`  generating ${modules.toLocaleString('en')} modules × ${GROWTH_VERSIONS} versions…`)
      await generateGrowthRegistry(dataDir, modules)
      if (server) {
        const database = await postgresDatabases(server.url).create()
        log(`  migrating them into PostgreSQL…`)
        const started = performance.now()
        await run(process.execPath, ['out/main/cli.js', 'migrate', '--from', dataDir, '--to', database], { maxBuffer: 64 * 1024 * 1024 })
        log(`  migrated in ${Math.round((performance.now() - started) / 1000)} s; starting Homeport on them…`)
        const own = await mkdtemp(join(work, 'growth-pg-'))
        dataDirs.push(own)
        served.push(await serveGrowth(own, modules, ['--database', database]))
        // The database holds them now.
        await rm(dataDir, { recursive: true, force: true })
      } else {
        log(`  starting Homeport on them…`)
        served.push(await serveGrowth(dataDir, modules))
      }
    }
    log(`  measuring the ${served.length} registries in turns…`)
    return await measureServed(served.splice(0))
  } finally {
    for (const { server: homeport } of served) await homeport.stop()
    for (const dataDir of dataDirs) await rm(dataDir, { recursive: true, force: true })
    await server?.stop()
  }
}
