import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { formatBytes } from '../../lib/format'
import { FolderDrop, PlatformChoice } from '../../lib/folder-drop'
import { useSession } from '../../lib/session'
import type { TarFile } from '../../lib/tar'
import { ErrorMessage } from '../../lib/ui'
import { accountOptions, organizationListOptions } from '../organizations/api'
import { bundleOptions, useDownloadBundle, useImportBundle, useStartBundle } from './api'

/** A configuration folder's files as the API takes them: its Terraform files and lock file, by path inside the folder. */
async function configurationOf(files: TarFile[]): Promise<{ folder: string; files: Record<string, string> }> {
  const folder = files[0]?.path.split('/')[0] ?? ''
  const inFolder = files.every((entry) => entry.path.startsWith(`${folder}/`))
  const result: Record<string, string> = {}
  for (const entry of files) {
    const path = inFolder ? entry.path.slice(folder.length + 1) : entry.path
    if (/(^|\/)(\.terraform|\.git|node_modules)\//.test(path)) continue
    if (/\.tf(\.json)?$/.test(path) || path === '.terraform.lock.hcl') result[path] = await entry.file.text()
  }
  return { folder: inFolder ? folder : '', files: result }
}

/** `terraform-aws-modules/vpc/aws ~> 5.0` per line: a source, then an optional version constraint. */
function sourcesOf(text: string): Array<{ source: string; version?: string }> {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [source = '', ...constraint] = line.split(/\s+/)
      return constraint.length > 0 ? { source, version: constraint.join(' ') } : { source }
    })
}

/**
 * Bundles: everything a configuration needs, gathered from this Homeport (pulling through its
 * upstreams) into one file, and imported into another Homeport across an air gap. The same as
 * `homeport bundle` and `homeport import`.
 */
export function BundlesPage() {
  const { client } = useSession()
  const siteAdmin = useQuery(accountOptions(client)).data?.data.attributes['is-site-admin'] === true
  return (
    <div className="stack">
      <header>
        <h1>Bundles</h1>
        <p className="muted">
          Carry what a Terraform configuration needs across an air gap: its modules, the modules they call, and its providers for each platform, with
          their signatures, in one file. Make the bundle here while online, then import it into the Homeport on the other side. On the command line:{' '}
          <code>homeport bundle</code> and <code>homeport import</code>.
        </p>
      </header>
      <MakeBundle />
      {siteAdmin ? (
        <ImportBundle />
      ) : (
        <section className="card padded" aria-labelledby="import-heading">
          <h2 id="import-heading">Import a bundle</h2>
          <p className="muted">The site admin imports bundles: they add public modules and providers for everyone.</p>
        </section>
      )}
    </div>
  )
}

