import { useDeferredValue, useState } from 'react'
import { InlineMarkdown } from '../../lib/inline-markdown'
import { Markdown } from '../../lib/markdown'
import type { ProtocolPart } from '../../features/modules/api'
import { Dependencies } from '../../features/modules/Dependencies'
import { InputsList } from '../../features/modules/InputsList'
import type { Section } from './sections'

/** One tab of a part's documentation. */
export function PartSection({
  org,
  part,
  parts,
  changelog,
  section,
  onLocalLink
}: {
  /** The organization whose page this is: where a public module a part calls may be curated. */
  org: string
  part: ProtocolPart
  /** The paths of the version's parts, which a relative module source can name. */
  parts: string[]
  changelog: string
  section: Exclude<Section, 'changes' | 'files'>
  onLocalLink: (path: string) => boolean
}) {
  // The change log is the module's (its root's), whichever part is shown.
  if (section === 'changelog') return <Markdown source={changelog} basePath="" onLocalLink={onLocalLink} />
  if (section === 'readme') {
    return part.readme ? (
      <Markdown source={part.readme} basePath={part.path} onLocalLink={onLocalLink} contents />
    ) : (
      <p className="muted">{part.empty ? 'No Terraform files here.' : 'No README.'}</p>
    )
  }
  if (section === 'inputs') return part.inputs.length === 0 ? <p className="muted">None.</p> : <InputsList key={part.path} inputs={part.inputs} />
  if (section === 'dependencies') return <Dependencies org={org} part={part} parts={parts} onPart={(path) => onLocalLink(path)} />
  const tables: Record<Exclude<Section, 'readme' | 'inputs' | 'dependencies' | 'changes' | 'changelog' | 'files'>, { headers: string[]; rows: string[][] }> = {
    outputs: { headers: ['Name', 'Description'], rows: part.outputs.map((output) => [output.name, output.description]) },
    resources: { headers: ['Type', 'Name'], rows: part.resources.map((resource) => [resource.type, resource.name]) },
    providers: {
      headers: ['Name', 'Source', 'Version'],
      rows: part.provider_dependencies.map((provider) => [provider.name, provider.source, provider.version || 'any'])
    },
  }
  const { headers, rows } = tables[section]
  // The Terraform versions the part works with belong with its providers, as the public registry shows them.
  const core = section === 'providers' && part.required_core.length > 0 && (
    <p>
      Requires Terraform <code>{part.required_core.join(', ')}</code>
    </p>
  )
  if (rows.length === 0) {
    return (
      <>
        {core}
        <p className="muted">None.</p>
      </>
    )
  }
  return (
    <>
      {core}
      <FilteredTable key={`${part.path} ${section}`} what={section} headers={headers} rows={rows} />
    </>
  )
}

/** Past this many rows, a table gets a filter (eks has dozens of outputs and resources). */
const FILTER_FROM = 8

/**
 * A tab's table: the first column as code, the others as text with their code spans; with a filter over
 * every column when it is long, as the Inputs tab has.
 */
function FilteredTable({ what, headers, rows }: { what: string; headers: string[]; rows: string[][] }) {
  const [filter, setFilter] = useState('')
  const wanted = useDeferredValue(filter.trim().toLowerCase())
  const shown = wanted ? rows.filter((row) => row.some((cell) => cell.toLowerCase().includes(wanted))) : rows
  return (
    <div className="stack-tight">
      {rows.length >= FILTER_FROM && (
        <input
          type="search"
          className="search"
          aria-label={`Filter ${what} by ${headers.map((header) => header.toLowerCase()).join(' or ')}`}
          placeholder={`Filter ${rows.length} ${what}`}
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
        />
      )}
      {shown.length === 0 ? (
        <p className="muted">
          No {what.replace(/s$/, '')} matches “{filter.trim()}”.
        </p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label={`${what[0]!.toUpperCase()}${what.slice(1)}`}>
          <table>
            <thead>
              <tr>
                {headers.map((header) => (
                  <th key={header} scope="col">
                    {header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((row) => (
                <tr key={row.join('\n')}>
                  {row.map((cell, column) => (
                    <td key={column}>{column === 0 ? <code>{cell}</code> : <InlineMarkdown text={cell} />}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  )
}
