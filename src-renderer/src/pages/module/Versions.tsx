import { useEffect, useRef, useState } from 'react'
import { AppLink } from '../../lib/link'
import { navigate } from '../../lib/router'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ConfirmButton, ErrorMessage, StatusBadge } from '../../lib/ui'
import { modulePath, useDeleteAt, useModuleAction, type ModuleAddress, type ModuleAttributes } from '../../features/modules/api'

/** How many versions show before "Show all". */
const FIRST_SHOWN = 20

/** Every version with its status, publish date, deprecation or revocation; retry and delete where allowed. */
export function Versions({ address, attributes, selected }: { address: ModuleAddress; attributes: ModuleAttributes; selected?: string }) {
  const { client } = useSession()
  const remove = useDeleteAt(client, address.org)
  const action = useModuleAction(client, address.org)
  const statuses = attributes['version-statuses']
  // The newest first, down to the version shown at least; the rest on asking (a module of 500 versions drew 500 rows on each visit).
  const firstCount = Math.max(FIRST_SHOWN, statuses.findIndex((entry) => entry.version === selected) + 1)
  /** Where the versions shown on asking begin: the focus goes there, the button that asked being gone. */
  const [revealedFrom, setRevealedFrom] = useState<number | undefined>(undefined)
  const firstRevealed = useRef<HTMLLIElement>(null)
  useEffect(() => firstRevealed.current?.focus(), [revealedFrom])
  const shown = revealedFrom === undefined ? statuses.slice(0, firstCount) : statuses
  const publishedAt = new Map(attributes['published-versions'].map((entry) => [entry.version, entry['published-at']]))
  return (
    <div className="card padded">
      <h2 id="versions-heading" tabIndex={-1}>
        Versions
      </h2>
      {statuses.length === 0 && <p className="muted">None yet.</p>}
      <ul className="versions" aria-label="Versions">
        {shown.map((entry, index) => (
          <li
            key={entry.version}
            aria-current={entry.version === selected ? 'true' : undefined}
            {...(index === revealedFrom ? { ref: firstRevealed, tabIndex: -1 } : {})}
          >
            <div className="version-line">
              {entry.status === 'ok' ? (
                <AppLink to={{ page: 'module', ...address, version: entry.version }}>{entry.version}</AppLink>
              ) : (
                <span>{entry.version}</span>
              )}
              <StatusBadge status={entry.status} />
              {publishedAt.get(entry.version) && <span className="muted small">{formatDate(publishedAt.get(entry.version))}</span>}
              {attributes['revoked-versions'].includes(entry.version) ? (
                <span className="badge bad">revoked</span>
              ) : (
                attributes['deprecated-versions'].includes(entry.version) && <span className="badge warn">deprecated</span>
              )}
              {attributes.permissions['can-retry'] && attributes['vcs-repo'] && entry.status.endsWith('failed') && (
                <button type="button" className="link" onClick={() => action.mutate(`${modulePath(address)}/${encodeURIComponent(entry.version)}/actions/retry`)}>
                  Retry
                </button>
              )}
              {attributes.permissions['can-delete'] && attributes['registry-name'] === 'private' && (
                <ConfirmButton
                  label="Delete"
                  subject={entry.version}
                  confirm={
                    statuses.length === 1
                      ? `Delete ${entry.version}? It is the last version: ${attributes.namespace}/${attributes.name}/${attributes.provider} goes with it.`
                      : `Delete ${entry.version}?`
                  }
                  busy={remove.isPending}
                  onConfirm={() =>
                    // The module went with its last version: its page has nothing left to show. (The promise, not an
                    // onSuccess callback: this page unmounts when the module's refetch finds it gone.)
                    void remove.mutateAsync(`${modulePath(address)}/${encodeURIComponent(entry.version)}`).then(() => {
                      if (statuses.length === 1) navigate({ page: 'organization', org: address.org, tab: 'modules' })
                      // The button went with its version: the focus goes to the list's heading, not to the page's start.
                      else document.getElementById('versions-heading')?.focus()
                    }, () => undefined)
                  }
                />
              )}
            </div>
            {entry.error && <p className="error small">{entry.error}</p>}
          </li>
        ))}
      </ul>
      {shown.length < statuses.length && (
        <button type="button" className="link" onClick={() => setRevealedFrom(shown.length)}>
          Show all {statuses.length} versions
        </button>
      )}
      <ErrorMessage error={remove.error ?? action.error} />
    </div>
  )
}
