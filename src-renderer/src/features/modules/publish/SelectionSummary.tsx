import { useState } from 'react'
import { formatBytes } from '../../../lib/format'
import type { FolderSelection } from '../../../lib/module-folder'

/** What a chosen folder puts in the module: how many files and bytes, the files themselves on demand, and what its .terraformignore leaves out. */
export function SelectionSummary({ selection }: { selection: FolderSelection }) {
  const [showFiles, setShowFiles] = useState(false)
  return (
    <div className="card padded">
      <div className="snippet-header">
        <h3>
          {selection.folder || 'Dropped files'}: {selection.included.length} file{selection.included.length === 1 ? '' : 's'},{' '}
          {formatBytes(selection.included.reduce((sum, entry) => sum + entry.file.size, 0))}
        </h3>
        <button type="button" className="link" onClick={() => setShowFiles(!showFiles)} aria-expanded={showFiles}>
          {showFiles ? 'Hide files' : 'Show files'}
        </button>
      </div>
      {selection.terraformignore && <p className="hint">Its .terraformignore applies.</p>}
      {!selection.included.some((entry) => /^[^/]+\.tf(\.json)?$/.test(entry.path)) && (
        <p className="warning">There are no .tf files at the folder’s top: is this the module’s own folder?</p>
      )}
      {showFiles && (
        // It scrolls: focusable, and named, so a keyboard reaches every file (axe: scrollable-region-focusable).
        <div className="file-lists" role="region" aria-label="Files" tabIndex={0}>
          <ul aria-label="Files to publish">
            {selection.included.map((entry) => (
              <li key={entry.path}>
                <code>{entry.path}</code>
              </li>
            ))}
          </ul>
          {selection.excluded.length > 0 && (
            <ul aria-label="Files left out" className="muted">
              {selection.excluded.slice(0, 200).map((path) => (
                <li key={path}>
                  <s>{path}</s>
                </li>
              ))}
              {selection.excluded.length > 200 && <li>…and {selection.excluded.length - 200} more</li>}
            </ul>
          )}
        </div>
      )}
    </div>
  )
}