function MakeBundle() {
  const { client } = useSession()
  const organizations = useQuery(organizationListOptions(client, ''))
  const [organization, setOrganization] = useState('')
  const [configuration, setConfiguration] = useState<{ folder: string; files: Record<string, string> }>()
  const [modules, setModules] = useState('')
  const [providers, setProviders] = useState('')
  const [platforms, setPlatforms] = useState<string[]>(['linux_amd64'])
  const [jobId, setJobId] = useState<string>()
  const names = organizations.data?.data.map((org) => org.id) ?? []
  const chosen = organization || names[0] || ''

  const start = useStartBundle(client)
  const choose = async (files: TarFile[]) => {
    setConfiguration(await configurationOf(files))
    setJobId(undefined)
  }
  const terraformFiles = configuration ? Object.keys(configuration.files).filter((path) => path !== '.terraform.lock.hcl') : []
  const nothing = !configuration && !modules.trim() && !providers.trim()

  return (
    <form
      className="card padded stack-tight"
      aria-labelledby="make-heading"
      onSubmit={(event) => {
        event.preventDefault()
        setJobId(undefined)
        start.mutate(
          { organization: chosen, platforms, ...(configuration ? { configuration: configuration.files } : {}), modules: sourcesOf(modules), providers: sourcesOf(providers) },
          { onSuccess: setJobId }
        )
      }}
    >
      <h2 id="make-heading">Make a bundle</h2>
      <label htmlFor="bundle-organization">From the registry of</label>
      <select id="bundle-organization" value={chosen} onChange={(event) => setOrganization(event.target.value)}>
        {names.map((name) => (
          <option key={name}>{name}</option>
        ))}
      </select>
      <FolderDrop prompt="Drop a configuration folder (where you run terraform init) here, or" label="Configuration folder" button="Choose a configuration folder…" onFiles={choose}>
        {configuration && (
          <p role="status">
            {terraformFiles.length === 0 ? (
              <>
                <strong>{configuration.folder || 'The folder'}</strong> has no .tf files.
              </>
            ) : (
              <>
                <strong>{configuration.folder || 'The configuration'}</strong>: {terraformFiles.length} Terraform {terraformFiles.length === 1 ? 'file' : 'files'}
                {configuration.files['.terraform.lock.hcl'] !== undefined ? ', and its .terraform.lock.hcl (honoured)' : ''}.{' '}
              </>
            )}
            <button type="button" className="link" onClick={() => setConfiguration(undefined)}>
              Remove
            </button>
          </p>
        )}
      </FolderDrop>
      <label htmlFor="bundle-modules">Modules too, or instead (one per line: a source, then a version constraint)</label>
      <textarea id="bundle-modules" rows={2} value={modules} onChange={(event) => setModules(event.target.value)} placeholder="terraform-aws-modules/vpc/aws ~> 5.0" />
      <label htmlFor="bundle-providers">Providers too, or instead (one per line)</label>
      <textarea id="bundle-providers" rows={2} value={providers} onChange={(event) => setProviders(event.target.value)} placeholder="hashicorp/aws ~> 5.0" />
      <PlatformChoice legend="Provider platforms" value={platforms} onChange={setPlatforms} />
      <button type="submit" className="primary fit" disabled={!chosen || nothing || platforms.length === 0 || start.isPending}>
        {start.isPending ? 'Starting…' : 'Make bundle'}
      </button>
      {start.isError && <ErrorMessage error={start.error} action="Could not start the bundle" />}
      {jobId && <BundleProgress id={jobId} />}
    </form>
  )
}

