import { createReadStream } from 'node:fs'
import { readdir, readFile, stat } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { writeInside } from '../files/folder-writes.js'
import { startServer } from '../boot/start-server.js'
import type { ImportReport } from '../domain/bundles/bundle-import.js'
import { formatBytes } from '../domain/ingest/archive-reader.js'
import { parseServeOptions, UsageError } from '../boot/options.js'
import { bodyOf, runningServer, type RunningServer } from './lib/running-server.js'
import type { BundleAttributes, BundleImportAttributes } from '../../shared/wire/bundles.js'
import type { Document, ListDocument } from '../../shared/wire/jsonapi.js'
import type { OrganizationAttributes } from '../../shared/wire/organizations.js'

/** Folders a configuration's files are never read from: Terraform's own working folder, and version control. */
const SKIPPED = new Set(['.terraform', '.git', 'node_modules'])
/** Largest configuration sent (the API takes 16 MB of JSON). */
const MAX_CONFIGURATION_BYTES = 12 * 1024 * 1024

/** A configuration folder's Terraform files (its own and its local modules'), and its lock file, by relative path. */
export async function readConfiguration(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  let total = 0
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) await walk(path)
        continue
      }
      const name = relative(folder, path).split('\\').join('/')
      if (!entry.isFile() || !(/\.tf(\.json)?$/.test(entry.name) || name === '.terraform.lock.hcl')) continue
      total += (await stat(path)).size
      if (total > MAX_CONFIGURATION_BYTES) throw new Error(`${folder} holds more than ${MAX_CONFIGURATION_BYTES / 1024 / 1024} MB of Terraform files: is it the folder you run terraform init in?`)
      files[name] = await readFile(path, 'utf8')
    }
  }
  await walk(folder)
  if (!Object.keys(files).some((name) => !name.includes('/') && name !== '.terraform.lock.hcl')) {
    throw new UsageError(`${folder} has no .tf files: give the folder you run terraform init in.`)
  }
  return files
}

/** The document `D` an API call answers with, or its errors. */
type Answer<D> = Partial<D> & { errors?: Array<{ detail?: string; title?: string }> }

async function json<D>(running: RunningServer, method: string, path: string, body?: unknown): Promise<{ status: number; document: Answer<D> }> {
  const response = await running.request(method, path, body)
  const text = await bodyOf(response)
  return { status: response.statusCode ?? 0, document: (text ? JSON.parse(text) : {}) as Answer<D> }
}

/**
 * `homeport bundle <configuration> --platform linux_amd64 … --output demo.hpbundle`: has the running
 * Homeport resolve and gather everything the configuration needs (pulling through its upstreams),
 * printing its progress, then downloads the bundle. Nothing is written when anything cannot be had.
 */
