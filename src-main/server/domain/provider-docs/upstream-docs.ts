import type { ProviderDocCategory } from '../../store/records.js'
import type { Background } from '../core/background.js'
import { BadGatewayError } from '../core/errors.js'
import type { UpstreamRegistry } from '../upstream/upstream.js'
import { docFileSegment, docIdSegment, namespaceSegment, tagSegment, typeSegment, upstreamPath } from '../upstream/upstream-path.js'
import { DOC_CATEGORIES, MAX_DOC_BYTES, summary, type DocInput } from './docs-tree.js'
import { readFrontmatter } from './frontmatter.js'
import { mirroredDocsKey, mirroredDocsNumbering, type ProviderDocs } from './provider-docs.js'

/** The most pages of one category read (at the registry's page size, far more docs than the 2,000 a version may have). */
const MAX_PAGES = 200
/** Docs fetched at once: a provider with a thousand docs is a thousand requests. */
const CONCURRENCY = 8
const MAX_FIELD = 512

/** A doc as OpenTofu's docs API lists it in a version's `index.json`. */
interface OpenTofuDoc {
  name: string
  title?: unknown
  subcategory?: unknown
  description?: unknown
}

/** OpenTofu's kinds of docs: the key in `index.json`, the folder of their files, and the registry's category. */
const OPENTOFU_FOLDERS = [
  ['resources', 'resources', 'resources'],
  ['datasources', 'datasources', 'data-sources'],
  ['functions', 'functions', 'functions'],
  ['guides', 'guides', 'guides']
] as const

/** A doc of OpenTofu's, as the registry's outline has it: its path as the docs API serves it, a doc over 500 KB cut. */
function openTofuDoc(item: OpenTofuDoc, category: ProviderDocCategory, folder: string | undefined, content: string): DocInput {
  const bytes = Buffer.from(content, 'utf8')
  const cut = bytes.length > MAX_DOC_BYTES
  const name = item.name
  return {
    path: folder ? `${folder}/${name}.md` : 'index.md',
    slug: name,
    category,
    subcategory: text(item.subcategory) || null,
    language: 'hcl',
    title: (category === 'guides' || category === 'overview' ? text(item.title) : undefined) || name,
    description: summary(text(item.description, 4096) ?? ''),
    truncated: cut,
    content: cut ? bytes.subarray(0, MAX_DOC_BYTES).toString('utf8').replace(/\uFFFD$/, '') : content
  }
}

interface ListedDoc {
  id: string
  attributes: { category?: unknown; language?: unknown; path?: unknown; slug?: unknown; subcategory?: unknown; title?: unknown; truncated?: unknown }
}

/** A text field of the upstream's answer, bounded, or undefined when it is not one. */
function text(value: unknown, max = MAX_FIELD): string | undefined {
  // eslint-disable-next-line no-control-regex -- a control character in a name or path is refused, as the store refuses it
  return typeof value === 'string' && value.length <= max && !/[\0-\x1f]/.test(value) ? value : undefined
}

/**
 * A mirrored provider version's docs, fetched from OpenTofu's docs API for a registry that has one
 * (see fetchOpenTofu), else from the upstream registry's v2 docs API as registry.terraform.io's own UI
 * and HashiCorp's MCP server read it (shared/research/provider-docs.md §2b): the version's number from `/v2/providers/{ns}/{type}?include=provider-versions`, each
 * category's list from `/v2/provider-docs?filter[provider-version]=…&filter[category]=…` page by page
 * until an empty one, then each doc's markdown from `/v2/provider-docs/{id}`. Every request goes
 * through the one upstream client (its origins, its bounds). Docs are optional: an upstream without
 * them, or out of reach, leaves the version as it is, and the next mirror of it tries again.
 */
export class UpstreamDocs {
  /** Fetches in flight, by docs key: a mirror and a pull-through of the same version share one. */
  private readonly inFlight = new Map<string, Promise<number>>()