/** A bundle being made: its steps as they happen, then what went in and its download, or what could not be had. */
function BundleProgress({ id }: { id: string }) {
  const { client } = useSession()
  const job = useQuery(bundleOptions(client, id))
  const download = useDownloadBundle(client, id)
  if (job.isError) return <ErrorMessage error={job.error} action="Could not follow the bundle" />
  const attributes = job.data?.data.attributes
  if (!attributes) return <progress aria-label="Starting the bundle" />
  const { status, steps, problems, manifest } = attributes
  const busy = status === 'resolving' || status === 'writing'
  return (
    <div className="stack-tight" aria-label="The bundle">
      {busy && (
        <>
          <p role="status">{status === 'resolving' ? 'Resolving and fetching…' : `Writing the bundle: ${formatBytes(attributes['written-bytes'])} of ${formatBytes(attributes['total-bytes'])}`}</p>
          {status === 'writing' && attributes['total-bytes'] > 0 ? <progress max={attributes['total-bytes']} value={attributes['written-bytes']} aria-label="Writing" /> : <progress aria-label="Resolving" />}
        </>
      )}
      <ol className="bundle-steps" aria-label="Steps">
        {steps.slice(-8).map((step, index) => (
          <li key={`${index}-${step}`}>{step}</li>
        ))}
      </ol>
      {attributes.curated.length > 0 && <p className="muted">Curated in {attributes.organization}, to pull them through: {attributes.curated.join(', ')}.</p>}
      {status === 'failed' && (
        <div role="alert" className="error">
          <p>
            <strong>No bundle was written:</strong> {problems.length} {problems.length === 1 ? 'thing' : 'things'} could not be resolved.
          </p>
          <ul>
            {problems.map((problem) => (
              <li key={`${problem.what}: ${problem.reason}`}>
                <strong>{problem.what}</strong>: {problem.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      {status === 'ready' && manifest && (
        <>
          <p role="status">
            Ready: {manifest.modules.length} module {manifest.modules.length === 1 ? 'version' : 'versions'} and {manifest.providers.length} provider{' '}
            {manifest.providers.length === 1 ? 'version' : 'versions'} for {manifest.platforms.join(', ') || 'no platform'}.
          </p>
          <ul className="bundle-contents">
            {manifest.modules.map((module) => (
              <li key={`${module.hostname}/${module.namespace}/${module.name}/${module.provider} ${module.version}`}>
                <code>
                  {module.hostname}/{module.namespace}/{module.name}/{module.provider}
                </code>{' '}
                {module.version}
              </li>
            ))}
            {manifest.providers.map((provider) => (
              <li key={`${provider.hostname}/${provider.namespace}/${provider.type} ${provider.version}`}>
                <code>
                  {provider.hostname}/{provider.namespace}/{provider.type}
                </code>{' '}
                {provider.version}
              </li>
            ))}
          </ul>
          <button type="button" className="primary fit" onClick={() => download.mutate()} disabled={download.isPending}>
            {download.isPending ? 'Downloading…' : `Download ${attributes.filename} (${formatBytes(attributes.size ?? 0)})`}
          </button>
          {download.isError && <ErrorMessage error={download.error} action="Could not download the bundle" />}
        </>
      )}
    </div>
  )
}

function ImportBundle() {
  const { client } = useSession()
  const [file, setFile] = useState<File>()
  const [organization, setOrganization] = useState('')
  const [share, setShare] = useState<number>()
  const run = useImportBundle(client, setShare)
  const report = run.data
  return (
    <form
      className="card padded stack-tight"
      aria-labelledby="import-heading"
      onSubmit={(event) => {
        event.preventDefault()
        if (file) run.mutate({ file, organization: organization.trim() })
      }}
    >
      <h2 id="import-heading">Import a bundle</h2>
      <p className="muted">Every file’s checksum and every provider’s signature are checked before anything is added; what is here already is left as it is.</p>
      <label htmlFor="bundle-file">Bundle</label>
      <input id="bundle-file" type="file" accept=".hpbundle,application/x-tar" onChange={(event) => setFile(event.target.files?.[0])} />
      <label htmlFor="bundle-import-organization">Organization that curates its public modules (empty: the bundle’s own)</label>
      <input id="bundle-import-organization" value={organization} onChange={(event) => setOrganization(event.target.value)} />
      <button type="submit" className="primary fit" disabled={!file || run.isPending}>
        {run.isPending ? 'Importing…' : 'Import'}
      </button>
      {share !== undefined && (
        <>
          <p role="status">{share < 1 ? `Sending the bundle: ${Math.round(share * 100)}%` : 'Checking and importing…'}</p>
          {share < 1 ? <progress max={100} value={Math.round(share * 100)} aria-label="Sending" /> : <progress aria-label="Importing" />}
        </>
      )}
      {run.isError && <ErrorMessage error={run.error} action="Could not import the bundle" />}
      {report && (
        <div role="status" className="stack-tight">
          <p>Imported. Public modules are curated by {report.organization}.</p>
          <ul className="bundle-contents">
            {report['created-organizations'].map((name) => (
              <li key={`org-${name}`}>Created organization {name}</li>
            ))}
            {report.modules.map((module) => (
              <li key={`${module.source} ${module.version}`}>
                {module.outcome === 'added' ? 'Added' : 'Already here'}: <code>{module.source}</code> {module.version}
              </li>
            ))}
            {report.providers.map((provider) => (
              <li key={`${provider.source} ${provider.version}`}>
                {provider.outcome === 'added' ? 'Added' : 'Already here'}: <code>{provider.source}</code> {provider.version} ({provider.platforms.join(', ')})
              </li>
            ))}
          </ul>
          {report.notes.map((note) => (
            <p key={note} className="muted">
              {note}
            </p>
          ))}
        </div>
      )}
    </form>
  )
}
