import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { api, median, startHomeport } from './lib.js'
import { seedThroughApi } from './seed.js'

/** A module's record file, as Homeport writes it. */
export interface RecordFile {
  schemaVersion: number
  record: { id: string; name: string; versions: Array<Record<string, unknown> & { archive: { sha256: string; size: number } }>; [key: string]: unknown }
}

/**
 * A new registry in `dataDir` with one module of one version published through the API, and that
 * module's record file and version: what the generators copy (the files are exactly what Homeport writes).
 */
export async function publishTemplate(dataDir: string): Promise<{ modulesDir: string; file: RecordFile; version: RecordFile['record']['versions'][number] }> {
  const server = await startHomeport(1, dataDir)
  try {
    await seedThroughApi(server.url, 'bench', 1, 1, () => undefined)
  } finally {
    await server.stop()
  }
  const modulesDir = join(dataDir, 'modules')
  const [template] = (await readdir(modulesDir)).filter((name) => name.endsWith('.json'))
  const file = JSON.parse(await readFile(join(modulesDir, template!), 'utf8')) as RecordFile
  return { modulesDir, file, version: { ...file.record.versions[0]!, upload: null } }
}

/** Generated module `m`'s record id (figure 4's registry and figure 15's). */
export function generatedId(m: number): string {
  return `mod-G${m.toString(36).padStart(14, '0')}`
}

/** Generated module `m`'s name. */
export function generatedName(m: number): string {
  return `generated-${String(m).padStart(6, '0')}`
}

/**
 * A registry of `modules` × `versions`, made fast: one module is published through the API, then
 * its record file is copied with new ids, names and versions (the files are exactly what
 * Homeport writes). Publishing 100,000 versions through HTTP would take the benchmark most of
 * an hour; the write being measured afterwards still goes through the API.
 */
export async function generateRegistry(dataDir: string, modules: number, versions: number): Promise<void> {
  const { modulesDir, file, version } = await publishTemplate(dataDir)
  await mkdir(modulesDir, { recursive: true })
  for (let m = 1; m < modules; m++) {
    const id = generatedId(m)
    const record = {
      ...file.record,
      id,
      name: generatedName(m),
      versions: Array.from({ length: versions }, (_, v) => ({ ...version, id: `modver-G${m.toString(36)}x${v.toString(36)}`, version: `1.${v}.0` }))
    }
    await writeFile(join(modulesDir, `${id}.json`), JSON.stringify({ schemaVersion: file.schemaVersion, record }))
  }
}

export interface StoreFigures {
  small: { versions: number; createMs: number }
  large: { versions: number; createMs: number }
  ratio: number
  /** After a clean close (the indexes saved): the median of three. */
  coldStartMs: number
  /** The first start, which reads every record (the registry was written by the generator, not closed by Homeport). */
  firstStartMs: number
  rssMb: number
}

/**
 * Median time of creating a version (POST, acknowledged once stored) on a running Homeport (`extra`: its
 * options, a database say), once its start's search index build is done: a search waits for it. Creates
 * made during the build share the server's one CPU with it, which is the start's cost (figure 15), not a
 * create's: figure 9 measured from the start was 2.04 and 2.31 ×, and 0.84 × twenty seconds after it.
 */
export async function createTime(dataDir: string, samples: number, extra: string[] = []): Promise<number> {
  const server = await startHomeport(1, dataDir, extra)
  try {
    if ((await api(server.url, 'GET', '/search?q=generated')).status !== 200) throw new Error('the search before the creates failed')
    const times: number[] = []
    for (let i = 0; i < samples; i++) {
      const name = generatedName(1 + (i % 40))
      const started = performance.now()
      const response = await api(server.url, 'POST', `/organizations/bench/registry-modules/private/bench/${name}/aws/versions`, {
        data: { type: 'registry-module-versions', attributes: { version: `9.${i}.0` } }
      })
      times.push(performance.now() - started)
      if (response.status !== 201) throw new Error(`create failed: ${response.status}`)
    }
    return median(times)
  } finally {
    await server.stop()
  }
}

/** Time from starting the process to its ready line, and its resident memory then. */
async function coldStart(dataDir: string): Promise<{ ms: number; rssMb: number }> {
  const started = performance.now()
  const server = await startHomeport(1, dataDir)
  const ms = performance.now() - started
  try {
    const status = await readFile(`/proc/${server.child.pid}/status`, 'utf8')
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1])
    return { ms, rssMb: Math.round(rssKb / 1024) }
  } finally {
    await server.stop()
  }
}

/** Figures 4 and 5: writes at 1,000 and at 100,000 versions; cold start (the first, then after clean closes) and memory at 100,000. */
export async function measureStore(workDir: string, log: (line: string) => void): Promise<StoreFigures> {
  const small = join(workDir, 'store-1k')
  const large = join(workDir, 'store-100k')
  log('  generating 50 × 20 versions…')
  await generateRegistry(small, 50, 20)
  log('  generating 5,000 × 20 versions…')
  await generateRegistry(large, 5000, 20)
  // Before anything else starts on it: no Homeport has closed it yet, so nothing has saved its indexes.
  const first = await coldStart(large)
  const smallMs = await createTime(small, 40)
  const largeMs = await createTime(large, 40)
  const starts = []
  for (let i = 0; i < 3; i++) starts.push(await coldStart(large))
  return {
    small: { versions: 1000, createMs: round(smallMs) },
    large: { versions: 100_000, createMs: round(largeMs) },
    ratio: round(largeMs / smallMs),
    coldStartMs: Math.round(median(starts.map((start) => start.ms))),
    firstStartMs: Math.round(first.ms),
    rssMb: Math.max(first.rssMb, ...starts.map((start) => start.rssMb))
  }
}

export function round(value: number): number {
  return Math.round(value * 100) / 100
}