  constructor(
    private readonly upstream: UpstreamRegistry,
    private readonly docs: ProviderDocs,
    private readonly background: Background,
    /** The upstream's host (what mirrored providers are kept under) and its public name (what their docs are numbered by). */
    private readonly names: () => { hostname: string; publicName: string }
  ) {}

  /**
   * The version's docs, fetched unless they are kept already; resolves with how many it holds
   * (0 when the upstream has none for it). Throws when the upstream cannot be read.
   */
  ensure(namespace: string, type: string, version: string): Promise<number> {
    const { hostname, publicName } = this.names()
    const provider = mirroredDocsKey(hostname, namespace, type)
    const key = `${provider}@${version}`
    let running = this.inFlight.get(key)
    if (!running) {
      running = (async () => {
        const kept = await this.docs.ofVersion(provider, version)
        if (kept) return kept.docs.length
        const docs = await this.fetch(namespace, type, version)
        if (docs === undefined) return 0
        return (await this.docs.keep(provider, version, 'upstream', docs, mirroredDocsNumbering(publicName, namespace, type))).docs.length
      })().finally(() => this.inFlight.delete(key))
      this.inFlight.set(key, running)
    }
    return running
  }

  /** `ensure`, off the request path (a version pulled through for `terraform init`): a failure is logged, and retried by the next mirror. */
  later(namespace: string, type: string, version: string): void {
    void this.background.run('provider docs fetch', () => this.ensure(namespace, type, version))
  }

  /** Forgets a version's docs (the version left the mirror). */
  forget(namespace: string, type: string, version: string): Promise<void> {
    return this.docs.remove(mirroredDocsKey(this.names().hostname, namespace, type), version)
  }

  /** The docs the upstream has for the version, or undefined when it has none (no such version on its docs API). */
  private fetch(namespace: string, type: string, version: string): Promise<DocInput[] | undefined> {
    return this.upstream.hasDocsApi ? this.fetchOpenTofu(namespace, type, version) : this.fetchV2(namespace, type, version)
  }

  /**
   * From OpenTofu's docs API (static files, shared/research/provider-docs.md §3): the version's
   * `index.json` (its docs by kind: `index`, `resources`, `datasources`, `functions`, `guides`, each
   * `{name, title, subcategory, description}`), then each doc's markdown at `<kind>s/<name>.md`.
   */
  private async fetchOpenTofu(namespace: string, type: string, version: string): Promise<DocInput[] | undefined> {
    const base = ['providers', namespaceSegment(namespace), typeSegment(type), tagSegment(`v${version}`)] as const
    const { status, body } = await this.upstream.read(upstreamPath(...base, 'index.json'), 'docs')
    if (status === 404) return undefined
    if (status !== 200) throw new BadGatewayError(`OpenTofu's docs API answered HTTP ${status} for ${namespace}/${type} ${version}.`)
    const listed = (body as { docs?: Record<string, unknown> } | null)?.docs
    if (!listed || typeof listed !== 'object') return []
    const wanted: Array<{ item: OpenTofuDoc; category: ProviderDocCategory; folder: (typeof OPENTOFU_FOLDERS)[number][1] | undefined }> = []
    const index = listed.index as OpenTofuDoc | undefined
    if (index && typeof index === 'object') wanted.push({ item: { ...index, name: 'index' }, category: 'overview', folder: undefined })
    for (const [kind, folder, category] of OPENTOFU_FOLDERS) {
      const items = listed[kind]
      if (Array.isArray(items)) for (const item of items as OpenTofuDoc[]) if (item && text(item.name, 128)) wanted.push({ item, category, folder })
    }
    const docs: DocInput[] = []
    for (let start = 0; start < wanted.length; start += CONCURRENCY) {
      const batch = await Promise.all(
        wanted.slice(start, start + CONCURRENCY).map(async ({ item, category, folder }) => {
          const path = folder ? upstreamPath(...base, folder, docFileSegment(`${item.name}.md`)) : upstreamPath(...base, 'index.md')
          const content = await this.upstream.readText(path, 'docs', MAX_DOC_BYTES * 2)
          return content === undefined ? undefined : openTofuDoc(item, category, folder, content)
        })
      )
      for (const doc of batch) if (doc) docs.push(doc)
    }
    return docs
  }

