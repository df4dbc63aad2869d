import { useEffect, useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { navigate, queryOf, replaceAddress } from '../../app/router'
import { CopyButton } from '../../lib/copy-button'
import { formatDate, formatDateTime } from '../../lib/format'
import { Markdown } from '../../lib/markdown'
import { useSession } from '../../lib/session'
import { ConfirmButton, ErrorMessage, Loading, StatusBadge } from '../../lib/ui'
import {
  dailyDownloadsOptions,
  docsOptions,
  downloadsOptions,
  moduleOptions,
  modulePath,
  useDeleteAt,
  partsOf,
  useModuleAction,
  versionOptions,
  type ModuleAddress,
  type ModuleAttributes,
  type ProtocolPart
} from './api'
import { CompareVersions } from './CompareVersions'
import { DownloadsChart } from './DownloadsChart'
import { Dependencies } from './Dependencies'
import { InputsList } from './InputsList'
import { UsageCard } from './UsageCard'
import { newest } from './newest'
import { VersionMenu } from './VersionMenu'
import { VersionLifecycle } from './VersionLifecycle'
import { AppLink } from '../../app/link'

type Section = 'readme' | 'inputs' | 'outputs' | 'resources' | 'providers' | 'dependencies' | 'changelog'
const SECTIONS: Array<{ id: Section; label: string }> = [
  { id: 'readme', label: 'Readme' },
  { id: 'inputs', label: 'Inputs' },
  { id: 'outputs', label: 'Outputs' },
  { id: 'resources', label: 'Resources' },
  { id: 'providers', label: 'Providers' },
  { id: 'dependencies', label: 'Dependencies' },
  { id: 'changelog', label: 'Changelog' }
]

/** One module: its documentation at a version, its versions and their statuses, how to use it. */
export function ModulePage({ address, version, query }: { address: ModuleAddress; version?: string; query: string }) {
  const { client } = useSession()
  const module = useQuery(moduleOptions(client, address))
  const remove = useDeleteAt(client, address.org)
  const initial = new URLSearchParams(query)
  /** The part of the module shown ("" for the root), which the usage snippet follows. */
  const [part, setPart] = useState(initial.get('part') ?? '')
  const [section, setSection] = useState<Section>(SECTIONS.find((candidate) => candidate.id === initial.get('tab'))?.id ?? 'readme')
  useEffect(() => {
    // The part and tab live in the address (replaced, not pushed), so each view of the module is a link to share.
    replaceAddress({ page: 'module', ...address, version, query: queryOf({ part, tab: section === 'readme' ? '' : section }, ['part', 'tab']) })
  }, [address, version, part, section])

  if (module.isPending) return <Loading what="the module" />
  if (module.isError) return <ErrorMessage error={module.error} action="Could not load the module" />
  const attributes = module.data.data.attributes
  const published = attributes['version-statuses'].filter((entry) => entry.status === 'ok').map((entry) => entry.version)
  // A link to a version that is not published (deleted, failed, mistyped) says so, rather than offering its usage.
  const missing = version !== undefined && !published.includes(version) ? version : undefined
  const selected = missing ? undefined : (version ?? newest(published))
  const label = `${attributes.namespace}/${attributes.name}/${attributes.provider}`

  return (
    <article className="stack" aria-labelledby="module-heading">
      <header className="page-header">
        <div>
          <p className="breadcrumbs">
            <AppLink to={{ page: 'organization', org: address.org, tab: 'modules' }}>{address.org}</AppLink> / modules
          </p>
          <h1 id="module-heading">{attributes.name}</h1>
          <p className="muted">
            {label} · <span className={`badge ${attributes['registry-name'] === 'public' ? 'info' : 'neutral'}`}>{attributes['registry-name']}</span>{' '}
            <StatusBadge status={attributes.status} of="module" />
            {attributes['publishing-mechanism'] && (
              <span className="muted"> · published from {attributes['publishing-mechanism'] === 'branch' ? 'a branch' : 'tags'}</span>
            )}
          </p>
        </div>
        {attributes.permissions['can-delete'] && (
          <div className="actions">
            <ConfirmButton
              label={attributes['registry-name'] === 'public' ? 'Delete module' : `Delete ${attributes.provider} provider`}
              confirm={attributes['registry-name'] === 'public' ? `Delete ${label}?` : `Delete ${label} and all its versions?`}
              busy={remove.isPending}
              onConfirm={() =>
                // The promise, not an onSuccess callback: this page unmounts when the module's refetch finds it gone.
                void remove
                  .mutateAsync(attributes['registry-name'] === 'public' ? modulePath(address).replace(/\/[^/]+$/, '') : modulePath(address))
                  .then(() => navigate({ page: 'organization', org: address.org, tab: 'modules' }), () => undefined)
              }
            />
          </div>
        )}
      </header>
      <ErrorMessage error={remove.error} action="Could not delete" />

      <div className="module-layout">
        {/* First in the page's order, so the usage is a few Tabs away (and on top on a narrow screen); on a wide one, the right column. */}
        <aside className="stack" aria-label="About this module">
          {selected && attributes['registry-name'] === 'private' && <UsageCard address={address} version={selected} part={part} />}
          {selected && attributes['registry-name'] === 'private' && <VersionLifecycle address={address} version={selected} />}
          {attributes['registry-name'] === 'private' && <DownloadsCard address={address} />}
          {attributes['vcs-repo'] && <VcsCard address={address} attributes={attributes} />}
          <Versions address={address} attributes={attributes} selected={selected} />
        </aside>
        <div className="stack">
          {selected ? (
            <>
              <Documentation
                address={address}
                version={selected}
                attributes={attributes}
                part={part}
                setPart={setPart}
                section={section}
                setSection={setSection}
              />
              {attributes['registry-name'] === 'private' && <CompareVersions key={selected} address={address} versions={published} selected={selected} />}
            </>
          ) : (
            missing ? (
              <div className="card padded" role="status">
                <h2>Version {missing} is not published</h2>
                <p className="muted">
                  {attributes['version-statuses'].some((entry) => entry.version === missing)
                    ? 'It has not been published (see its status in the list of versions).'
                    : 'This module has no such version: it was deleted, or never was.'}{' '}
                  {newest(published) && <AppLink to={{ page: 'module', ...address, version: newest(published) }}>See {newest(published)}, the latest.</AppLink>}
                </p>
              </div>
            ) : attributes['registry-name'] === 'public' ? (
              <MirrorPublicVersion address={address} />
            ) : (
              <div className="card padded">
                <h2>No published version yet</h2>
                <p className="muted">
                  {attributes['version-statuses'].length === 0
                    ? 'Publish a version to see its documentation here.'
                    : 'Its versions are still being published, or failed: see their statuses.'}
                </p>
              </div>
            )
          )}
        </div>
      </div>
    </article>
  )
}

/**
 * A curated public module with nothing mirrored yet: its versions come from the public registry, so one
 * is mirrored here (or Terraform pulls one through on its first install), not published.
 */
function MirrorPublicVersion({ address }: { address: ModuleAddress }) {
  const { client } = useSession()
  const [version, setVersion] = useState('')
  const mirror = useModuleAction(client, address.org)
  return (
    <form
      className="card padded stack-tight"
      aria-label="Mirror a version"
      onSubmit={(event) => {
        event.preventDefault()
        mirror.mutate({ path: `${modulePath(address)}/mirror`, body: { data: { type: 'registry-module-versions', attributes: { version: version.trim() } } } })
      }}
    >
      <h2>Nothing mirrored yet</h2>
      <p className="muted">
        Its versions live in the public registry. Mirror one here to read its documentation and install it offline; while online, Terraform also pulls a version through on its
        first install.
      </p>
      <div className="form-row">
        <div className="field">
          <label htmlFor="mirror-version">Version to mirror</label>
          <input id="mirror-version" value={version} required placeholder="5.8.1" onChange={(event) => setVersion(event.target.value)} />
        </div>
        <button type="submit" className="primary" disabled={mirror.isPending || !version.trim()}>
          {mirror.isPending ? 'Mirroring…' : 'Mirror'}
        </button>
      </div>
      <ErrorMessage error={mirror.error} action="Could not mirror it" />
    </form>
  )
}

function Documentation({
  address,
  version,
  attributes,
  part,
  setPart,
  section,
  setSection
}: {
  address: ModuleAddress
  version: string
  attributes: ModuleAttributes
  part: string
  setPart: (part: string) => void
  section: Section
  setSection: (section: Section) => void
}) {
  const { client } = useSession()
  const docs = useQuery(docsOptions(client, address, version))
  const known = docs.data ? partsOf(docs.data).some((candidate) => candidate.path === part) : true
  const changelog = docs.data?.changelog ?? ''
  // The Changelog tab is there when the version ships one.
  const sections = SECTIONS.filter((candidate) => candidate.id !== 'changelog' || changelog)
  const shown = sections.some((candidate) => candidate.id === section) || !docs.data ? section : 'readme'
  useEffect(() => {
    // A version without the part shown (another version had it) shows its root, and the usage follows.
    if (!known) setPart('')
  }, [known, setPart])

  if (docs.isPending) return <Loading what="the documentation" />
  if (docs.isError) return <ErrorMessage error={docs.error} action="Could not load the documentation" />
  const parts = partsOf(docs.data)
  const current = parts.find((candidate) => candidate.path === part) ?? docs.data.root
  const query = queryOf({ part, tab: shown === 'readme' ? '' : shown }, ['part', 'tab'])

  return (
    <div className="card padded stack">
      <div className="doc-controls">
        <VersionMenu
          attributes={attributes}
          version={version}
          onChange={(chosen) => navigate({ page: 'module', ...address, version: chosen, query })}
        />
        {parts.length > 1 && (
          <label>
            Part{' '}
            <select value={current.path} onChange={(event) => setPart(event.target.value)} aria-label="Module part">
              {parts.map((candidate) => (
                <option key={candidate.path} value={candidate.path}>
                  {candidate.path === '' ? 'Root module' : candidate.path}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <div
        className="tabs"
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
            {candidate.id !== 'readme' && candidate.id !== 'changelog' && <span className="count-pill">{countOf(current, candidate.id)}</span>}
          </button>
        ))}
      </div>
      <div id="doc-tabpanel" role="tabpanel" aria-labelledby={`doc-tab-${shown}`} tabIndex={0}>
        <PartSection
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
      </div>
    </div>
  )
}

function countOf(part: ProtocolPart, section: Section): number {
  switch (section) {
    case 'inputs':
      return part.inputs.length
    case 'outputs':
      return part.outputs.length
    case 'resources':
      return part.resources.length
    case 'providers':
      return part.provider_dependencies.length
    case 'dependencies':
      return part.dependencies.length
    default:
      return 0
  }
}

function PartSection({
  part,
  parts,
  changelog,
  section,
  onLocalLink
}: {
  part: ProtocolPart
  /** The paths of the version's parts, which a relative module source can name. */
  parts: string[]
  changelog: string
  section: Section
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
  if (section === 'dependencies') return <Dependencies part={part} parts={parts} onPart={(path) => onLocalLink(path)} />
  const tables: Record<Exclude<Section, 'readme' | 'inputs' | 'dependencies' | 'changelog'>, { headers: string[]; rows: string[][] }> = {
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
      <div className="table-scroll">
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
            {rows.map((row, index) => (
              <tr key={index}>
                {row.map((cell, column) => (
                  <td key={column}>{column === 0 ? <code>{cell}</code> : cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  )
}

function DownloadsCard({ address }: { address: ModuleAddress }) {
  const { client } = useSession()
  const summary = useQuery(downloadsOptions(client, address))
  const daily = useQuery(dailyDownloadsOptions(client, address))
  return (
    <div className="card padded">
      <h2>Downloads</h2>
      {summary.data && daily.data ? <DownloadsChart days={daily.data.data.attributes.days} totals={summary.data.data.attributes} /> : <Loading what="downloads" />}
    </div>
  )
}

function VcsCard({ address, attributes }: { address: ModuleAddress; attributes: ModuleAttributes }) {
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

function Versions({ address, attributes, selected }: { address: ModuleAddress; attributes: ModuleAttributes; selected?: string }) {
  const { client } = useSession()
  const remove = useDeleteAt(client, address.org)
  const action = useModuleAction(client, address.org)
  const statuses = [...attributes['version-statuses']].reverse()
  const publishedAt = new Map(attributes['published-versions'].map((entry) => [entry.version, entry['published-at']]))
  return (
    <div className="card padded">
      <h2>Versions</h2>
      {statuses.length === 0 && <p className="muted">None yet.</p>}
      <ul className="versions" aria-label="Versions">
        {statuses.map((entry) => (
          <li key={entry.version} aria-current={entry.version === selected ? 'true' : undefined}>
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
                  confirm={
                    statuses.length === 1
                      ? `Delete ${entry.version}? It is the last version: the ${attributes.provider} module goes with it.`
                      : `Delete ${entry.version}?`
                  }
                  busy={remove.isPending}
                  onConfirm={() =>
                    // The module went with its last version: its page has nothing left to show. (The promise, not an
                    // onSuccess callback: this page unmounts when the module's refetch finds it gone.)
                    void remove.mutateAsync(`${modulePath(address)}/${encodeURIComponent(entry.version)}`).then(() => {
                      if (statuses.length === 1) navigate({ page: 'organization', org: address.org, tab: 'modules' })
                    }, () => undefined)
                  }
                />
              )}
            </div>
            {entry.error && <p className="error small">{entry.error}</p>}
            {entry.version === selected && <Warnings address={address} version={entry.version} />}
          </li>
        ))}
      </ul>
      <ErrorMessage error={remove.error ?? action.error} />
    </div>
  )
}

function Warnings({ address, version }: { address: ModuleAddress; version: string }) {
  const { client } = useSession()
  const record = useQuery({ ...versionOptions(client, address, version), enabled: address.registry === 'private' })
  const warnings = record.data?.data.attributes.warnings ?? []
  if (warnings.length === 0) return null
  return (
    <ul className="warnings" aria-label="Warnings">
      {warnings.map((warning) => (
        <li key={warning}>{warning}</li>
      ))}
    </ul>
  )
}
