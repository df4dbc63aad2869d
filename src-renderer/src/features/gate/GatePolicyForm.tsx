import { useState } from 'react'
import type { ApiClient } from '../../lib/api-client'
import { ErrorMessage } from '../../lib/ui'
import { useUpdatePolicy, type GatePolicyAttributes, type GateScope, type PolicySettings } from './api'

/** A scope's settings: its cooldown, allow-only, approvals and report-only; read-only for those who may not change them. */
export function GatePolicyForm({ client, scope, policy, canManage }: { client: ApiClient; scope: GateScope; policy: GatePolicyAttributes; canManage: boolean }) {
  const saved: PolicySettings = { cooldown: policy.cooldown, 'allow-only': policy['allow-only'], approvals: policy.approvals, 'report-only': policy['report-only'] }
  const [draft, setDraft] = useState<PolicySettings>()
  const values = draft ?? saved
  const update = useUpdatePolicy(client, scope)
  const id = (name: string) => `gate-${scope ?? 'installation'}-${name}`
  const floor = scope === undefined ? policy['cooldown-floor-seconds'] : policy['installation-cooldown-seconds']
  const check = (key: 'allow-only' | 'approvals' | 'report-only', label: string, hint: string) => (
    <div className="field">
      <label htmlFor={id(key)} className="inline">
        <input id={id(key)} type="checkbox" disabled={!canManage} checked={values[key]} aria-describedby={`${id(key)}-hint`} onChange={(event) => setDraft({ ...values, [key]: event.target.checked })} />
        {label}
      </label>
      <p className="hint" id={`${id(key)}-hint`}>
        {hint}
      </p>
    </div>
  )
  return (
    <form
      className="card padded stack-tight"
      aria-labelledby={id('title')}
      onSubmit={(event) => {
        event.preventDefault()
        update.mutate(values, { onSuccess: () => setDraft(undefined) })
      }}
    >
      <h2 id={id('title')}>Policy</h2>
      <div className="field">
        <label htmlFor={id('cooldown')}>Cooldown</label>
        <input id={id('cooldown')} className="short" value={values.cooldown} readOnly={!canManage} aria-describedby={`${id('cooldown')}-hint`} onChange={(event) => setDraft({ ...values, cooldown: event.target.value })} />
        <p className="hint" id={`${id('cooldown')}-hint`}>
          How old a version must be before it is offered, from the upstream’s publish time (or when Homeport first saw it): <code>7d</code>, <code>36h</code>, <code>90m</code>, or <code>0</code> for none. 7 days is
          recommended.{' '}
          {floor > 0 &&
            (scope === undefined
              ? `This Homeport was started with --cooldown, so it is at least ${Math.round(floor / 3600)} hours.`
              : `This Homeport already holds every version for ${Math.round(floor / 3600)} hours; an organization can only add to that.`)}
        </p>
      </div>
      {check('allow-only', 'Allow only what the allow list names', 'Every other provider and module from the public registries stays out.')}
      {check('approvals', 'New versions wait for approval', 'A version nobody has approved waits in the queue below; an approval also lets it past the cooldown.')}
      {check('report-only', 'Report only', 'Hold nothing: record in the audit trail what the policy would hold, to try it before enforcing it.')}
      {canManage && (
        <button type="submit" className="fit" disabled={update.isPending || draft === undefined}>
          {update.isPending ? 'Saving…' : 'Save policy'}
        </button>
      )}
      <ErrorMessage error={update.error} action="Not saved" />
    </form>
  )
}