  /** From the public registry's v2 docs API. */
  private async fetchV2(namespace: string, type: string, version: string): Promise<DocInput[] | undefined> {
    const answer = await this.upstream.get(upstreamPath('providers', namespaceSegment(namespace), typeSegment(type)), 'v2', { include: 'provider-versions' })
    if (answer.status === 404) return undefined
    const included = (answer.body as { included?: Array<{ type?: unknown; id?: unknown; attributes?: { version?: unknown } }> } | null)?.included
    const versionId = included?.find((entry) => entry.type === 'provider-versions' && entry.attributes?.version === version)?.id
    if (typeof versionId !== 'string' || !/^[0-9]{1,20}$/.test(versionId)) return undefined
    const listed: ListedDoc[] = []
    for (const category of DOC_CATEGORIES) listed.push(...(await this.list(versionId, category)))
    const docs: DocInput[] = []
    for (let start = 0; start < listed.length; start += CONCURRENCY) {
      const batch = await Promise.all(listed.slice(start, start + CONCURRENCY).map((entry) => this.doc(entry)))
      for (const doc of batch) if (doc) docs.push(doc)
    }
    return docs
  }

  /** Every doc of one category of the version, page after page until the upstream gives an empty one. */
  private async list(versionId: string, category: ProviderDocCategory): Promise<ListedDoc[]> {
    const found: ListedDoc[] = []
    for (let page = 1; page <= MAX_PAGES; page++) {
      const query = { 'filter[provider-version]': versionId, 'filter[category]': category, 'filter[language]': 'hcl', 'page[number]': String(page) }
      const { status, body } = await this.upstream.read(upstreamPath('provider-docs'), 'v2', query)
      if (status !== 200) throw new BadGatewayError(`The upstream registry answered HTTP ${status} for the ${category} docs of provider version ${versionId}.`)
      const data = (body as { data?: unknown } | null)?.data
      if (!Array.isArray(data) || data.length === 0) return found
      for (const entry of data as ListedDoc[]) {
        if (typeof entry?.id === 'string' && /^[0-9]{1,20}$/.test(entry.id) && entry.attributes && typeof entry.attributes === 'object') found.push(entry)
      }
    }
    return found
  }

  /** One doc's outline and markdown, or undefined for an entry that is not one Homeport can keep. */
  private async doc(entry: ListedDoc): Promise<DocInput | undefined> {
    const { status, body } = await this.upstream.read(upstreamPath('provider-docs', docIdSegment(entry.id)), 'v2')
    if (status !== 200) throw new BadGatewayError(`The upstream registry answered HTTP ${status} for provider doc ${entry.id}.`)
    const attributes: Record<string, unknown> = { ...entry.attributes, ...((body as { data?: { attributes?: Record<string, unknown> } } | null)?.data?.attributes ?? {}) }
    const category = DOC_CATEGORIES.find((candidate) => candidate === attributes.category)
    const slug = text(attributes.slug)
    const path = text(attributes.path) ?? ''
    const content = typeof attributes.content === 'string' ? attributes.content : undefined
    if (!category || !slug || content === undefined) return undefined
    const bytes = Buffer.from(content, 'utf8')
    const cut = bytes.length > MAX_DOC_BYTES
    const kept = cut ? bytes.subarray(0, MAX_DOC_BYTES).toString('utf8').replace(/\uFFFD$/, '') : content
    return {
      path,
      slug,
      category,
      subcategory: text(attributes.subcategory) || null,
      language: text(attributes.language, 32) ?? 'hcl',
      title: text(attributes.title) ?? slug,
      description: summary(readFrontmatter(kept).fields.get('description') ?? ''),
      truncated: cut || attributes.truncated === true,
      content: kept
    }
  }
}
