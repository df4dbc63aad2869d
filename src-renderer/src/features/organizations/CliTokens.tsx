import { useQuery } from '@tanstack/react-query'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { ActionsHeader, ConfirmButton, ErrorMessage } from '../../lib/ui'
import { cliTokensOptions, useRevokeCliToken } from './api'

/** The tokens `terraform login` obtained in this organization (owners see all, a team its own), each revocable at once. */
export function CliTokens({ org }: { org: string }) {
  const { client } = useSession()
  const tokens = useQuery(cliTokensOptions(client, org))
  const revoke = useRevokeCliToken(client, org)
  const list = tokens.data?.data ?? []
  return (
    <section className="card padded stack-tight" aria-labelledby="cli-tokens-title">
      <h2 id="cli-tokens-title">Terraform CLI logins</h2>
      <p className="muted">
        Tokens <code>terraform login</code> obtained here, each with a team’s rights. Set it up with <code>homeport terraform-config --login</code> (see Connect Terraform).
      </p>
      <ErrorMessage error={tokens.error ?? revoke.error} />
      {tokens.isSuccess && list.length === 0 && <p>None yet.</p>}
      {list.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Acts as team</th>
              <th scope="col">Approved by</th>
              <th scope="col">Made</th>
              <th scope="col">Expires</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {list.map((token) => (
              <tr key={token.id}>
                <td>{token.attributes['team-name'] ?? '—'}</td>
                <td>{token.attributes['approved-by']}</td>
                <td>{formatDate(token.attributes['created-at'])}</td>
                <td>{token.attributes['expired-at'] ? formatDate(token.attributes['expired-at']) : 'never'}</td>
                <td>
                  <ConfirmButton label="Revoke" confirm="Revoke this login? That Terraform stops at once." action="Revoke" busyLabel="Revoking…" busy={revoke.isPending} onConfirm={() => revoke.mutate(token.id)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
