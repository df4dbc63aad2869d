import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { AssistantContext } from './assistant-context.js'
import { registerConfigurationTools } from './configuration-tools.js'
import { registerModuleResources } from './module-resources.js'
import { registerModuleTools } from './module-tools.js'
import { registerProviderTools } from './provider-tools.js'
import { registerProviderDocsTools } from './provider-docs-tools.js'

/** What an assistant is told of this server when it connects. */
const INSTRUCTIONS = `Homeport is a private Terraform and OpenTofu registry. Its tools read the modules and providers the token you were given may install: the organization's private ones, and public ones mirrored here for offline use. Prefer them to writing resources by hand or to public modules you cannot check. Typical flow: search_modules, get_module, usage_snippet, then check_configuration on what you wrote. Everything is read-only.`

/** One MCP server (one per session): Homeport's tools, resources and prompt over the domain. */
export function createAssistantServer(context: AssistantContext, version: string): McpServer {
  const server = new McpServer({ name: 'homeport', title: 'Homeport registry', version }, { instructions: INSTRUCTIONS, capabilities: { logging: {} } })
  registerModuleTools(server, context)
  registerProviderTools(server, context)
  registerProviderDocsTools(server, context)
  registerConfigurationTools(server, context)
  registerModuleResources(server, context)
  return server
}
