import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { Caller } from '../../domain/core/access.js'
import type { DocsProvider } from '../../domain/provider-docs/docs-reader.js'
import { DOC_CATEGORIES } from '../../domain/provider-docs/docs-tree.js'
import { readFrontmatter } from '../../domain/provider-docs/frontmatter.js'
import { subjectOf } from '../../domain/provider-docs/provider-docs.js'
import { callerOf, excerpt, type AssistantContext } from './assistant-context.js'

/** The most of one doc's markdown a tool answers with: the largest real ones (aws_instance) are about 100 KB. */
const MAX_DOC_CHARACTERS = 120_000

const categorySchema = z.enum(DOC_CATEGORIES)

/**
 * The tools over provider documentation, offline: search a provider version's docs, and read one.
 * They read what Homeport keeps (a private provider's uploaded docs, a mirrored one's fetched when it
 * was mirrored), for the versions the caller may install, through the same reader as every face.
 */
export function registerProviderDocsTools(server: McpServer, context: AssistantContext): void {
  const { providers, services } = context
  const docsProvider = async (caller: Caller, text: string): Promise<DocsProvider> => {
    const entry = await providers.find(caller, text)
    const [namespace = '', type = ''] = entry.address.split('/')
    return entry.registry === 'private' ? { kind: 'private', organization: entry.organization ?? namespace, name: type } : { kind: 'mirror', hostname: entry.hostname, namespace, type }
  }

  server.registerTool(
    'search_provider_docs',
    {
      title: 'Search a provider’s documentation',
      description:
        'Searches the documentation of a provider you may install from this registry (private, or public and mirrored here), offline: its resources, data sources, ephemeral resources, functions and guides. A resource’s full name (aws_s3_bucket) finds it.',
      inputSchema: {
        provider: z.string().min(1).describe('namespace/type (acme/widget, hashicorp/aws), optionally after the registry hostname.'),
        query: z.string().max(200).describe('Words of the name, title or description; all must be found. Empty: every doc.'),
        category: categorySchema.optional().describe('Only docs of this category.'),
        version: z.string().optional().describe('The provider version; the newest with documentation unless told.'),
        limit: z.number().int().min(1).max(100).optional().describe('20 unless told.')
      },
      outputSchema: {
        provider: z.string(),
        version: z.string(),
        docs: z.array(z.object({ id: z.string(), category: z.string(), slug: z.string(), name: z.string(), title: z.string(), subcategory: z.string().nullable(), description: z.string() }))
      },
      annotations: { readOnlyHint: true, openWorldHint: false }
    },
    async ({ provider, query, category, version, limit = 20 }, extra) => {
      const caller = callerOf(extra)
      const { shelf, docs, found } = await services.providerDocs.search(caller, await docsProvider(caller, provider), version, { text: query, category, limit })
      const listed = found.map((doc) => ({ id: doc.id, category: doc.category, slug: doc.slug, name: subjectOf(shelf.name, doc), title: doc.title, subcategory: doc.subcategory, description: doc.description }))
      const text =
        listed.length === 0
          ? `No doc of ${shelf.address} ${docs.version} matches "${query}".`
          : `${shelf.address} ${docs.version}:\n${listed.map((doc) => `- ${doc.name} (${doc.category}${doc.subcategory ? `, ${doc.subcategory}` : ''}, slug ${doc.slug})${doc.description ? `: ${excerpt(doc.description, 160)}` : ''}`).join('\n')}`
      return { content: [{ type: 'text', text }], structuredContent: { provider: shelf.address, version: docs.version, docs: listed } }
    }
  )

  server.registerTool(
    'get_provider_doc',
    {
      title: 'Read a provider doc',
      description: 'One doc of a provider’s documentation (a resource’s arguments and attributes, a guide), as markdown, offline. Find its slug with search_provider_docs.',
      inputSchema: {
        provider: z.string().min(1).describe('namespace/type, optionally after the registry hostname.'),
        slug: z.string().min(1).max(200).describe('The doc’s slug: the name without the provider’s prefix (s3_bucket for aws_s3_bucket); the full name is taken too.'),
        category: categorySchema.optional().describe('resources unless told; a slug only one category has is found in it.'),
        version: z.string().optional().describe('The provider version; the newest with documentation unless told.')
      },
      outputSchema: { provider: z.string(), version: z.string(), category: z.string(), slug: z.string(), title: z.string(), subcategory: z.string().nullable(), truncated: z.boolean(), markdown: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: false }
    },
    async ({ provider, slug, category, version }, extra) => {
      const caller = callerOf(extra)
      const target = await docsProvider(caller, provider)
      const { shelf, docs } = await services.providerDocs.version(caller, target, version)
      const bare = slug.startsWith(`${shelf.name}_`) ? slug.slice(shelf.name.length + 1) : slug
      const candidates = docs.docs.filter((doc) => doc.language === 'hcl' && (doc.slug === slug || doc.slug === bare) && (category === undefined || doc.category === category))
      const chosen = candidates.find((doc) => doc.category === (category ?? 'resources')) ?? candidates[0]
      const found = await services.providerDocs.doc(caller, target, { version: docs.version, category: chosen?.category ?? category ?? 'resources', slug: chosen?.slug ?? bare })
      const body = readFrontmatter(found.markdown).body.trim()
      const cut = body.length > MAX_DOC_CHARACTERS
      const markdown = cut ? `${body.slice(0, MAX_DOC_CHARACTERS)}\n\n… (cut at ${MAX_DOC_CHARACTERS} characters)` : body
      return {
        content: [{ type: 'text', text: `${subjectOf(shelf.name, found.doc)} — ${shelf.address} ${docs.version}\n\n${markdown}` }],
        structuredContent: { provider: shelf.address, version: docs.version, category: found.doc.category, slug: found.doc.slug, title: found.doc.title, subcategory: found.doc.subcategory, truncated: cut || found.doc.truncated, markdown }
      }
    }
  )
}
