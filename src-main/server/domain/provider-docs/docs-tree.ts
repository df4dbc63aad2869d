import type { ProviderDocCategory } from '../../store/records.js'
import { InvalidInputError } from '../core/errors.js'
import { formatBytes } from '../ingest/archive-reader.js'
import { readFrontmatter } from './frontmatter.js'

/** The registry's limits (terraform-plugin-docs `RegistryMaximumSizeOfFile`, `RegistryMaximumNumberOfFiles`). */
export const MAX_DOC_BYTES = 500_000
export const MAX_DOC_FILES = 2000

export { DOC_CATEGORIES } from '../../../shared/provider-docs.js'

/** The CDKTF languages a `docs/cdktf/<language>/` tree may be written for. */
const CDKTF_LANGUAGES = new Set(['python', 'typescript', 'csharp', 'java', 'go'])

/** The folders of the registry layout (`docs/<folder>/<name>.md`) and their categories. */
const REGISTRY_FOLDERS: Readonly<Record<string, ProviderDocCategory>> = {
  guides: 'guides',
  resources: 'resources',
  'data-sources': 'data-sources',
  'ephemeral-resources': 'ephemeral-resources',
  functions: 'functions',
  actions: 'actions',
  'list-resources': 'list-resources'
}

/** The legacy layout's folders (`website/docs/r/…`) and their categories. */
const LEGACY_FOLDERS: Readonly<Record<string, ProviderDocCategory>> = { ...REGISTRY_FOLDERS, r: 'resources', d: 'data-sources' }

/** The legacy layout's extensions, longest first (terraform-plugin-docs `file_extension.go`). */
const LEGACY_EXTENSION = /\.(html\.markdown|html\.md|markdown|md)$/

/** One doc of a provider version, ready to keep: where it lies, what the registry calls it, and its markdown. */
export interface DocInput {
  path: string
  slug: string
  category: ProviderDocCategory
  subcategory: string | null
  language: string
  title: string
  description: string
  truncated: boolean
  content: string
}

export type DocsLayout = 'registry' | 'legacy'

/**
 * The docs of a provider repository's tree (the text of an uploaded archive's files, by path), checked as
 * the public registry checks them: one layout (`docs/`, as tfplugindocs writes it, or the legacy
 * `website/docs/`), Markdown files only in the folders the registry knows, at most MAX_DOC_FILES of
 * them and MAX_DOC_BYTES each, and the frontmatter rules of each layout. An archive of the `docs/`
 * folder's contents (`index.md`, `resources/…` at its root) is read as `docs/`, one of `website/docs/`'s
 * (`index.html.markdown`, `r/…`) as `website/docs/`. Every error names the file.
 */
