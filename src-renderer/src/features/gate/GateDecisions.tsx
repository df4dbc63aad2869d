import { useQuery } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import { formatDateTime } from '../../lib/format'
import { gateDecisionsOptions, type GateScope } from './api'

/**
 * What the gate held back, waived, or (report-only) would have held, most recent first: each version
 * and verdict once per server process, from the audit trail. Shown to those who may read the trail.
 */
export function GateDecisions({ client, scope, reportOnly }: { client: ApiClient; scope: GateScope; reportOnly: boolean }) {
  const decisions = useQuery(gateDecisionsOptions(client, scope))
  const id = `gate-${scope ?? 'installation'}-decisions`
  if (!decisions.isSuccess) return null
  const events = decisions.data.data
  return (
    <section className="card padded stack-tight" aria-labelledby={id}>
      <h2 id={id}>Recent decisions</h2>
      {reportOnly && <p className="muted">Report only: the versions below marked “would be …” were offered, and would have been held.</p>}
      {events.length === 0 ? (
        <p className="muted">The gate has held nothing back yet.</p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Recent decisions">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Decision</th>
                <th scope="col">Version and why</th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => (
                <tr key={event.id}>
                  <td>{formatDateTime(event.timestamp)}</td>
                  <td>
                    <span className={`badge ${event.resource.action.startsWith('would be') ? 'info' : event.resource.action === 'waived' ? 'good' : 'warn'}`}>{event.resource.action}</span>
                  </td>
                  <td>{event.resource.meta.name}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
