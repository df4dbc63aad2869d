import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { moduleBlock } from '../../../shared/module-usage.js'
import type { CatalogEntry } from '../../domain/assistant/module-catalog.js'
import { NotFoundError } from '../../domain/core/errors.js'
import type { ModuleDocs, ModulePart } from '../../domain/archives/module-docs.js'
import type { ModuleAddress } from '../../domain/modules/module-rules.js'
import { terraformConstraint } from '../../domain/modules/versions/constraints.js'
import type { VersionRecord } from '../../store/records.js'
import { callerOf, clip, excerpt, pageOf, type AssistantContext } from './assistant-context.js'
import { readmeUri } from './module-resources.js'

/** Inputs shown per answer of get_module, at most: an eks-sized module has more than a hundred. */
const INPUTS_PER_PAGE = 40
const README_EXCERPT = 1500

const moduleArgument = z
  .string()
  .min(1)
  .describe('The module: namespace/name/provider (acme/vpc/aws), optionally after the registry hostname, as in a module source.')
const registryArgument = z.enum(['private', 'public']).optional().describe('private: published here; public: mirrored from the public registry. Both when absent.')

/** The tools over modules: search, read, list versions, write a module block, compare versions. */
export function registerModuleTools(server: McpServer, context: AssistantContext): void {
  const { modules } = context

  server.registerTool(
    'search_modules',
    {
      title: 'Search modules',
      description:
        'Searches the Terraform modules this registry holds for you (private ones, and public ones mirrored here) by words found in their names, descriptions, READMEs, input and output names and resource types; best first. Use the address with get_module.',
      inputSchema: {
        query: z.string().max(200).optional().describe('Words to look for (all must be found), like "vpc private subnets". Empty: every module.'),
        organization: z.string().optional().describe('Only the modules of this organization.'),
        provider: z.string().optional().describe('Only modules for this provider (aws, azurerm, google…).'),
        registry: registryArgument,
        page: z.number().int().min(1).optional().describe('The page, from 1.'),
        page_size: z.number().int().min(1).max(50).optional().describe('Modules per page, 10 unless told (at most 50).')
      },
      outputSchema: {
        query: z.string(),
        page: z.number(),
        page_size: z.number(),
        total: z.number(),
        total_pages: z.number(),
        modules: z.array(
          z.object({
            address: z.string(),
            organization: z.string(),
            registry: z.enum(['private', 'public']),
            latest_version: z.string(),
            description: z.string(),
            matched: z.array(z.string())
          })
        )
      },
      annotations: { readOnlyHint: true, openWorldHint: false }
    },
    async ({ query = '', organization, provider, registry, page, page_size: size }, extra) => {
      const ranked = await modules.search(callerOf(extra), query, { organization, provider, registry })
      const shown = pageOf(ranked, page, size)
      const found = shown.items.map(({ item: { entry, description }, matched }) => ({
        address: `${entry.hostname}/${entry.address}`,
        organization: entry.view.org.name,
        registry: entry.view.module.registryName,
        latest_version: entry.latest.version,
        description: clip(description, 300),
        matched
      }))
      const result = { query, page: shown.page, page_size: shown.page_size, total: shown.total, total_pages: shown.total_pages, modules: found }
      const lines = found.map((entry) => `- ${entry.address} ${entry.latest_version} (${entry.registry}, ${entry.organization}): ${entry.description || 'no description'}`)
      const text =
        found.length === 0
          ? `No module matches "${query}"${organization ? ` in ${organization}` : ''}.`
          : `${shown.total} module${shown.total === 1 ? '' : 's'} match${query ? ` "${query}"` : ''} (page ${shown.page} of ${shown.total_pages}):\n${lines.join('\n')}`
      return { content: [{ type: 'text', text }], structuredContent: result }
    }
  )

  server.registerTool(
    'get_module',
    {
      title: 'Read a module',
      description:
        'A module at a version (the latest unless told): its description, inputs with types, defaults and whether required, outputs, resources, submodules and examples, required providers, and the start of its README (the whole README is the resource readme_uri). Inputs come 40 at a time: ask again with inputs_offset for more.',
      inputSchema: {
        module: moduleArgument,
        version: z.string().optional().describe('An exact version (1.2.0). The latest when absent.'),
        part: z.string().optional().describe('A submodule or example (modules/subnet, examples/basic) instead of the root module.'),
        inputs_offset: z.number().int().min(0).optional().describe('Where the inputs start, for modules with many.')
      },
      outputSchema: {
        address: z.string(),
        registry: z.enum(['private', 'public']),
        organization: z.string(),
        version: z.string(),
        latest_version: z.string(),
        published_at: z.string().nullable(),
        description: z.string(),
        deprecation: z.object({ reason: z.string(), link: z.string().nullable() }).nullable(),
        part: z.string(),
        inputs_total: z.number(),
        required_inputs: z.array(z.string()),
        inputs: z.array(z.object({ name: z.string(), type: z.string(), default: z.string().nullable(), required: z.boolean(), sensitive: z.boolean(), description: z.string() })),
        next_inputs_offset: z.number().nullable(),
        outputs: z.array(z.object({ name: z.string(), description: z.string(), sensitive: z.boolean() })),
        resources: z.array(z.string()),
        providers: z.array(z.object({ name: z.string(), source: z.string(), version: z.string() })),
        required_terraform: z.array(z.string()),
        submodules: z.array(z.string()),
        examples: z.array(z.string()),
        readme_excerpt: z.string(),
        readme_uri: z.string()
      },
      annotations: { readOnlyHint: true, openWorldHint: false }
    },
    async ({ module, version, part = '', inputs_offset: offset = 0 }, extra) => {
      const caller = callerOf(extra)
      const entry = await modules.find(caller, modules.parse(module))
      const target = pickVersion(entry, version)
      const docs = await modules.documentation(target)
      const shown = partOf(docs, part || modules.parse(module).part, entry, target)
      const inputs = [...shown.inputs].sort((a, b) => Number(b.required) - Number(a.required) || a.name.localeCompare(b.name))
      const page = inputs.slice(offset, offset + INPUTS_PER_PAGE)
      const result = {
        address: `${entry.hostname}/${entry.address}`,
        registry: entry.view.module.registryName,
        organization: entry.view.org.name,
        version: target.version,
        latest_version: entry.latest.version,
        published_at: target.publishedAt,
        description: clip(docs.description, 500),
        deprecation: target.deprecation && { reason: target.deprecation.reason, link: target.deprecation.link },
        part: shown.path,
        inputs_total: inputs.length,
        required_inputs: inputs.filter((input) => input.required).map((input) => input.name),
        inputs: page.map((input) => ({
          name: input.name,
          type: clip(input.type.replace(/\s+/g, ' '), 300) || 'any',
          default: input.required ? null : clip(input.default, 200),
          required: input.required,
          sensitive: input.sensitive,
          description: clip(input.description, 240)
        })),
        next_inputs_offset: offset + INPUTS_PER_PAGE < inputs.length ? offset + INPUTS_PER_PAGE : null,
        outputs: shown.outputs.map((output) => ({ name: output.name, description: clip(output.description, 160), sensitive: output.sensitive })),
        resources: [...new Set(shown.resources.map((resource) => resource.type))].sort(),
        providers: shown.providers.map((provider) => ({ name: provider.name, source: provider.source, version: provider.version })),
        required_terraform: shown.requiredCore,
        submodules: docs.submodules.map((candidate) => candidate.path),
        examples: docs.examples.map((candidate) => candidate.path),
        readme_excerpt: excerpt(shown.readme, README_EXCERPT),
        readme_uri: readmeUri(entry, target.version, shown.path)
      }
      const text = [
        `${result.address}${shown.path ? `//${shown.path}` : ''} ${result.version}${result.version === result.latest_version ? ' (latest)' : ` (latest: ${result.latest_version})`}${result.deprecation ? ` — DEPRECATED: ${result.deprecation.reason}` : ''}`,
        result.description,
        `Required inputs: ${result.required_inputs.join(', ') || 'none'}`,
        `Inputs ${offset + 1}–${offset + page.length} of ${inputs.length}:`,
        ...result.inputs.map((input) => `- ${input.name} (${input.type}${input.required ? ', required' : `, default ${input.default}`}): ${input.description}`),
        ...(result.next_inputs_offset === null ? [] : [`More inputs: ask again with inputs_offset ${result.next_inputs_offset}.`]),
        `Outputs: ${result.outputs.map((output) => output.name).join(', ') || 'none'}`,
        `Resources: ${result.resources.join(', ') || 'none'}`,
        `Providers: ${result.providers.map((provider) => `${provider.source}${provider.version ? ` ${provider.version}` : ''}`).join(', ') || 'none'}`,
        `Submodules: ${result.submodules.join(', ') || 'none'}; examples: ${result.examples.join(', ') || 'none'}`,
        `README: ${result.readme_uri}`
      ].join('\n')
      return { content: [{ type: 'text', text }], structuredContent: result }
    }
  )

  server.registerTool(
    'list_versions',
    {
      title: 'List module versions',
      description: 'Every version of a module with its status, publish date, and its publisher’s deprecation or revocation and why; newest first.',
      inputSchema: { module: moduleArgument },
      outputSchema: {
        address: z.string(),
        versions: z.array(
          z.object({
            version: z.string(),
            status: z.string(),
            published_at: z.string().nullable(),
            deprecation: z.object({ reason: z.string(), link: z.string().nullable() }).nullable(),
            revocation: z.object({ message: z.string(), link: z.string().nullable() }).nullable(),
            installable: z.boolean()
          })
        )
      },
      annotations: { readOnlyHint: true, openWorldHint: false }
    },
    async ({ module }, extra) => {
      const caller = callerOf(extra)
      const entry = await modules.find(caller, modules.parse(module))
      const offered = new Set(entry.versions.map((version) => version.id))
      const versions = [...entry.view.module.versions]
        .sort((a, b) => (b.publishedAt ?? b.createdAt).localeCompare(a.publishedAt ?? a.createdAt))
        .map((version) => ({
          version: version.version,
          status: version.status,
          published_at: version.publishedAt,
          deprecation: version.deprecation && { reason: version.deprecation.reason, link: version.deprecation.link },
          revocation: version.revocation && { message: version.revocation.message, link: version.revocation.link },
          installable: offered.has(version.id)
        }))
      const text = versions
        .map(
          (version) =>
            `- ${version.version}: ${version.status}${version.published_at ? `, published ${version.published_at.slice(0, 10)}` : ''}${version.revocation ? `, REVOKED: ${version.revocation.message}` : version.deprecation ? `, deprecated: ${version.deprecation.reason}` : ''}`
        )
        .join('\n')
      return { content: [{ type: 'text', text: `${entry.hostname}/${entry.address}:\n${text}` }], structuredContent: { address: `${entry.hostname}/${entry.address}`, versions } }
    }
  )

  server.registerTool(
    'usage_snippet',
    {
      title: 'Write a module block',
      description:
        'A `module` block for a module at a version or a version constraint, with every required input set to a typed placeholder (the same block as the GUI’s Usage card). Fill the placeholders, then check the result with check_configuration.',
      inputSchema: {
        module: moduleArgument,
        version: z.string().optional().describe('A version or a Terraform constraint (~> 5.0). The latest version when absent.'),
        part: z.string().optional().describe('A submodule or example (modules/subnet) instead of the root.')
      },
      outputSchema: { snippet: z.string(), version: z.string(), resolved_version: z.string(), required_inputs: z.array(z.object({ name: z.string(), type: z.string() })) },
      annotations: { readOnlyHint: true, openWorldHint: false }
    },
    async ({ module, version, part = '' }, extra) => {
      const caller = callerOf(extra)
      const reference = modules.parse(module)
      const entry = await modules.find(caller, reference)
      const target = version === undefined || entry.versions.some((candidate) => candidate.version === version) ? pickVersion(entry, version) : newestMeeting(entry, version)
      const shown = partOf(await modules.documentation(target), part || reference.part, entry, target)
      const [namespace = '', name = '', provider = ''] = entry.address.split('/')
      const required = shown.inputs.filter((input) => input.required).map((input) => ({ name: input.name, type: input.type }))
      const snippet = moduleBlock({ hostname: entry.hostname, namespace, name, provider, version: version ?? target.version, part: shown.path }, required)
      return {
        content: [{ type: 'text', text: snippet }],
        structuredContent: { snippet, version: version ?? target.version, resolved_version: target.version, required_inputs: required.map((input) => ({ name: input.name, type: input.type.replace(/\s+/g, ' ') })) }
      }
    }
  )

  server.registerTool(
    'compare_versions',
    {
      title: 'Compare two versions',
      description:
        'What changes in a module’s interface between two versions (by default the latest and the one before): inputs and outputs added, removed, renamed, retyped, made required; each change breaking, additive or neither, and whether the semantic-version step says so. Tells what an upgrade breaks.',
      inputSchema: {
        module: moduleArgument,
        from: z.string().optional().describe('The older version; the one before `to` when absent.'),
        to: z.string().optional().describe('The newer version; the latest when absent.')
      },
      outputSchema: {
        from: z.string().nullable(),
        to: z.string(),
        impact: z.enum(['breaking', 'additive', 'none']),
        step: z.string(),
        verdict: z.string().nullable(),
        changes: z.array(z.object({ impact: z.string(), kind: z.string(), part: z.string(), detail: z.string() }))
      },
      annotations: { readOnlyHint: true, openWorldHint: false }
    },
    async ({ module, from, to }, extra) => {
      const caller = callerOf(extra)
      const entry = await modules.find(caller, modules.parse(module))
      const [namespace = '', name = '', provider = ''] = entry.address.split('/')
      const address: ModuleAddress = { organization: entry.view.org.name, registryName: entry.view.module.registryName, namespace, name, provider }
      const comparison = await context.services.versionComparer.compare(caller, address, { from, to })
      const result = {
        from: comparison.from,
        to: comparison.to,
        impact: comparison.impact,
        step: comparison.step,
        verdict: comparison.verdict,
        changes: comparison.changes.map((change) => ({ impact: change.impact, kind: change.kind, part: change.part, detail: change.detail }))
      }
      const text = [
        `${entry.address} ${result.from ?? '(first version)'} → ${result.to}: ${result.impact} (${result.step} step)${result.verdict ? `. ${result.verdict}` : ''}`,
        ...result.changes.map((change) => `- [${change.impact}] ${change.detail}`)
      ].join('\n')
      return { content: [{ type: 'text', text }], structuredContent: result }
    }
  )
}

