import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../lib/session'
import { ErrorMessage, Loading } from '../../lib/ui'
import { gatePolicyOptions, type GateScope } from './api'
import { GatePolicyForm } from './GatePolicyForm'
import { GateDecisions } from './GateDecisions'
import { GateQueue } from './GateQueue'
import { GateRules } from './GateRules'

/** One scope's gate: its policy, its rules and its approval queue (docs/guide/the-gate.md). */
export function GatePanel({ scope, canManage }: { scope: GateScope; canManage: boolean }) {
  const { client } = useSession()
  const policy = useQuery(gatePolicyOptions(client, scope))
  if (policy.isPending) return <Loading what="the gate" />
  if (policy.isError) return <ErrorMessage error={policy.error} action="Could not read the gate" />
  const attributes = policy.data.data.attributes
  return (
    <div className="stack">
      {attributes['report-only'] && (
        <p className="notice" role="status">
          Report only: this policy holds nothing back; the audit trail records what it would hold.
        </p>
      )}
      <GatePolicyForm key={attributes['updated-at']} client={client} scope={scope} policy={attributes} canManage={canManage} />
      <GateRules client={client} scope={scope} rules={attributes.rules} canManage={canManage} />
      <GateQueue client={client} scope={scope} canManage={canManage} />
      <GateDecisions client={client} scope={scope} reportOnly={attributes['report-only']} />
    </div>
  )
}
