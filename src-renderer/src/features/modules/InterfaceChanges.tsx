import type { InterfaceDiffAttributes } from './api'

const TONES = { breaking: 'bad', additive: 'info', none: 'neutral' } as const

/** An interface diff: the verdict when the version step is too small for the change, then each change with its impact. */
export function InterfaceChanges({ diff }: { diff: InterfaceDiffAttributes }) {
  if (diff.from === null) return <FirstVersion diff={diff} />
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

/** A first version: nothing to compare with; before it is published, the interface it would have. */
function FirstVersion({ diff }: { diff: InterfaceDiffAttributes }) {
  const shape = diff.interface
  const required = shape?.inputs.filter((input) => input.required).length ?? 0
  return (
    <div className="stack-tight">
      <p className="muted">{diff.to} is the first version: there is nothing before it to compare with.</p>
      {shape && (
        <div className="first-interface">
          <p>
            Its interface: {shape.inputs.length} input{shape.inputs.length === 1 ? '' : 's'} ({required} required), {shape.outputs.length} output
            {shape.outputs.length === 1 ? '' : 's'}.
          </p>
          {shape.inputs.length > 0 && (
            <ul aria-label={`Inputs of ${diff.to}`}>
              {shape.inputs.map((input) => (
                <li key={input.name}>
                  <code>{input.name}</code> <span className="muted">{input.type.replace(/\s+/g, ' ') || 'any type'}</span>
                  {input.required && (
                    <>
                      {' '}
                      <span className="badge warn">required</span>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
          {shape.outputs.length > 0 && (
            <ul aria-label={`Outputs of ${diff.to}`}>
              {shape.outputs.map((output) => (
                <li key={output}>
                  <code>{output}</code>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  )
}

/** The detail's `names` in code style, the rest as text. */
function Code({ text }: { text: string }) {
  return <>{text.split('`').map((piece, index) => (index % 2 === 1 ? <code key={index}>{piece}</code> : piece))}</>
}
