import { useQuery } from '@tanstack/react-query'
import { formatDateTime } from '../../lib/format'
import { AppLink } from '../../lib/link'
import { useSession } from '../../lib/session'
import { gateVersionsOptions, verdictBadge } from '../../features/gate/api'
import type { ModuleAddress } from '../../features/modules/api'
import { TERRAFORM_REGISTRY } from '@shared/terraform-config'

/** A curated public module's versions the organization's gate holds back, with why and until when; nothing when it holds none. */
export function GateCard({ address, mirrored }: { address: ModuleAddress; mirrored: string[] }) {
  const { client } = useSession()
  const pkg = `${TERRAFORM_REGISTRY}/${address.namespace}/${address.name}/${address.provider}`
  const gate = useQuery(gateVersionsOptions(client, address.org, 'module', pkg, mirrored))
  const held = gate.data?.data.filter((entry) => !entry.attributes.offered || entry.attributes.reported) ?? []
  if (held.length === 0) return null
  return (
    <section className="card padded stack-tight" aria-labelledby="gate-card-title">
      <h2 id="gate-card-title">Held back by the gate</h2>
      <ul className="plain stack-tight">
        {held.map(({ attributes: entry }) => (
          <li key={entry.version}>
            <strong>{entry.version}</strong>{' '}
            <span className={`badge ${verdictBadge(entry).tone}`}>{verdictBadge(entry).words}</span>
            <div className="muted small">
              {entry.reason}
              {entry.until && ` (until ${formatDateTime(entry.until)})`}
            </div>
          </li>
        ))}
      </ul>
      <p className="hint">
        Terraform is not offered these. <AppLink to={{ page: 'organization', org: address.org, tab: 'gate' }}>{address.org}’s gate</AppLink> and the <AppLink to={{ page: 'gate' }}>installation’s</AppLink> decide.
      </p>
    </section>
  )
}
