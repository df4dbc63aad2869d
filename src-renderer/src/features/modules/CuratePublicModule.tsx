import { useState } from 'react'
import { TERRAFORM_REGISTRY } from '@shared/terraform-config'
import { navigate } from '../../lib/router'
import { useSession } from '../../lib/session'
import { ErrorMessage } from '../../lib/ui'
import { useModuleAction } from './api'

/** `namespace/name/provider`, as the public registry addresses a module (its hostname in front allowed). */
const ADDRESS = /^(?:registry\.terraform\.io\/)?([A-Za-z0-9][A-Za-z0-9_-]*)\/([A-Za-z0-9][A-Za-z0-9_-]*)\/([a-z0-9]+)$/

/**
 * Adding a public registry module to the organization's registry (HCP's curation of public modules,
 * hosted edition): the address is recorded here, then its page offers to mirror versions of it.
 */
export function CuratePublicModule({ org }: { org: string }) {
  const { client } = useSession()
  const add = useModuleAction(client, org)
  const [address, setAddress] = useState('')
  const parsed = ADDRESS.exec(address.trim())
  return (
    <details className="card padded curate">
      <summary>Curate a public module</summary>
      <form
        className="stack-tight"
        aria-label="Curate a public module"
        onSubmit={(event) => {
          event.preventDefault()
          if (!parsed) return
          const [, namespace, name, provider] = parsed as unknown as [string, string, string, string]
          add.mutate(
            { path: `/organizations/${encodeURIComponent(org)}/registry-modules`, body: { data: { type: 'registry-modules', attributes: { 'registry-name': 'public', namespace, name, provider } } } },
            { onSuccess: () => navigate({ page: 'module', org, registry: 'public', namespace, name, provider }) }
          )
        }}
      >
        <p className="muted">
          A module of {TERRAFORM_REGISTRY} your organization uses: listed and searched here with your own, its versions mirrored (and gated) from its page.
        </p>
        <div className="form-row">
          <div className="field">
            <label htmlFor="curate-address">Its address on the public registry</label>
            <input
              id="curate-address"
              value={address}
              placeholder="terraform-aws-modules/vpc/aws"
              spellCheck={false}
              aria-invalid={address.trim() !== '' && !parsed}
              aria-describedby="curate-address-hint"
              onChange={(event) => {
                setAddress(event.target.value)
                add.reset()
              }}
            />
            <p className="hint" id="curate-address-hint">
              namespace/name/provider, as in a module’s <code>source</code>.
            </p>
          </div>
        </div>
        <div className="actions start">
          <button type="submit" className="primary" disabled={!parsed || add.isPending}>
            Curate {parsed ? `${parsed[1]}/${parsed[2]}/${parsed[3]}` : 'it'}
          </button>
        </div>
        <ErrorMessage error={add.error} action="Could not curate it" />
      </form>
    </details>
  )
}
