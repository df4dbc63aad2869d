import { useEffect, useRef } from 'react'
import { useQuery } from '@tanstack/react-query'
import { AppLink } from '../../../lib/link'
import { useSession } from '../../../lib/session'
import { useToast } from '../../../lib/toast'
import { StatusBadge } from '../../../lib/ui'
import { moduleOptions, versionOptions, type ModuleAddress } from '../api'
import { WarningList } from '../WarningList'
import type { Stage } from './usePublish'

/** Packaging, uploading, then ingest: where the form was, with the focus, so the result is where the eye is. */
export function PublishProgress({ stage, onAnother }: { stage: Stage; onAnother: () => void }) {
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
