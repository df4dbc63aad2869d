import semver from 'semver'
import type { Caller } from '../core/access.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import type { ModulePart } from '../archives/module-docs.js'
import { terraformConstraint } from '../modules/versions/constraints.js'
import type { ModuleCatalog } from './module-catalog.js'

/** What a `module` block may hold besides its inputs. */
const META_ARGUMENTS = new Set(['source', 'version', 'count', 'for_each', 'providers', 'depends_on'])

export type Severity = 'error' | 'warning' | 'info'

export interface Finding {
  severity: Severity
  /** Stable, for an assistant to act on: `unknown-module`, `missing-input`, `deprecated`… */
  code: 'not-registry-source' | 'unknown-module' | 'not-mirrored' | 'no-version-constraint' | 'invalid-constraint' | 'no-matching-version' | 'revoked' | 'deprecated' | 'unknown-part' | 'missing-input' | 'unknown-input'
  message: string
}

export interface BlockReport {
  /** The block's label (`module "vpc"`). */
  block: string
  file: string
  source: string
  constraint: string | null
  /** The version Terraform would install here, when there is one. */
  selected: string | null
  findings: Finding[]
}

export interface ConfigurationReport {
  ok: boolean
  modules: BlockReport[]
}

/** Parses one file of Terraform configuration to JSON (the ingest's HCL parser, in its worker). */
export type Parse = (filename: string, text: string) => Promise<Record<string, unknown>>

/**
 * What `terraform init` and `terraform validate` would say of a configuration's `module` blocks that
 * name this registry (or a public one it mirrors), and more: each source resolved against what the
 * caller may install, the version Terraform would pick, unknown or revoked versions, a deprecated one
 * with its publisher's reason, required inputs left out and inputs the module does not have. Sources
 * that are not registry addresses (local paths, git) are noted and left alone.
 */
export async function checkConfiguration(caller: Caller, catalog: ModuleCatalog, parse: Parse, files: Array<{ name: string; text: string }>): Promise<ConfigurationReport> {
  const modules: BlockReport[] = []
  for (const file of files) {
    let parsed: Record<string, unknown>
    try {
      parsed = await parse(file.name, file.text)
    } catch (error) {
      throw new InvalidInputError(`${file.name} is not valid Terraform configuration: ${(error as Error).message}`, 'files')
    }
    const blocks = (parsed.module ?? {}) as Record<string, Array<Record<string, unknown>>>
    for (const [label, bodies] of Object.entries(blocks)) {
      for (const body of Array.isArray(bodies) ? bodies : [bodies]) modules.push(await checkBlock(caller, catalog, file.name, label, body))
    }
  }
  return { ok: modules.every((block) => block.findings.every((finding) => finding.severity !== 'error')), modules }
}

async function checkBlock(caller: Caller, catalog: ModuleCatalog, file: string, label: string, body: Record<string, unknown>): Promise<BlockReport> {
  const source = typeof body.source === 'string' ? body.source : ''
  const constraint = typeof body.version === 'string' ? body.version : null
  const report: BlockReport = { block: label, file, source, constraint, selected: null, findings: [] }
  const say = (severity: Severity, code: Finding['code'], message: string) => report.findings.push({ severity, code, message })

  let reference
  try {
    reference = catalog.parse(source, 'source')
  } catch {
    say('info', 'not-registry-source', `"${source}" is not a module of this registry (a local path, a git URL or another registry): not checked.`)
    return report
  }
  const entry = await catalog.find(caller, reference).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined
    throw error
  })
  if (!entry) {
    const address = `${reference.namespace}/${reference.name}/${reference.provider}`
    // A public registry's address (written with its hostname, or with none) is Terraform's to fetch from there; Homeport may pull it through.
    if (reference.registry !== 'private') say('warning', 'not-mirrored', `${address} is not mirrored here: Terraform fetches it from the public registry, or, configured for Homeport's mirror, Homeport pulls it through while it can reach the upstream.`)
    else say('error', 'unknown-module', `No module ${address} you may install is published here.`)
    return report
  }
  // Without a constraint Terraform takes the newest stable version.
  let matches: (version: string) => boolean = (version) => semver.prerelease(version) === null
  if (constraint === null) say('warning', 'no-version-constraint', `No version constraint: Terraform takes the newest (${entry.latest.version}), and a new major version would change it. Pin one, like "~> ${semver.major(entry.latest.version)}.0".`)
  else {
    try {
      matches = terraformConstraint(constraint, 'version')
    } catch (error) {
      say('error', 'invalid-constraint', (error as Error).message)
      return report
    }
  }
  const selected = entry.versions.find((version) => matches(version.version))
  if (!selected) {
    const revoked = entry.view.module.versions.filter((version) => version.revocation && matches(version.version)).map((version) => `${version.version} (${version.revocation!.message})`)
    if (revoked.length > 0) say('error', 'revoked', `The versions that meet "${constraint}" were revoked by their publisher: ${revoked.join('; ')}. Choose another version.`)
    else say('error', 'no-matching-version', `No version meets "${constraint}". Available: ${entry.versions.map((version) => version.version).join(', ')}.`)
    return report
  }
  report.selected = selected.version
  if (selected.deprecation) {
    say('warning', 'deprecated', `${selected.version} is deprecated: ${selected.deprecation.reason}${selected.deprecation.link ? ` (${selected.deprecation.link})` : ''}`)
  }
  const docs = await catalog.documentation(selected)
  const part: ModulePart | undefined = reference.part === '' ? docs.root : [...docs.submodules, ...docs.examples].find((candidate) => candidate.path === reference.part)
  if (!part) {
    say('error', 'unknown-part', `${selected.version} has no ${reference.part}; its parts: ${[...docs.submodules, ...docs.examples].map((candidate) => candidate.path).join(', ') || 'none'}.`)
    return report
  }
  const given = Object.keys(body).filter((key) => !META_ARGUMENTS.has(key))
  const known = new Set(part.inputs.map((input) => input.name))
  for (const input of part.inputs) {
    if (input.required && !given.includes(input.name)) {
      const description = input.description.replace(/\s+/g, ' ').trim().replace(/\.$/, '')
      say('error', 'missing-input', `Required input ${input.name} (${input.type.replace(/\s+/g, ' ') || 'any type'}) is not set${description ? `: ${description}` : ''}.`)
    }
  }
  for (const name of given) if (!known.has(name)) say('error', 'unknown-input', `${name} is not an input of ${entry.address}${reference.part ? `//${reference.part}` : ''} ${selected.version}.`)
  return report
}