export function docsOfTree(files: ReadonlyMap<string, string>, providerName: string): { layout: DocsLayout; docs: DocInput[] } {
  const paths = [...files.keys()]
  const registry = paths.some((path) => path.startsWith('docs/'))
  const legacy = paths.some((path) => path.startsWith('website/docs/'))
  if (registry && legacy) {
    throw new InvalidInputError('The archive has both docs/ and website/docs/: the registry takes one layout per provider version (move website/docs to docs, as its migration guide says).', 'docs')
  }
  // The folder's contents alone (the GUI sends a picked folder's files so): legacy by its extensions or its r/ and d/.
  const bareLegacy = !registry && !legacy && paths.some((path) => /\.html\.(markdown|md)$/.test(path) || /^[rd]\//.test(path))
  const bare = !registry && !legacy && (bareLegacy || paths.some((path) => path === 'index.md' || Object.keys(REGISTRY_FOLDERS).some((folder) => path.startsWith(`${folder}/`))))
  const layout: DocsLayout = legacy || bareLegacy ? 'legacy' : 'registry'
  const docs: DocInput[] = []
  for (const [raw, content] of files) {
    const path = bare ? `${layout === 'legacy' ? 'website/docs' : 'docs'}/${raw}` : raw
    const place = layout === 'legacy' ? legacyPlace(path) : registryPlace(path)
    if (!place) continue
    if (docs.length === MAX_DOC_FILES) throw new InvalidInputError(`The docs hold more than ${MAX_DOC_FILES} files, the most the registry takes for one provider version.`, 'docs')
    const size = Buffer.byteLength(content, 'utf8')
    if (size > MAX_DOC_BYTES) throw new InvalidInputError(`${path} is ${formatBytes(size)}; the registry takes docs of at most ${formatBytes(MAX_DOC_BYTES)} each.`, 'docs')
    if (content.includes('\uFFFD') || content.includes('\0')) throw new InvalidInputError(`${path} is not UTF-8 text.`, 'docs')
    docs.push(describeDoc(path, place, content, layout, providerName))
  }
  if (docs.length === 0) {
    throw new InvalidInputError(
      'The archive holds no provider docs: give the repository\'s docs/ folder (index.md, resources/<name>.md, data-sources/<name>.md…, as tfplugindocs writes it) or its legacy website/docs/ folder.',
      'docs'
    )
  }
  const seen = new Map<string, string>()
  for (const doc of docs) {
    const key = `${doc.language}/${doc.category}/${doc.slug}`
    const other = seen.get(key)
    if (other) throw new InvalidInputError(`${doc.path} and ${other} both document ${doc.category} "${doc.slug}".`, 'docs')
    seen.set(key, doc.path)
  }
  return { layout, docs }
}

interface Place {
  category: ProviderDocCategory | 'unclassified'
  slug: string
  language: string
}

/** Where a file of the registry layout belongs; undefined for what is not a doc (an image, a template); an error for a doc out of place. */
function registryPlace(path: string): Place | undefined {
  if (!path.startsWith('docs/')) return undefined
  let rest = path.slice('docs/'.length)
  let language = 'hcl'
  const cdktf = /^cdktf\/([^/]+)\/(.+)$/.exec(rest)
  if (cdktf) {
    if (!CDKTF_LANGUAGES.has(cdktf[1]!)) throw new InvalidInputError(`${path}: docs/cdktf/ holds one folder per CDKTF language (${[...CDKTF_LANGUAGES].join(', ')}), not "${cdktf[1]}".`, 'docs')
    language = cdktf[1]!
    rest = cdktf[2]!
  }
  if (!rest.endsWith('.md')) {
    if (/\.(markdown|html\.md)$/.test(rest)) throw new InvalidInputError(`${path}: the docs/ layout takes .md files only (rename it, or keep the legacy website/docs/ layout).`, 'docs')
    return undefined
  }
  if (rest === 'index.md') return { category: 'overview', slug: 'index', language }
  const [folder, name, ...deeper] = rest.split('/')
  const category = REGISTRY_FOLDERS[folder!]
  if (!category || deeper.length > 0 || !name) {
    throw new InvalidInputError(`${path} is not where the registry looks for docs: index.md, or <folder>/<name>.md with the folder one of ${Object.keys(REGISTRY_FOLDERS).join(', ')}.`, 'docs')
  }
  return { category, slug: name.slice(0, -'.md'.length), language }
}

/** Where a file of the legacy `website/docs/` layout belongs. */
function legacyPlace(path: string): Place | undefined {
  if (!path.startsWith('website/docs/')) return undefined
  const rest = path.slice('website/docs/'.length)
  const extension = LEGACY_EXTENSION.exec(rest)
  if (!extension) return undefined
  const stem = rest.slice(0, -extension[0].length)
  const parts = stem.split('/')
  if (parts.length === 1) return parts[0] === 'index' ? { category: 'overview', slug: 'index', language: 'hcl' } : { category: 'unclassified', slug: parts[0]!, language: 'hcl' }
  const category = LEGACY_FOLDERS[parts[0]!]
  if (!category || parts.length > 2) {
    throw new InvalidInputError(`${path} is not where the legacy layout keeps docs: website/docs/index, r/, d/, guides/, functions/ or ephemeral-resources/.`, 'docs')
  }
  return { category, slug: parts[1]!, language: 'hcl' }
}

/**
 * A doc's outline from its place and frontmatter, checked as terraform-plugin-docs checks it. A
 * legacy page directly under `website/docs/` (null v3.0.0's `resource.html.markdown`) is classified
 * by its `sidebar_current` (`docs-null-resource`, `docs-null-data-source`), else read as a guide.
 */
function describeDoc(path: string, place: Place, content: string, layout: DocsLayout, providerName: string): DocInput {
  const { fields } = readFrontmatter(content)
  const field = (name: string) => fields.get(name)?.trim() || undefined
  if (layout === 'registry') {
    for (const forbidden of ['layout', 'sidebar_current']) {
      if (fields.has(forbidden)) throw new InvalidInputError(`${path}: the registry's docs/ layout has no "${forbidden}" in its frontmatter (that was the legacy website's); remove it.`, 'docs')
    }
    if (place.category === 'overview' && fields.has('subcategory')) throw new InvalidInputError(`${path}: the provider's index page may not have a subcategory.`, 'docs')
    if (place.category === 'guides' && !field('page_title')) throw new InvalidInputError(`${path}: a guide needs a page_title in its frontmatter (its title in the navigation).`, 'docs')
  } else if (!field('page_title')) {
    throw new InvalidInputError(`${path}: a legacy doc needs a page_title in its frontmatter.`, 'docs')
  }
  let category = place.category
  if (category === 'unclassified') {
    const sidebar = field('sidebar_current') ?? ''
    category = /-data-?source/.test(sidebar) ? 'data-sources' : /-resource/.test(sidebar) ? 'resources' : 'guides'
  }
  const slug = stripPrefix(place.slug, providerName)
  const titled = category === 'overview' || category === 'guides'
  return {
    path,
    slug,
    category,
    subcategory: field('subcategory') ?? null,
    language: place.language,
    title: titled ? (field('page_title') ?? slug) : slug,
    description: summary(field('description') ?? ''),
    truncated: false,
    content
  }
}

/** A file's name without the provider's prefix: `random_pet` documents `pet`, as the registry's slugs have it. */
function stripPrefix(slug: string, providerName: string): string {
  const prefix = `${providerName}_`
  return slug.startsWith(prefix) && slug.length > prefix.length ? slug.slice(prefix.length) : slug
}

/** A description as one short line: what a search result or a list shows. */
export function summary(description: string): string {
  const line = description.replace(/\s+/g, ' ').trim()
  return line.length > 300 ? `${line.slice(0, 297).replace(/\s+\S*$/, '')}…` : line
}

