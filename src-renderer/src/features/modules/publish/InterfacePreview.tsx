import { useMutation } from '@tanstack/react-query'
import semver from 'semver'
import { useSession } from '../../../lib/session'
import { ErrorMessage } from '../../../lib/ui'
import { previewInterface, type ModuleAddress } from '../api'
import { InterfaceChanges } from '../InterfaceChanges'

/**
 * Before the publish is confirmed: the interface change this archive would make as `version`,
 * against the published version it would follow, and what ingest would warn about.
 */
export function InterfacePreview({
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
