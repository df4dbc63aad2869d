import { useState } from 'react'
import { useSession } from '../../lib/session'
import { ErrorMessage } from '../../lib/ui'
import { modulePath, useModuleAction, type ModuleAddress } from '../../features/modules/api'

/**
 * A curated public module with nothing mirrored yet: its versions come from the public registry, so one
 * is mirrored here (or Terraform pulls one through on its first install), not published.
 */
export function MirrorPublicVersion({ address }: { address: ModuleAddress }) {
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
