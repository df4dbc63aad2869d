import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { CopyButton } from '../../lib/copy-button'
import { formatDateTime } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ErrorMessage } from '../../lib/ui'
import { moduleOptions, modulePath, useModuleAction, type ModuleAddress, type ModuleAttributes } from '../../features/modules/api'

/** A module published from git: its repository, how versions are read from it, and reading its tags now. */
export function VcsCard({ address, attributes }: { address: ModuleAddress; attributes: ModuleAttributes }) {
  const { client } = useSession()
  const action = useModuleAction(client, address.org)
  const vcs = attributes['vcs-repo']!
  /** When "Read tags now" was asked, the last reading it waits to be replaced (the server reads in the background). */
  const [asked, setAsked] = useState<{ syncedAt: string | null } | undefined>(undefined)
  const reading = asked !== undefined && vcs['synced-at'] === asked.syncedAt
  // Polls the module while the reading runs; its new versions then poll by themselves until they are published.
  useQuery({ ...moduleOptions(client, address), refetchInterval: reading ? 1000 : false })
  return (
    <div className="card padded stack-tight">
      <h2>Repository</h2>
      <p className="break">
        {/* Where the repository lives is for publishers; everyone else gets its name. */}
        <code>{vcs['repository-http-url'] ?? vcs['display-identifier']}</code>
      </p>
      <p className="muted">
        {vcs.branch ? `Versions from branch ${vcs.branch}` : `Every version tag${vcs['tag-prefix'] ? ` starting ${vcs['tag-prefix']}` : ''}`}
        {vcs['source-directory'] ? `, folder ${vcs['source-directory']}` : ''}. Tags read {formatDateTime(vcs['synced-at'])}.
      </p>
      {vcs['sync-error'] && <p className="error">{vcs['sync-error']}</p>}
      {vcs['webhook-url'] && (
        <div className="stack-tight">
          <p className="muted">New tags are read every few minutes, and at once when the repository’s hook calls:</p>
          <div className="token-line">
            <code aria-label="Webhook URL">{vcs['webhook-url']}</code>
            <CopyButton text={vcs['webhook-url']} />
          </div>
        </div>
      )}
      {attributes.permissions['can-resync'] && !vcs.branch && (
        <button
          type="button"
          onClick={() => action.mutate(`${modulePath(address)}/actions/resync`, { onSuccess: () => setAsked({ syncedAt: vcs['synced-at'] }) })}
          disabled={action.isPending || reading}
        >
          {action.isPending || reading ? 'Reading tags…' : 'Read tags now'}
        </button>
      )}
      <ErrorMessage error={action.error} />
    </div>
  )
}
