import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { requiredProvidersBlock } from '../../../shared/provider-usage.js'
import { z } from 'zod'
import { queryWords } from '../../domain/search/module-search.js'
import type { ProviderEntry } from '../../domain/assistant/provider-catalog.js'
import { callerOf, clip, pageOf, type AssistantContext } from './assistant-context.js'

const versionSchema = z.object({
  version: z.string(),
  platforms: z.array(z.string()),
  deprecation: z.object({ reason: z.string(), link: z.string().nullable() }).nullable()
})

/** The tools over providers: search, and read one with a ready `required_providers` block. */
export function registerProviderTools(server: McpServer, context: AssistantContext): void {
  const { providers } = context

  server.registerTool(
    'search_providers',
    {
      title: 'Search providers',
      description: 'Searches the providers you may install from this registry: your organizations’ private providers and the public providers mirrored here.',
      inputSchema: {
        query: z.string().max(200).optional().describe('Words of the namespace or type (all must be found). Empty: every provider.'),
        organization: z.string().optional().describe('Only this organization’s private providers.'),
        page: z.number().int().min(1).optional(),
        page_size: z.number().int().min(1).max(50).optional().describe('10 unless told.')
      },
      outputSchema: {
        page: z.number(),
        page_size: z.number(),
        total: z.number(),
        total_pages: z.number(),
        providers: z.array(z.object({ source: z.string(), registry: z.enum(['private', 'mirror']), organization: z.string().nullable(), latest_version: z.string(), versions: z.number() }))
      },
      annotations: { readOnlyHint: true, openWorldHint: false }
    },
    async ({ query = '', organization, page, page_size: size }, extra) => {
      const words = queryWords(query)
      const matching = (await providers.entries(callerOf(extra))).filter(
        (entry) => (organization === undefined || entry.organization === organization) && words.every((word) => entry.address.toLowerCase().includes(word))
      )
      const shown = pageOf(matching, page, size)
      const found = shown.items.map((entry) => ({
        source: sourceOf(entry),
        registry: entry.registry,
        organization: entry.organization,
        latest_version: entry.latest.version,
        versions: entry.versions.length
      }))
      const text =
        found.length === 0
          ? `No provider matches "${query}".`
          : `${shown.total} provider${shown.total === 1 ? '' : 's'} (page ${shown.page} of ${shown.total_pages}):\n${found.map((entry) => `- ${entry.source} ${entry.latest_version} (${entry.registry}${entry.organization ? `, ${entry.organization}` : ''})`).join('\n')}`
      return { content: [{ type: 'text', text }], structuredContent: { page: shown.page, page_size: shown.page_size, total: shown.total, total_pages: shown.total_pages, providers: found } }
    }
  )

  server.registerTool(
    'get_provider',
    {
      title: 'Read a provider',
      description: 'A provider’s versions (newest first, with the platforms each has here and any deprecation) and a `required_providers` block for its latest version.',
      inputSchema: { provider: z.string().min(1).describe('namespace/type (acme/widget, hashicorp/aws), optionally after the registry hostname.') },
      outputSchema: {
        source: z.string(),
        registry: z.enum(['private', 'mirror']),
        organization: z.string().nullable(),
        latest_version: z.string(),
        versions: z.array(versionSchema),
        required_providers: z.string()
      },
      annotations: { readOnlyHint: true, openWorldHint: false }
    },
    async ({ provider }, extra) => {
      const entry = await providers.find(callerOf(extra), provider)
      const latest = entry.latest
      const block = requiredProvidersBlock({ source: sourceOf(entry), version: latest.version })
      const versions = entry.versions.map((version) => ({
        version: version.version,
        platforms: version.platforms,
        deprecation: version.deprecation && { reason: clip(version.deprecation.reason, 300), link: version.deprecation.link }
      }))
      const text = [
        `${sourceOf(entry)} (${entry.registry}), latest ${latest.version}`,
        ...versions.map((version) => `- ${version.version}: ${version.platforms.join(', ')}${version.deprecation ? ` — deprecated: ${version.deprecation.reason}` : ''}`),
        '',
        block
      ].join('\n')
      return {
        content: [{ type: 'text', text }],
        structuredContent: { source: sourceOf(entry), registry: entry.registry, organization: entry.organization, latest_version: latest.version, versions, required_providers: block }
      }
    }
  )
}

/** The source address a configuration names it by: Terraform's default registry is left out for a public provider. */
function sourceOf(entry: ProviderEntry): string {
  return entry.registry === 'mirror' ? entry.address : `${entry.hostname}/${entry.address}`
}