/** An exact version among those offered, or the latest. */
function pickVersion(entry: CatalogEntry, version: string | undefined): VersionRecord {
  if (version === undefined) return entry.latest
  const found = entry.versions.find((candidate) => candidate.version === version.replace(/^v/, ''))
  if (!found) throw new NotFoundError(`${entry.address} has no version ${version} you may install; versions: ${entry.versions.map((candidate) => candidate.version).join(', ')}`, false)
  return found
}

/** The newest version meeting a Terraform constraint, as `terraform init` picks it. */
function newestMeeting(entry: CatalogEntry, constraint: string): VersionRecord {
  const meets = terraformConstraint(constraint, 'version')
  const found = entry.versions.find((candidate) => meets(candidate.version))
  if (!found) throw new NotFoundError(`No version of ${entry.address} meets "${constraint}"; versions: ${entry.versions.map((candidate) => candidate.version).join(', ')}`, false)
  return found
}

/** The root, or a submodule or example by its path. */
function partOf(docs: ModuleDocs, path: string, entry: CatalogEntry, version: VersionRecord): ModulePart {
  if (path === '') return docs.root
  const found = [...docs.submodules, ...docs.examples].find((candidate) => candidate.path === path.replace(/^\/+|\/+$/g, ''))
  if (!found) {
    throw new NotFoundError(`${entry.address} ${version.version} has no ${path}; its parts: ${[...docs.submodules, ...docs.examples].map((candidate) => candidate.path).join(', ') || 'none'}`, false)
  }
  return found
}
