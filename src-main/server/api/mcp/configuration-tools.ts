import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { checkConfiguration } from '../../domain/assistant/configuration-check.js'
import { InvalidInputError } from '../../domain/core/errors.js'
import { callerOf, type AssistantContext } from './assistant-context.js'

/** A configuration's text, at most: a folder of .tf files, never an archive. */
const MAX_TEXT = 512 * 1024

/** check_configuration, and the prompt that walks from a need to a checked `module` block. */
export function registerConfigurationTools(server: McpServer, context: AssistantContext): void {
  server.registerTool(
    'check_configuration',
    {
      title: 'Check module blocks',
      description:
        'Checks the `module` blocks of Terraform configuration against this registry, as terraform init and validate would and more: each source resolved to the version Terraform would install, unknown modules, versions no constraint meets or that were revoked, deprecated versions with the reason, required inputs left out, and inputs the module does not have. Give one file as `text`, or a folder’s .tf files as `files`.',
      inputSchema: {
        text: z.string().optional().describe('One file of Terraform configuration (HCL).'),
        files: z
          .array(z.object({ name: z.string().min(1).describe('The file name, like main.tf.'), text: z.string() }))
          .max(100)
          .optional()
          .describe('Several files of one configuration folder.')
      },
      outputSchema: {
        ok: z.boolean(),
        modules: z.array(
          z.object({
            block: z.string(),
            file: z.string(),
            source: z.string(),
            constraint: z.string().nullable(),
            selected: z.string().nullable(),
            findings: z.array(z.object({ severity: z.enum(['error', 'warning', 'info']), code: z.string(), message: z.string() }))
          })
        )
      },
      annotations: { readOnlyHint: true, openWorldHint: false }
    },
    async ({ text, files }, extra) => {
      const given = [...(text === undefined ? [] : [{ name: 'main.tf', text }]), ...(files ?? [])]
      if (given.length === 0) throw new InvalidInputError('Give the configuration: text (one file) or files (several).', 'text')
      if (given.reduce((total, file) => total + file.text.length, 0) > MAX_TEXT) throw new InvalidInputError('The configuration is larger than 512 KB: give the files with module blocks.', 'files')
      const report = await checkConfiguration(callerOf(extra), context.modules, (name, body) => context.services.ingest.parse(name, body), given)
      const lines = report.modules.map((block) => {
        const head = `module "${block.block}" (${block.file}): ${block.source}${block.constraint ? ` ${block.constraint}` : ''}${block.selected ? ` → ${block.selected}` : ''}`
        return [head, ...block.findings.map((finding) => `  - ${finding.severity}: ${finding.message}`)].join('\n')
      })
      const summary = report.modules.length === 0 ? 'No module block found.' : report.ok ? 'No errors.' : 'There are errors to fix.'
      return { content: [{ type: 'text', text: [summary, ...lines].join('\n') }], structuredContent: { ...report } }
    }
  )

  server.registerPrompt(
    'use-private-module',
    {
      title: 'Use a private module',
      description: 'Finds a module of this registry for a need, reads it, writes its module block and checks it.',
      argsSchema: { need: z.string().describe('What the configuration needs, like "a VPC with private subnets in three zones".') }
    },
    ({ need }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: [
              `I need ${need}. Use the modules of our Terraform registry (Homeport, ${context.registryHostname}) rather than writing resources by hand:`,
              '1. search_modules with the key words of the need; prefer private modules, then mirrored public ones.',
              '2. get_module on the best match: read its required inputs, their types and descriptions, and its outputs. Ask me for values you cannot infer.',
              '3. usage_snippet for that module (a "~> major.minor" constraint of its latest version), then fill in every required input.',
              '4. check_configuration on the block you wrote; fix every error it reports, and tell me about any warning (a deprecated version says why).',
              'Give me the final module block, and which outputs I will likely need.'
            ].join('\n')
          }
        }
      ]
    })
  )
}
