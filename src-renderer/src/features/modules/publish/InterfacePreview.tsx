import { useEffect, useState } from 'react'
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
  /** The version proposed and taken: said until the version is changed again. */
  const [picked, setPicked] = useState<string>()
  const check = useMutation({ mutationFn: async () => (await previewInterface(client, address, version, await archive())).data.attributes })
  // A check of another version is not this one's (the proposal taken, the field edited): it goes, to be made again.
  const { reset } = check
  useEffect(() => reset(), [version, reset])
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
          {/* Only a proposal: it sets the version, and the one Publish button below publishes. */}
          {needed && (
            <p>
              <button type="button" onClick={() => {
                  setPicked(needed)
                  onPick(needed)
                }}>
                Use {needed} as the version
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
      {!check.data && picked === version && <p role="status">The version is now {picked}: Publish below publishes it as {picked}.</p>}
      <ErrorMessage error={check.error} action="Could not compare it" />
    </div>
  )
}