export async function bundleCommand(dataDir: string, token: string | undefined, options: { folder?: string; platforms: string[]; output: string; organization?: string; modules: string[]; providers: string[] }): Promise<void> {
  const running = await runningServer(dataDir, token)
  if (!running) throw new Error(`No Homeport is running on ${dataDir}: start it (homeport serve), online, then bundle.`)
  const organization = options.organization ?? (await onlyOrganization(running))
  const named = (list: string[]) => list.map((entry) => {
    const at = entry.lastIndexOf('@')
    return at > 0 ? { source: entry.slice(0, at), version: entry.slice(at + 1) } : { source: entry }
  })
  const attributes = {
    organization,
    platforms: options.platforms,
    ...(options.folder ? { configuration: await readConfiguration(options.folder) } : {}),
    modules: named(options.modules),
    providers: named(options.providers)
  }
  const started = await json<Document<BundleAttributes>>(running, 'POST', '/api/v2/bundles', { data: { type: 'bundles', attributes } })
  if (started.status !== 202) throw new Error(started.document.errors?.map((error) => error.detail ?? error.title).join(' ') ?? `Homeport refused (HTTP ${started.status}).`)
  const id = started.document.data!.id
  let shown = 0
  let job = started.document.data!.attributes
  for (;;) {
    for (const step of job.steps.slice(shown)) console.log(step)
    shown = job.steps.length
    if (job.status === 'ready' || job.status === 'failed') break
    await new Promise((resolve) => setTimeout(resolve, 300))
    const polled = await json<Document<BundleAttributes>>(running, 'GET', `/api/v2/bundles/${id}`)
    if (!polled.document.data) throw new Error(polled.document.errors?.[0]?.detail ?? `Homeport lost the bundle (HTTP ${polled.status}).`)
    // Steps beyond the last hundred are dropped on the server: show what is there.
    if (polled.document.data.attributes.steps.length < shown) shown = 0
    job = polled.document.data.attributes
  }
  for (const added of job.curated) console.log(`Curated ${added} in ${organization}, to pull it through.`)
  if (job.status === 'failed') {
    for (const problem of job.problems) console.error(`  ${problem.what}: ${problem.reason}`)
    throw new Error(`No bundle was written: ${job.problems.length} ${job.problems.length === 1 ? 'thing' : 'things'} could not be resolved.`)
  }
  const response = await running.request('GET', `/api/v2/bundles/${id}/download`)
  if (response.statusCode !== 200) throw new Error(`Homeport could not send the bundle (HTTP ${response.statusCode}).`)
  await writeInside(dirname(resolve(options.output)), options.output, response, { atomic: true })
  await running.request('DELETE', `/api/v2/bundles/${id}`).then((answer) => answer.resume())
  const manifest = job.manifest!
  console.log(`Wrote ${options.output} (${formatBytes(job.size ?? 0)}): ${manifest.modules.length} module version(s), ${manifest.providers.length} provider version(s) for ${manifest.platforms.join(', ') || 'no platform'}.`)
}

async function onlyOrganization(running: RunningServer): Promise<string> {
  const { document } = await json<ListDocument<OrganizationAttributes>>(running, 'GET', '/api/v2/organizations')
  const names = (document.data ?? []).map((org) => org.attributes.name)
  if (names.length !== 1) throw new UsageError(`Name the organization whose registry the bundle comes from with --organization (${names.length === 0 ? 'there is none yet: create one' : `one of ${names.join(', ')}`}).`)
  return names[0]!
}

/**
 * `homeport import <bundle>`: into the Homeport running on the data directory, or, when none is,
 * into the data directory itself: Homeport is opened for the import with the settings `serve`
 * reads from HOMEPORT_* variables (the upstream names the mirror the providers go into), on a
 * loopback port of its own choosing, and closed once the imported modules are documented.
 */
export async function importCommand(dataDir: string, token: string | undefined, file: string, organization: string | undefined): Promise<void> {
  await stat(file).catch(() => {
    throw new UsageError(`${file} cannot be read.`)
  })
  const running = await runningServer(dataDir, token)
  let report: ImportReport
  if (running) {
    const query = organization ? `?organization=${encodeURIComponent(organization)}` : ''
    const { status, document } = await json<Document<BundleImportAttributes>>(running, 'POST', `/api/v2/admin/bundle-imports${query}`, createReadStream(file))
    if (status !== 201 || !document.data) throw new Error(document.errors?.map((error) => error.detail ?? error.title).join(' ') ?? `Homeport refused (HTTP ${status}).`)
    const { id, attributes } = document.data
    report = { id, organization: attributes.organization, createdOrganizations: attributes['created-organizations'], modules: attributes.modules, providers: attributes.providers, notes: attributes.notes }
  } else {
    const server = await startServer({ ...parseServeOptions([], process.env), dataDir, port: 0, host: '127.0.0.1' })
    try {
      report = await server.services.bundles.import({ kind: 'site-admin' }, createReadStream(file), { organization })
    } finally {
      await server.close()
    }
  }
  for (const name of report.createdOrganizations) console.log(`Created organization ${name}.`)
  for (const module of report.modules) console.log(`${module.outcome === 'added' ? 'Added' : 'Already here'}: module ${module.source} ${module.version}`)
  for (const provider of report.providers) console.log(`${provider.outcome === 'added' ? 'Added' : 'Already here'}: provider ${provider.source} ${provider.version} (${provider.platforms.join(', ')})`)
  for (const note of report.notes) console.log(`Note: ${note}`)
  console.log(`Imported ${file}${running ? '' : ` into ${dataDir}`}: public modules are curated by ${report.organization}.`)
}
