import { formatBytes } from './archive-reader.js'
import type { ModuleDocs, ModuleInput, ModulePart } from '../archives/module-docs.js'
import { readmeDescription } from '../../../shared/readme-description.js'

const PART_FOLDER = /^(?:(modules|examples)\/([^/]+)\/)?([^/]+)$/
/** A Terraform configuration file, in HCL or its JSON syntax. */
export const TERRAFORM_FILE = /\.tf(\.json)?$/
const README = /^readme(\.md|\.markdown)?$/i
/** A module's change log, at its root: the names terraform-aws-modules, cloudposse and release tools write. */
const CHANGELOG = /^(changelog|changes|history)(\.md|\.markdown)?$/i

/** Whether the documentation needs the file at `path`: Terraform files and READMEs of the root, submodules and examples, and the root's change log. */
export function isDocumentationFile(path: string): boolean {
  const match = PART_FOLDER.exec(path)
  return match !== null && (TERRAFORM_FILE.test(match[3]!) || README.test(match[3]!) || (!match[1] && CHANGELOG.test(match[3]!)))
}

/** Parses one HCL file to hcl2json's JSON (at least what DOCUMENTED_BLOCKS names), within `timeoutMs`; see hcl-parser.ts. */
export type HclParse = (filename: string, contents: string, timeoutMs?: number) => Promise<Record<string, unknown>>

/**
 * What documenting one archive may cost. HCL parsing takes about half a second per MB of Terraform
 * (a second and 250 MB for a file only HashiCorp's parser reads), so one archive must not take the parser for minutes,
 * nor one file take the server past its memory: what is over the budget is left out of the
 * documentation, with a warning, and the version still publishes.
 */
export interface ParseBudget {
  /** A .tf file larger than this is not parsed. */
  maxFileBytes: number
  /** The archive's .tf files parsed in all. */
  maxTotalBytes: number
  /** Time spent parsing the archive's files in all. */
  maxTotalMs: number
}

export const DEFAULT_PARSE_BUDGET: ParseBudget = { maxFileBytes: 1024 * 1024, maxTotalBytes: 8 * 1024 * 1024, maxTotalMs: 60_000 }

