import { useDeferredValue, useState } from 'react'
import { Markdown } from '../../lib/markdown'
import { FoldedCode } from './FoldedCode'
import type { ProtocolPart } from './api'

type Input = ProtocolPart['inputs'][number]

/**
 * A module part's inputs as a reader of a real module needs them (hundreds, with long descriptions
 * and multi-line object defaults): required and optional apart, filtered by name or words, each with
 * its type, its description as Markdown and its default laid out, instead of one table far wider than
 * the page.
 */
export function InputsList({ inputs }: { inputs: Input[] }) {
  const [filter, setFilter] = useState('')
  const wanted = useDeferredValue(filter.trim().toLowerCase())
  const shown = wanted ? inputs.filter((input) => input.name.toLowerCase().includes(wanted) || input.description.toLowerCase().includes(wanted)) : inputs
  const required = shown.filter((input) => input.required)
  const optional = shown.filter((input) => !input.required)
  return (
    <div className="stack-tight">
      <input
        type="search"
        className="search"
        aria-label="Filter inputs by name or description"
        placeholder={`Filter ${inputs.length} inputs`}
        value={filter}
        onChange={(event) => setFilter(event.target.value)}
      />
      {shown.length === 0 && <p className="muted">No input matches “{filter.trim()}”.</p>}
      <InputGroup title="Required inputs" inputs={required} />
      <InputGroup title="Optional inputs" inputs={optional} />
    </div>
  )
}

function InputGroup({ title, inputs }: { title: string; inputs: Input[] }) {
  if (inputs.length === 0) return null
  return (
    <section aria-label={title}>
      <h3>
        {title} <span className="count-pill">{inputs.length}</span>
      </h3>
      <dl className="inputs">
        {inputs.map((input) => (
          <div key={input.name} className="input-entry">
            <dt>
              <code>{input.name}</code> {!input.type.includes('\n') && <code className="muted">{input.type || 'any'}</code>}
            </dt>
            <dd>
              {input.type.includes('\n') && <FoldedCode label={`Type of ${input.name}`} text={input.type} />}
              {input.description ? <Markdown source={input.description} /> : <p className="muted">No description.</p>}
              {!input.required && (
                <div className="input-default">
                  <span className="muted">Default:</span> <DefaultValue name={input.name} value={input.default} />
                </div>
              )}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  )
}

/** A default as JSON, laid out over lines when it is an object or a list (a one-line object default can be a screen wide). */
function DefaultValue({ name, value }: { name: string; value: string }) {
  let laidOut = value
  try {
    const parsed: unknown = JSON.parse(value)
    if (parsed !== null && typeof parsed === 'object') laidOut = JSON.stringify(parsed, null, 2)
  } catch {
    // Not JSON: shown as extracted.
  }
  return <FoldedCode label={`Default of ${name}`} text={laidOut} />
}
