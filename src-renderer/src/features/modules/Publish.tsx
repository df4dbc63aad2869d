import { upload } from '../../lib/upload'
import { useEffect, useRef, useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import semver from 'semver'
import { formatBytes } from '../../lib/format'
import { guessModule, selectModuleFiles, type FolderSelection } from '../../lib/module-folder'
import { FolderDrop } from '../../lib/folder-drop'
import { useSession } from '../../lib/session'
import { packTarGz } from '../../lib/tar'
import { ErrorMessage, StatusBadge } from '../../lib/ui'
import { createVersionToUpload, moduleKeys, moduleOptions, previewInterface, versionOptions, type ModuleAddress } from './api'
import { newest } from './newest'
import { InterfaceChanges } from './InterfaceChanges'
import { WarningList } from './WarningList'
import { AppLink } from '../../lib/link'
import { organizationOptions } from '../organizations/api'
import { PROVIDER_PATTERN, patternProps } from '../../lib/name-pattern'
import { useToast } from '../../lib/toast'

type Stage =
  | { step: 'idle' }
  | { step: 'packaging'; share: number }
  | { step: 'uploading'; share: number }
  | { step: 'ingesting'; address: ModuleAddress; version: string }
  | { step: 'failed'; message: string }

/**
 * Publishing without VCS, as a person does it: pick a module folder (or drop it, or an existing
 * .tar.gz), see what goes in, choose the version, and watch it through packaging, upload and
 * ingest until it is published or fails with the reason.
 */
export function Publish({ org }: { org: string }) {
  const { client } = useSession()
  const queryClient = useQueryClient()
  const [selection, setSelection] = useState<FolderSelection>()
  const [archive, setArchive] = useState<File>()
  const [name, setName] = useState('')
  const [provider, setProvider] = useState('')
  const [version, setVersion] = useState('1.0.0')
  /** Whether the version was chosen (typed, picked, or read from the archive's name) rather than proposed. */
  const [versionChosen, setVersionChosen] = useState(false)
  const [stage, setStage] = useState<Stage>({ step: 'idle' })
  const [showFiles, setShowFiles] = useState(false)
  const organization = useQuery(organizationOptions(client, org))
  // Said before a folder is picked, not at upload time: this token reads the organization's modules but may not publish.
  const mayPublish = organization.data?.data.attributes.permissions['can-create-module'] !== false

  const choose = async (files: Parameters<typeof selectModuleFiles>[0]) => {
    const selected = await selectModuleFiles(files)
    setSelection(selected)
    setArchive(undefined)
    setStage({ step: 'idle' })
    const guess = guessModule(selected.folder)
    setName(guess.name)
    setProvider(guess.provider)
  }

  const address: ModuleAddress = { org, registry: 'private', namespace: org, name, provider }
  /** From the click until the version is published or failed: the form gives way to the progress, which has the focus. */
  const underway = stage.step === 'packaging' || stage.step === 'uploading' || stage.step === 'ingesting'
  /** Back to the form for the next version of the same folder (the next patch proposed again). */
  const another = () => {
    setStage({ step: 'idle' })
    setVersionChosen(false)
  }
  const ready = (selection?.included.length || archive) && name && provider && version && stage.step !== 'packaging' && stage.step !== 'uploading'

  const publish = async () => {
    try {
      const created = await createVersionToUpload(client, address, version)
      let body: Blob
      if (archive) body = archive
      else {
        setStage({ step: 'packaging', share: 0 })
        body = await packTarGz(selection!.included, (share) => setStage({ step: 'packaging', share }))
      }
      setStage({ step: 'uploading', share: 0 })
      await upload(created.upload, body, (share) => setStage({ step: 'uploading', share }))
      await queryClient.invalidateQueries({ queryKey: moduleKeys.all(org) })
      setStage({ step: 'ingesting', address: { ...address }, version: created.version })
    } catch (error) {
      setStage({ step: 'failed', message: (error as Error).message })
    }
  }

  return (
    <section className="stack" aria-labelledby="publish-heading">
      <header>
        <h2 id="publish-heading">Publish a module folder</h2>
        <p className="muted">
          The folder’s files go in with the module at the archive’s root, except <code>.git/</code>, <code>.terraform/</code> and whatever its{' '}
          <code>.terraformignore</code> leaves out.
        </p>
      </header>

      {!mayPublish && (
        <p role="note" className="warnings">
          The token you signed in with reads {org}’s modules but may not publish them. Publishing needs a team with Manage modules (or the owners team):
          an owner gives it on the organization’s Teams page, or sign in with such a team’s token.
        </p>
      )}

      {mayPublish && (
        <FolderDrop prompt="Drop a module folder here, or" label="Module folder" button="Choose a folder…" primary className="card" onFiles={choose}>
          <label className="button">
            Choose a .tar.gz…
            <input
              type="file"
              className="visually-hidden"
              aria-label="Module archive"
              accept=".tar.gz,.tgz,application/gzip"
              onChange={(event) => {
                const file = event.target.files?.[0]
                if (!file) return
                setArchive(file)
                setSelection(undefined)
                const guess = guessModule(file.name.replace(/(-v?\d+\.\d+\.\d+.*)?\.(tar\.gz|tgz)$/, ''))
                setName(guess.name)
                setProvider(guess.provider)
                // terraform-aws-vpc-5.1.2.tar.gz says which version it is.
                const named = /-v?(\d+\.\d+\.\d+[^/]*?)\.(tar\.gz|tgz)$/.exec(file.name)?.[1]
                if (named && semver.valid(named)) {
                  setVersion(named)
                  setVersionChosen(true)
                }
              }}
            />
          </label>
        </FolderDrop>
      )}

      {selection && !underway && (
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
      )}
      {archive && !underway && (
        <div className="card padded">
          <h3>
            {archive.name}, {formatBytes(archive.size)}
          </h3>
        </div>
      )}

      {underway && <Progress stage={stage} onAnother={another} />}

      {(selection || archive) && !underway && (
        <form
          className="card form"
          aria-label="Version to publish"
          onSubmit={(event) => {
            event.preventDefault()
            void publish()
          }}
        >
          <div className="form-row">
            <div className="field">
              <label htmlFor="publish-name">Module name</label>
              <input id="publish-name" value={name} required onChange={(event) => setName(event.target.value)} />
            </div>
            <div className="field">
              <label htmlFor="publish-provider">Provider</label>
              <input
                id="publish-provider"
                value={provider}
                required
                {...patternProps(PROVIDER_PATTERN, 'a module’s provider is lower-case letters and digits only (aws, azurerm, google).')}
                onChange={(event) => setProvider(event.target.value)}
              />
            </div>
            <div className="field">
              <label htmlFor="publish-version">Version</label>
              <input
                id="publish-version"
                value={version}
                required
                onChange={(event) => {
                  setVersion(event.target.value)
                  setVersionChosen(true)
                }}
              />
              <VersionHint
                address={address}
                version={version}
                onPick={(picked, chosen) => {
                  setVersion(picked)
                  if (chosen) setVersionChosen(true)
                }}
                proposing={!versionChosen}
              />
            </div>
          </div>
          <InterfacePreview
            key={`${selection?.folder ?? archive?.name}/${name}/${provider}/${version}`}
            address={address}
            version={version}
            enabled={Boolean(ready)}
            archive={() => archive ?? packTarGz(selection!.included, () => undefined)}
            onPick={(picked) => {
              setVersion(picked)
              setVersionChosen(true)
            }}
          />
          <div className="actions">
            <button type="submit" className="primary" disabled={!ready}>
              Publish {name && provider ? `${org}/${name}/${provider} ${version}` : ''}
            </button>
          </div>
        </form>
      )}

      {stage.step === 'failed' && <ErrorMessage error={new Error(stage.message)} action="Publishing failed" />}
    </section>
  )
}

/**
 * Before the publish is confirmed: the interface change this archive would make as `version`,
 * against the published version it would follow, and what ingest would warn about.
 */
function InterfacePreview({
  address,
  version,
  enabled,
  archive,
  onPick
}: {
  address: ModuleAddress
  version: string
  enabled: boolean
  archive: () => Promise<Blob> | Blob
  onPick: (version: string) => void
}) {
  const { client } = useSession()
  const check = useMutation({ mutationFn: async () => (await previewInterface(client, address, version, await archive())).data.attributes })
  // A change bigger than the step taken: the version it needs (a breaking change the next major, an addition the next minor).
  const needed = check.data?.verdict && check.data.from && check.data.impact !== 'none' ? semver.inc(check.data.from, check.data.impact === 'breaking' ? 'major' : 'minor') : null
  return (
    <div className="stack-tight" aria-live="polite">
      <div>
        <button type="button" disabled={!enabled || check.isPending} onClick={() => check.mutate()}>
          {check.isPending ? 'Comparing…' : `Check what ${version} changes`}
        </button>
      </div>
      {check.data && (
        <section aria-label="Interface change">
          <InterfaceChanges diff={check.data} />
          {needed && (
            <p>
              <button type="button" className="primary" onClick={() => onPick(needed)}>
                Publish as {needed} instead
              </button>
            </p>
          )}
          {(check.data.warnings ?? []).length > 0 && (
            <ul className="warnings" aria-label="Warnings">
              {check.data.warnings!.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          )}
        </section>
      )}
      <ErrorMessage error={check.error} action="Could not compare it" />
    </div>
  )
}

/**
 * The version to publish, against those the module has: the next patch is proposed until one is chosen,
 * the next patch, minor and major are offered, and a version that exists, or jumps a major, is said to.
 */
function VersionHint({
  address,
  version,
  onPick,
  proposing
}: {
  address: ModuleAddress
  version: string
  onPick: (version: string, chosen: boolean) => void
  proposing: boolean
}) {
  const { client } = useSession()
  const module = useQuery({ ...moduleOptions(client, address), enabled: Boolean(address.name && address.provider), retry: false })
  const versions = module.data?.data.attributes['version-statuses'].map((entry) => entry.version) ?? []
  // The latest as the registry has it (a prerelease only when nothing is stable): the next steps are taken from there.
  const latest = newest(versions.filter((candidate) => semver.valid(candidate)))
  const next = latest ? semver.inc(latest, 'patch')! : undefined
  useEffect(() => {
    if (proposing && next && version !== next) onPick(next, false)
  }, [proposing, next, version, onPick])
  if (!latest) return <p className="hint">A new module: its first version.</p>
  const offers = (['patch', 'minor', 'major'] as const).map((step) => semver.inc(latest, step)!)
  const exists = versions.includes(version)
  const jump = semver.valid(version) && semver.major(version) > semver.major(latest) + 1
  return (
    <div className="hint">
      <p>
        Latest is {latest}. Use{' '}
        {offers.map((offer, index) => (
          <span key={offer}>
            {index > 0 && ' · '}
            <button type="button" className="link" onClick={() => onPick(offer, true)}>
              {offer}
            </button>
          </span>
        ))}
      </p>
      {exists && <p role="alert">{version} exists already: a published version never changes. Pick a new one.</p>}
      {!exists && jump && (
        <p role="alert">
          {version} skips a major version after {latest}.
        </p>
      )}
    </div>
  )
}

/** Packaging, uploading, then ingest: where the form was, with the focus, so the result is where the eye is. */
function Progress({ stage, onAnother }: { stage: Stage; onAnother: () => void }) {
  const focus = useFocusOnMount<HTMLDivElement>()
  if (stage.step === 'ingesting') return <Ingesting address={stage.address} version={stage.version} onAnother={onAnother} />
  if (stage.step !== 'packaging' && stage.step !== 'uploading') return null
  const percent = Math.round(stage.share * 100)
  return (
    <div className="card padded" aria-live="polite" tabIndex={-1} ref={focus}>
      <p>{stage.step === 'packaging' ? 'Packaging the folder…' : 'Uploading…'}</p>
      <progress max={100} value={percent} aria-label={stage.step === 'packaging' ? 'Packaging' : 'Uploading'}>
        {percent}%
      </progress>
    </div>
  )
}

/** The version's status, live, until it is published or has failed; then the way to the module, or to the next version. */
function Ingesting({ address, version, onAnother }: { address: ModuleAddress; version: string; onAnother: () => void }) {
  const { client } = useSession()
  const module = useQuery(moduleOptions(client, address))
  const entry = module.data?.data.attributes['version-statuses'].find((candidate) => candidate.version === version)
  const status = entry?.status ?? 'reg_ingressing'
  const focus = useFocusOnMount<HTMLDivElement>()
  const toast = useToast()
  const toasted = useRef(false)
  useEffect(() => {
    // Once, when it is published (the status polls).
    if (status !== 'ok' || toasted.current) return
    toasted.current = true
    toast(`Published ${address.namespace}/${address.name}/${address.provider} ${version}.`, <AppLink to={{ page: 'module', ...address, version }}>Open it</AppLink>)
  }, [status, toast, address, version])
  return (
    <div className="card padded stack-tight" aria-live="polite" aria-label="Publishing status" tabIndex={-1} ref={focus}>
      <p>
        {address.namespace}/{address.name}/{address.provider} {version}: <StatusBadge status={status} />
      </p>
      {status === 'reg_ingressing' && <progress aria-label="Ingesting" />}
      {entry?.error && <p className="error">{entry.error}</p>}
      {status === 'ok' && <PublishedWarnings address={address} version={version} />}
      {status !== 'reg_ingressing' && (
        <div className="actions">
          {status === 'ok' && (
            <AppLink to={{ page: 'module', ...address, version }} className="button primary">
              Open the module
            </AppLink>
          )}
          <button type="button" onClick={onAnother}>
            Publish another version
          </button>
        </div>
      )}
    </div>
  )
}

/** A ref that moves the focus to its element once, when it is first shown (not at every render: the status polls). */
function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null)
  useEffect(() => ref.current?.focus(), [])
  return ref
}

/** A version published with warnings says so where it is published, not only on its page. */
function PublishedWarnings({ address, version }: { address: ModuleAddress; version: string }) {
  const { client } = useSession()
  const warnings = useQuery(versionOptions(client, address, version)).data?.data.attributes.warnings ?? []
  if (warnings.length === 0) return null
  return (
    <div role="status">
      <p>
        <strong>Published with {warnings.length === 1 ? 'a warning' : `${warnings.length} warnings`}:</strong>
      </p>
      <WarningList warnings={warnings} />
    </div>
  )
}
