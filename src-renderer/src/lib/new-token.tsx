import type { ReactNode } from 'react'
import { CopyButton } from './copy-button'

/**
 * A token just made, shown the one time it can be: its text to copy, and Done to put it away. `label`
 * names it for assistive technology ("New API token"); `title`, where several kinds are listed, says whose.
 */
export function NewToken({ token, label, title, className = 'notice stack-tight', onDone }: { token: string; label: string; title?: ReactNode; className?: string; onDone: () => void }) {
  return (
    <div className={className} role="status">
      {title}
      <p>Copy it now: Homeport keeps only its hash and will not show it again.</p>
      <div className="token-line">
        <code aria-label={label}>{token}</code>
        <CopyButton text={token} />
      </div>
      <button type="button" className="link fit" onClick={onDone}>
        Done
      </button>
    </div>
  )
}
