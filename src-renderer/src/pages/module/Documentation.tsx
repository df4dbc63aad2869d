import { useEffect, useState } from 'react'
import { useScrollsFurther } from '../../lib/scrolls-further'
import { useQuery } from '@tanstack/react-query'
import { navigate, queryOf } from '../../lib/router'
import { useSession } from '../../lib/session'
import { ErrorMessage, Loading } from '../../lib/ui'
import { docsOptions, partsOf, type ModuleAddress, type ModuleAttributes } from '../../features/modules/api'
import type { ProtocolModuleDetail } from '@shared/wire/modules'
import { VersionMenu } from '../../features/modules/VersionMenu'
import { CompareVersions } from '../../features/modules/CompareVersions'
import { VersionFiles } from '../../features/modules/VersionFiles'
import { PartSection } from './PartSection'
import { SubmoduleList } from './SubmoduleList'
import { VersionNotice } from './VersionNotice'
import { VersionWarnings } from './VersionWarnings'
import { COUNTED, countOf, SECTIONS, type Section } from './sections'

/** A version's documentation: the version and part chosen, and the tabs (README, inputs, outputs, …). */
export function Documentation({
  address,
  version,
  attributes,
  part,
  setPart,
  section,
  setSection,
  from,
  setFrom,
  file,
  setFile
}: {
  address: ModuleAddress
  version: string
  attributes: ModuleAttributes
  part: string
  setPart: (part: string) => void
  section: Section
  setSection: (section: Section) => void
  /** The version the Changes tab compares with ("": the one before the version shown). */
  from: string
  setFrom: (version: string) => void
  /** The file the Files tab shows ("": the part's main file). */
  file: string
  setFile: (path: string) => void
}) {
  const { client } = useSession()
  const docs = useQuery(docsOptions(client, address, version))
  const [tablist, setTablist] = useState<HTMLDivElement | null>(null)
  const scrollsFurther = useScrollsFurther(tablist)
  const known = docs.data ? partsOf(docs.data).some((candidate) => candidate.path === part) : true
  const changelog = docs.data?.changelog ?? ''
  const published = attributes['version-statuses'].filter((entry) => entry.status === 'ok').map((entry) => entry.version)
  // The Changelog tab is there when the version ships one; Changes, when there is another version to compare with.
  const comparable = attributes['registry-name'] === 'private' && published.length > 1
  const sections = SECTIONS.filter((candidate) => (candidate.id !== 'changelog' || changelog) && (candidate.id !== 'changes' || comparable))
  const shown = sections.some((candidate) => candidate.id === section) || !docs.data ? section : 'readme'
  useEffect(() => {
    // A tab this version does not have (Changes on a module's only version) is the Readme, in the address too.
    if (docs.data && shown !== section) setSection(shown)
  }, [docs.data, shown, section, setSection])
  useEffect(() => {
    // A version without the part shown (another version had it) shows its root, and the usage follows.
    if (!known) setPart('')
  }, [known, setPart])

  if (docs.isPending) return <Loading what="the documentation" />
  if (docs.isError) return <ErrorMessage error={docs.error} action="Could not load the documentation" />
  const parts = partsOf(docs.data)
  const current = parts.find((candidate) => candidate.path === part) ?? docs.data.root
  /** The submodules one can call: a collection's front page when its root is empty. */
  const callable = docs.data.submodules.filter((candidate) => !candidate.empty)
  const query = queryOf({ part, tab: shown === 'readme' ? '' : shown }, ['part', 'tab'])

  return (
    <div className="card padded stack">
      <div className="doc-controls">
        <VersionMenu
          attributes={attributes}
          version={version}
          onChange={(chosen) => navigate({ page: 'module', ...address, version: chosen, query })}
        />
        <PartMenus detail={docs.data} current={current.path} setPart={setPart} />
      </div>
      <VersionNotice address={address} attributes={attributes} version={version} deprecation={docs.data.deprecation} />
      <VersionWarnings address={address} version={version} />
      {current.path === '' && current.empty && callable.length > 0 && <SubmoduleList submodules={callable} setPart={setPart} />}
      <div
        ref={setTablist}
        className={`tabs${scrollsFurther ? ' scrolls-further' : ''}`}
        role="tablist"
        aria-label="Documentation"
        onKeyDown={(event) => {
          // The tab pattern: arrows, Home and End move between tabs; only the selected tab is in the Tab order.
          const index = sections.findIndex((candidate) => candidate.id === shown)
          const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: sections.length - 1 }[event.key]
          if (next === undefined) return
          event.preventDefault()
          const target = sections[(next + sections.length) % sections.length]!
          setSection(target.id)
          document.getElementById(`doc-tab-${target.id}`)?.focus()
        }}
      >
        {sections.map((candidate) => (
          <button
            key={candidate.id}
            id={`doc-tab-${candidate.id}`}
            type="button"
            role="tab"
            aria-selected={candidate.id === shown}
            aria-controls="doc-tabpanel"
            tabIndex={candidate.id === shown ? 0 : -1}
            onClick={() => setSection(candidate.id)}
          >
            {candidate.label}
            {COUNTED.has(candidate.id) && <span className="count-pill">{countOf(current, candidate.id)}</span>}
          </button>
        ))}
      </div>
      <div id="doc-tabpanel" role="tabpanel" aria-labelledby={`doc-tab-${shown}`} tabIndex={0}>
        {shown === 'changes' ? (
          <CompareVersions address={address} versions={published} selected={version} from={from} setFrom={setFrom} />
        ) : shown === 'files' ? (
          <VersionFiles address={address} version={version} part={current.path} chosen={file} setChosen={setFile} />
        ) : (
          <PartSection
            org={address.org}
            part={current}
            parts={parts.map((candidate) => candidate.path)}
            changelog={changelog}
            section={shown}
            onLocalLink={(path) => {
              // A README's link to another part of the module (`../simple`, `modules/subnet`) shows that part.
              const target = parts.find((candidate) => candidate.path === path)
              if (target) setPart(target.path)
              return target !== undefined
            }}
          />
        )}
      </div>
    </div>
  )
}

/**
 * HCP's two menus: the module's submodules (with its root) and its examples, each where there are any.
 * The part shown is chosen in one and marked "none" in the other; "none" in Examples is the root again.
 */
function PartMenus({ detail, current, setPart }: { detail: ProtocolModuleDetail; current: string; setPart: (part: string) => void }) {
  const example = detail.examples.some((candidate) => candidate.path === current)
  return (
    <>
      {detail.submodules.length > 0 && (
        <label>
          Submodule{' '}
          <select value={example ? NONE : current} onChange={(event) => setPart(event.target.value)} aria-label="Submodule">
            {example && (
              <option value={NONE} disabled>
                none (an example is shown)
              </option>
            )}
            {[detail.root, ...detail.submodules].map((candidate) => (
              <option key={candidate.path} value={candidate.path}>
                {candidate.path === '' ? 'Root module' : candidate.path.replace(/^modules\//, '')}
              </option>
            ))}
          </select>
        </label>
      )}
      {detail.examples.length > 0 && (
        <label>
          Example{' '}
          <select value={example ? current : NONE} onChange={(event) => setPart(event.target.value === NONE ? '' : event.target.value)} aria-label="Example">
            <option value={NONE}>none</option>
            {detail.examples.map((candidate) => (
              <option key={candidate.path} value={candidate.path}>
                {candidate.path.replace(/^examples\//, '')}
              </option>
            ))}
          </select>
        </label>
      )}
    </>
  )
}

/** The value of a menu's "none": not a part's path (the root's is ""). */
const NONE = '-'
