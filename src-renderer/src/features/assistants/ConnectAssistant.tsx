import { useQuery } from '@tanstack/react-query'
import { CopyButton } from '../../lib/copy-button'
import { useSession } from '../../lib/session'
import { ErrorMessage } from '../../lib/ui'
import { serverInfoOptions } from '../terraform/api'

/** What stands for the token in the snippets: a team's, so the assistant sees what that team sees and may change nothing. */
const TOKEN = '<a team token>'

/**
 * Where an assistant reaches Homeport's MCP server, and the configuration to paste into one: over
 * HTTP for assistants that send headers (Claude Code, VS Code, Cursor…), and over stdio through
 * `homeport mcp` for those that start a command (Claude Desktop…).
 */
export function ConnectAssistant() {
  const { client } = useSession()
  const info = useQuery(serverInfoOptions(client))
  if (info.isPending) return null
  if (info.isError) return <ErrorMessage error={info.error} action="Could not read the server’s address" />
  const endpoint = `${info.data.serverUrl}/mcp`
  const http = JSON.stringify({ mcpServers: { homeport: { type: 'http', url: endpoint, headers: { Authorization: `Bearer ${TOKEN}` } } } }, null, 2)
  const stdio = JSON.stringify({ mcpServers: { homeport: { command: 'homeport', args: ['mcp', '--url', info.data.serverUrl], env: { HOMEPORT_TOKEN: TOKEN } } } }, null, 2)
  return (
    <section className="card padded stack-tight" aria-labelledby="assistants-heading">
      <h2 id="assistants-heading">Assistants (MCP)</h2>
      <p className="muted">
        Assistants search and read this registry’s modules and providers through its MCP server, at <code>{endpoint}</code>, and check the module blocks they
        write. Give them a team’s token (an organization’s Teams page makes one): they see what that team sees, and change nothing.
      </p>
      <Configuration transport="HTTP" clients="Claude Code, VS Code, Cursor…" text={http} />
      <Configuration transport="stdio" clients="Claude Desktop, and assistants that start a command" text={stdio} />
      <p className="hint">
        <code>homeport</code> is the command line (<code>node out/main/cli.js</code> in a checkout). Replace <code>{TOKEN}</code> in either.
      </p>
    </section>
  )
}

/** One configuration to paste, with the assistants it suits and a button that copies it. */
function Configuration({ transport, clients, text }: { transport: string; clients: string; text: string }) {
  return (
    <>
      <div className="snippet-header">
        <p>
          <strong>Over {transport}</strong> <span className="muted">({clients})</span>
        </p>
        <CopyButton text={text} label={`Copy ${transport} configuration`} />
      </div>
      <pre className="keep-lines" aria-label={`MCP configuration over ${transport}`} tabIndex={0}>
        {text}
      </pre>
    </>
  )
}