/** Builds the documentation from an archive's files (path → text), within `budget`. */
export async function extractDocs(files: Map<string, string>, parse: HclParse, budget: ParseBudget = DEFAULT_PARSE_BUDGET): Promise<ModuleDocs> {
  const warnings: string[] = []
  const started = performance.now()
  let parsedBytes = 0
  const skipped: string[] = []
  const parts = new Map<string, { terraform: Array<[string, string]>; readme: string }>()
  const partOf = (path: string) => {
    let part = parts.get(path)
    if (!part) parts.set(path, (part = { terraform: [], readme: '' }))
    return part
  }
  partOf('')
  let changelog = ''
  for (const [path, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const match = PART_FOLDER.exec(path)
    if (!match) continue
    const folder = match[1] ? `${match[1]}/${match[2]!}` : ''
    const part = partOf(folder)
    if (TERRAFORM_FILE.test(match[3]!)) part.terraform.push([path, text])
    else if (README.test(match[3]!)) part.readme ||= text
    else if (!folder && CHANGELOG.test(match[3]!)) changelog ||= text
  }

  const built: ModulePart[] = []
  for (const [path, { terraform, readme }] of parts) {
    const configs: Config[] = []
    for (const [file, text] of terraform) {
      const bytes = Buffer.byteLength(text)
      if (bytes > budget.maxFileBytes) {
        warnings.push(`${file} is larger than ${formatBytes(budget.maxFileBytes)}, more than Homeport documents in one file; it is left out of the documentation.`)
        continue
      }
      const remainingMs = budget.maxTotalMs - (performance.now() - started)
      if (parsedBytes + bytes > budget.maxTotalBytes || remainingMs <= 0) {
        skipped.push(file)
        continue
      }
      parsedBytes += bytes
      try {
        configs.push(file.endsWith('.json') ? (JSON.parse(text) as Config) : await parse(file, text, remainingMs))
      } catch (error) {
        warnings.push(`${file} could not be parsed and is left out of the documentation: ${parseMessage(error)}`)
      }
    }
    built.push({ path, readme, empty: terraform.length === 0, ...inspect(configs) })
  }
  if (skipped.length > 0) {
    warnings.push(
      `The documentation is partial: reading this archive's Terraform files took more than Homeport spends on one archive ` +
        `(${formatBytes(budget.maxTotalBytes)} or ${Math.round(budget.maxTotalMs / 1000)} s), so ${skipped.length} file${skipped.length === 1 ? ' was' : 's were'} left out: ${skipped.slice(0, 5).join(', ')}${skipped.length > 5 ? ', …' : ''}.`
    )
  }
  const byPath = (a: ModulePart, b: ModulePart) => a.path.localeCompare(b.path)
  const root = built.find((part) => part.path === '')!
  // A collection (terraform-aws-iam: only submodules, nothing at the root) is empty at its root by design.
  if (root.empty && !built.some((part) => part.path.startsWith('modules/') && !part.empty)) {
    warnings.push('The archive has no Terraform files at its root. A module archive has the module’s .tf files at the top, not in a folder.')
  }
  return {
    description: readmeDescription(root.readme),
    root,
    submodules: built.filter((part) => part.path.startsWith('modules/')).sort(byPath),
    examples: built.filter((part) => part.path.startsWith('examples/')).sort(byPath),
    warnings,
    changelog
  }
}

/** Which attributes of a block documentation reads, and which nested blocks it reads whole. */
export interface DocumentedBlock {
  attributes: readonly string[] | 'all'
  blocks: readonly string[]
}

/**
 * The top-level blocks `inspect` reads, and what of them: the documentation's parse reads only these
 * (documented-config.ts), so this table and `inspect` change together.
 */
export const DOCUMENTED_BLOCKS: Readonly<Record<string, DocumentedBlock>> = {
  variable: { attributes: ['type', 'description', 'default', 'sensitive'], blocks: [] },
  output: { attributes: ['description', 'sensitive'], blocks: [] },
  resource: { attributes: ['provider'], blocks: [] },
  data: { attributes: ['provider'], blocks: [] },
  module: { attributes: ['source', 'version'], blocks: [] },
  provider: { attributes: ['version'], blocks: [] },
  terraform: { attributes: ['required_version'], blocks: ['required_providers'] }
}

/** A configuration file as hcl2json returns it (blocks as arrays), or in Terraform's JSON syntax. */
export type Config = Record<string, unknown>
type Body = Record<string, unknown>

/** The labelled blocks of one kind (`variable "x" {}`), from either syntax. */
function labelled(configs: Config[], kind: string): Array<[string, Body]> {
  const result: Array<[string, Body]> = []
  for (const config of configs) {
    const byLabel = config[kind]
    if (!isObject(byLabel)) continue
    for (const [label, bodies] of Object.entries(byLabel)) for (const body of bodyList(bodies)) result.push([label, body])
  }
  return result
}

/** Blocks labelled twice (`resource "type" "name" {}`), as [first, second, body]. */
function doublyLabelled(configs: Config[], kind: string): Array<[string, string, Body]> {
  const result: Array<[string, string, Body]> = []
  for (const [first, inner] of labelled(configs, kind)) {
    for (const [second, bodies] of Object.entries(inner)) for (const body of bodyList(bodies)) result.push([first, second, body])
  }
  return result
}

/** Unlabelled blocks (`terraform {}`). */
function unlabelled(configs: Config[], kind: string): Body[] {
  return configs.flatMap((config) => bodyList(config[kind]))
}

function bodyList(value: unknown): Body[] {
  if (Array.isArray(value)) return value.filter(isObject)
  return isObject(value) ? [value] : []
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** hcl2json writes an expression as "${…}"; this gives back the expression's source. */
function expression(value: unknown): string {
  if (typeof value !== 'string') return value === undefined ? '' : JSON.stringify(value)
  const match = /^\$\{([\s\S]*)\}$/.exec(value)
  return match ? match[1]!.trim() : value
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function flag(value: unknown): boolean {
  return value === true || value === '${true}'
}

/** What one folder's parsed configuration files declare: inputs, outputs, resources, providers and module calls. */
export function inspect(configs: Config[]): Omit<ModulePart, 'path' | 'readme' | 'empty'> {
  const inputs = labelled(configs, 'variable').map(([name, body]): ModuleInput => {
    const required = !('default' in body)
    return {
      name,
      type: 'type' in body ? expression(body.type) : '',
      description: text(body.description),
      default: required ? '' : JSON.stringify(body.default),
      required,
      sensitive: flag(body.sensitive)
    }
  })
  const outputs = labelled(configs, 'output').map(([name, body]) => ({
    name,
    description: text(body.description),
    sensitive: flag(body.sensitive)
  }))
  const managed = doublyLabelled(configs, 'resource')
  const resources = managed.map(([type, name]) => ({ name, type }))
  const dependencies = labelled(configs, 'module').map(([name, body]) => ({
    name,
    source: text(body.source),
    version: text(body.version)
  }))
  const terraform = unlabelled(configs, 'terraform')
  const requiredCore = terraform.flatMap((body) => (typeof body.required_version === 'string' ? [body.required_version] : []))

  const providers = new Map<string, { source: string; versions: string[] }>()
  const require = (name: string, source = '', version = '') => {
    let provider = providers.get(name)
    if (!provider) providers.set(name, (provider = { source: '', versions: [] }))
    if (source && !provider.source) provider.source = source
    if (version && !provider.versions.includes(version)) provider.versions.push(version)
  }
  for (const block of terraform.flatMap((body) => bodyList(body.required_providers))) {
    for (const [name, requirement] of Object.entries(block)) {
      // Terraform 0.12 allowed a bare version constraint string.
      if (typeof requirement === 'string') require(name, '', requirement)
      else if (isObject(requirement)) require(name, text(requirement.source), text(requirement.version))
    }
  }
  for (const [name, body] of labelled(configs, 'provider')) require(name, '', text(body.version))
  // Resources imply their provider: the `provider` meta-argument's local name, else the type's prefix.
  for (const [type, , body] of [...managed, ...doublyLabelled(configs, 'data')]) {
    require(typeof body.provider === 'string' ? expression(body.provider).split('.')[0]! : type.split('_')[0]!)
  }

  // hcl2json loses the order of blocks (its JSON objects are sorted), so sort everything alike.
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name)
  return {
    inputs: inputs.sort(byName),
    outputs: outputs.sort(byName),
    resources: resources.sort((a, b) => a.type.localeCompare(b.type) || a.name.localeCompare(b.name)),
    dependencies: dependencies.sort(byName),
    requiredCore,
    providers: [...providers]
      .map(([name, { source, versions }]) => {
        const full = source || `hashicorp/${name}`
        const segments = full.split('/')
        return { name, namespace: segments.length >= 2 ? segments[segments.length - 2]! : 'hashicorp', source: full, version: versions.join(', ') }
      })
      .sort((a, b) => a.name.localeCompare(b.name))
  }
}

/** An HCL parser's error, without the wrapping words that say nothing to a user. */
export function parseMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/^Error: /, '').replace(/^parse config: /, '').trim()
}
