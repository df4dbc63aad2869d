import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CatalogEntry } from '../../domain/assistant/module-catalog.js'
import { NotFoundError } from '../../domain/core/errors.js'
import type { ModulePart } from '../../domain/archives/module-docs.js'
import { decodedSegment } from '../../http/decode.js'
import { callerOf, type AssistantContext } from './assistant-context.js'

/**
 * Each module version's README, and each part's documentation, as MCP resources: the whole text
 * an answer of get_module only starts. Addressed by registry, module and version, the part's path
 * percent-encoded (`modules%2Fsubnet`): `homeport://modules/private/acme/vpc/aws/1.2.0/readme`.
 */
const README = 'homeport://modules/{registry}/{namespace}/{name}/{provider}/{version}/readme'
const PART = 'homeport://modules/{registry}/{namespace}/{name}/{provider}/{version}/parts/{part}'

export function readmeUri(entry: CatalogEntry, version: string, part = ''): string {
  const base = `homeport://modules/${entry.view.module.registryName}/${entry.address}/${version}`
  return part === '' ? `${base}/readme` : `${base}/parts/${encodeURIComponent(part)}`
}

export function registerModuleResources(server: McpServer, context: AssistantContext): void {
  const { modules } = context
  const resolve = async (variables: Record<string, string | string[]>, extra: Parameters<typeof callerOf>[0]) => {
    const value = (name: string) => decodedOrUnknown(String(variables[name] ?? ''))
    const registry = value('registry')
    if (registry !== 'private' && registry !== 'public') throw new NotFoundError(`No registry ${registry}: private or public`, false)
    const entry = await modules.find(callerOf(extra), { namespace: value('namespace'), name: value('name'), provider: value('provider'), registry, part: '' })
    const version = entry.versions.find((candidate) => candidate.version === value('version'))
    if (!version) throw new NotFoundError(`${entry.address} has no version ${value('version')} you may install`, false)
    return { entry, version, docs: await modules.documentation(version) }
  }

  server.registerResource(
    'module-readme',
    new ResourceTemplate(README, {
      // The latest version of each module the caller reads: listing every version of every module would bury them.
      list: async (extra) => ({
        resources: (await modules.entries(callerOf(extra))).map((entry) => ({
          uri: readmeUri(entry, entry.latest.version),
          name: `${entry.address} ${entry.latest.version} README`,
          mimeType: 'text/markdown'
        }))
      })
    }),
    { title: 'A module version’s README', description: 'The root README of a module at a version, as published.', mimeType: 'text/markdown' },
    async (uri, variables, extra) => {
      const { docs } = await resolve(variables, extra)
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: docs.root.readme || '(This version has no README.)' }] }
    }
  )

  server.registerResource(
    'module-part',
    new ResourceTemplate(PART, { list: undefined }),
    {
      title: 'A submodule’s or example’s documentation',
      description: 'A part of a module version (modules/<name> or examples/<name>, percent-encoded): its README, inputs, outputs and resources, as Markdown.',
      mimeType: 'text/markdown'
    },
    async (uri, variables, extra) => {
      const { entry, version, docs } = await resolve(variables, extra)
      const path = decodedOrUnknown(String(variables.part ?? ''))
      const part = [...docs.submodules, ...docs.examples].find((candidate) => candidate.path === path)
      if (!part) throw new NotFoundError(`${entry.address} ${version.version} has no ${path}`, false)
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: partMarkdown(`${entry.address}//${path} ${version.version}`, part) }] }
    }
  )
}

/** A part's documentation as a terraform-docs page: its README, then its inputs, outputs and resources. */
function partMarkdown(title: string, part: ModulePart): string {
  const cell = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|')
  return [
    `# ${title}`,
    '',
    part.readme.trim(),
    '',
    '## Inputs',
    '',
    '| Name | Type | Default | Required | Description |',
    '|---|---|---|---|---|',
    ...part.inputs.map((input) => `| ${input.name} | \`${cell(input.type || 'any')}\` | ${input.required ? 'n/a' : `\`${cell(input.default)}\``} | ${input.required ? 'yes' : 'no'} | ${cell(input.description)} |`),
    '',
    '## Outputs',
    '',
    '| Name | Description |',
    '|---|---|',
    ...part.outputs.map((output) => `| ${output.name} | ${cell(output.description)} |`),
    '',
    '## Resources',
    '',
    ...part.resources.map((resource) => `- ${resource.type}.${resource.name}`)
  ].join('\n')
}

/** A resource URI's variable, decoded; one that is not valid percent-encoding names nothing here. */
function decodedOrUnknown(text: string): string {
  const decoded = decodedSegment(text)
  if (decoded === undefined) throw new NotFoundError(`"${text}" is not percent-encoded text`, false)
  return decoded
}
