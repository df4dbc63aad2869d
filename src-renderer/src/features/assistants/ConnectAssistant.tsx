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
      <div className="snippet-header">
        <p>
          <strong>Over HTTP</strong> <span className="muted">(Claude Code, VS Code, Cursor…)</span>
        </p>
        <CopyButton text={http} label="Copy HTTP configuration" />
      </div>
      <pre className="keep-lines" aria-label="MCP configuration over HTTP" tabIndex={0}>
        {http}
      </pre>
      <div className="snippet-header">
        <p>
          <strong>Over stdio</strong> <span className="muted">(Claude Desktop, and assistants that start a command)</span>
        </p>
        <CopyButton text={stdio} label="Copy stdio configuration" />
      </div>
      <pre className="keep-lines" aria-label="MCP configuration over stdio" tabIndex={0}>
        {stdio}
      </pre>
      <p className="hint">
        <code>homeport</code> is the command line (<code>node out/main/cli.js</code> in a checkout). Replace <code>{TOKEN}</code> in either.
      </p>
    </section>
  )
}
