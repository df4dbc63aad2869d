import type { InterfaceDiffAttributes } from './api'

const TONES = { breaking: 'bad', additive: 'info', none: 'neutral' } as const

/** An interface diff: the verdict when the version step is too small for the change, then each change with its impact. */
export function InterfaceChanges({ diff }: { diff: InterfaceDiffAttributes }) {
  if (diff.from === null) return <p className="muted">{diff.to} is the first version: there is nothing before it to compare with.</p>
  return (
    <div className="stack-tight">
      {diff.verdict && (
        <p className="interface-verdict" role="alert">
          <Code text={diff.verdict} />
        </p>
      )}
      {diff.changes.length === 0 ? (
        <p className="muted">
          No change to the interface from {diff.from} to {diff.to}.
        </p>
      ) : (
        <ul className="interface-changes" aria-label={`Interface changes from ${diff.from} to ${diff.to}`}>
          {diff.changes.map((change, index) => (
            <li key={index}>
              <span className={`badge ${TONES[change.impact]}`}>{change.impact}</span> {diff.to} <Code text={change.detail} />
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

/** The detail's `names` in code style, the rest as text. */
function Code({ text }: { text: string }) {
  return <>{text.split('`').map((piece, index) => (index % 2 === 1 ? <code key={index}>{piece}</code> : piece))}</>
}
