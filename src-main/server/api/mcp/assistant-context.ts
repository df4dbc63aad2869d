import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js'
import type { Caller } from '../../domain/core/access.js'
import type { ModuleCatalog } from '../../domain/assistant/module-catalog.js'
import type { ProviderCatalog } from '../../domain/assistant/provider-catalog.js'
import type { Services } from '../../domain/services.js'

/** What the MCP tools, resources and prompts are given: the domain's services, and this registry's hostname. */
export interface AssistantContext {
  services: Services
  modules: ModuleCatalog
  providers: ProviderCatalog
  /** The hostname Terraform sources name this registry by. */
  registryHostname: string
}

export function assistantContext(services: Services, registryHostname: string): AssistantContext {
  return { services, modules: services.moduleCatalog, providers: services.providerCatalog, registryHostname }
}

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

/**
 * The caller of the HTTP request that carried this MCP message: the router authenticates every
 * request with its bearer token (as the API does) and hands the caller on in the auth info, so a
 * token revoked mid-session stops at its next request.
 */
export function callerOf(extra: Extra): Caller {
  const caller = (extra.authInfo?.extra as { caller?: Caller } | undefined)?.caller
  if (!caller) throw new Error('the MCP request reached a tool without an authenticated caller')
  return caller
}

/** `text` on one line, cut to `max` characters with an ellipsis: what keeps an answer within an assistant's context. */
export function clip(text: string, max: number): string {
  return excerpt(text.replace(/\s+/g, ' '), max)
}

/** `text` as written (its lines kept), cut to `max` characters with an ellipsis. */
export function excerpt(text: string, max: number): string {
  const trimmed = text.trim()
  return trimmed.length <= max ? trimmed : `${trimmed.slice(0, max - 1).trimEnd()}…`
}

/** A page of `items`: 1-based, with its size bounded. */
export function pageOf<T>(items: T[], page = 1, size = 10): { items: T[]; page: number; page_size: number; total: number; total_pages: number } {
  const total = items.length
  return { items: items.slice((page - 1) * size, page * size), page, page_size: size, total, total_pages: Math.ceil(total / size) }
}
