import { readFile } from 'node:fs/promises'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { UsageError } from '../boot/options.js'
import { command, DATA_DIR_OPTIONS } from './command.js'
import { HomeportClient } from './lib/client.js'
import { requireRunning } from './lib/running.js'

export const mcp = command({
  name: 'mcp',
  synopsis: '[--url <url> (--token-file <file> | --token <token>)] [--data-dir <path>]',
  description: `serves Homeport's MCP tools over stdio, for desktop assistants: it relays each message to
  the /mcp endpoint of the Homeport at --url (or HOMEPORT_URL) with the token in HOMEPORT_TOKEN (or
  --token-file, or --token, which other users of the machine see in ps for as long as it runs), or,
  with neither, of the one running on the data directory, with its admin token.`,
  options: { ...DATA_DIR_OPTIONS, url: { type: 'string' }, 'token-file': { type: 'string' } },
  async run({ values, positionals }) {
    if (positionals.length > 0) throw new UsageError('homeport mcp takes no arguments.')
    const url = values.url ?? process.env.HOMEPORT_URL
    if (values.token !== undefined && values['token-file'] !== undefined) throw new UsageError('Give the token one way: --token-file or --token.')
    // On stderr: stdout carries the protocol.
    if (values.token !== undefined) console.error('homeport mcp: the token is on the command line, where other users of this machine see it (ps) while the assistant runs: prefer HOMEPORT_TOKEN or --token-file.')
    const token = values.token ?? (values['token-file'] === undefined ? undefined : await readTokenFile(values['token-file'])) ?? process.env.HOMEPORT_TOKEN
    let client: HomeportClient
    if (url) {
      if (!token) throw new UsageError('Give the token the assistant acts with: --token, or HOMEPORT_TOKEN (a team token sees what that team sees).')
      client = new HomeportClient(url.replace(/\/+$/, ''), token)
    } else client = (await requireRunning({ ...values, token }, 'then start the assistant again')).client
    await relay(client)
  }
})

/** The token a file holds (its first line, trimmed), as `--token-file` names it. */
async function readTokenFile(path: string): Promise<string> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`--token-file ${path} cannot be read (${error.code ?? error.message}).`)
  })
  const token = text.split(/\r?\n/)[0]!.trim()
  if (!token) throw new UsageError(`--token-file ${path} holds no token.`)
  return token
}

/**
 * Relays MCP between stdio and the Homeport's Streamable HTTP endpoint, message for message: the
 * tools run in the server, with the server's authorization, and this process only carries them. A
 * request the server refuses (a bad token, Homeport gone) is answered with a JSON-RPC error saying
 * why, so the assistant shows it rather than waiting.
 */
async function relay(client: HomeportClient): Promise<void> {
  // The SDK is loaded here, not with every command.
  const [{ StreamableHTTPClientTransport }, { StdioServerTransport }, { isJSONRPCRequest, isJSONRPCResultResponse }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js')
  ])
  const local = new StdioServerTransport()
  const remote = new StreamableHTTPClientTransport(new URL(`${client.url}/mcp`), { fetch: await client.fetcher() })
  const initializing = new Set<string | number>()
  let closing = false
  const close = async () => {
    if (closing) return
    closing = true
    await Promise.allSettled([remote.close(), local.close()])
  }
  local.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializing.add(message.id)
    remote.send(message).catch(async (error: Error) => {
      console.error(`homeport mcp: ${error.message}`)
      if (isJSONRPCRequest(message)) await local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `Homeport at ${client.url}: ${reason(error)}` } })
    })
  }
  remote.onmessage = (message: JSONRPCMessage) => {
    // The protocol version agreed at initialize goes on every later request, as the SDK's own client does.
    if (isJSONRPCResultResponse(message) && initializing.delete(message.id)) remote.setProtocolVersion(String((message.result as { protocolVersion?: string }).protocolVersion))
    void local.send(message)
  }
  remote.onerror = (error) => console.error(`homeport mcp: ${error.message}`)
  local.onclose = () => void close()
  await remote.start()
  await local.start()
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve)
    process.stdin.once('close', resolve)
  })
  await close()
}

/** Why a relayed message failed, in Homeport's words when it answered (the details of its JSON:API errors). */
function reason(error: Error): string {
  const body = /\{"errors":.*\}/s.exec(error.message)?.[0]
  try {
    const details = (JSON.parse(body ?? '') as { errors: Array<{ detail?: string }> }).errors.map((each) => each.detail).filter(Boolean)
    if (details.length > 0) return details.join(' ')
  } catch {
    // Not Homeport's answer (nothing listens there, a proxy's page): the error says what happened.
  }
  return `could not be reached or refused: ${error.message}`
}
