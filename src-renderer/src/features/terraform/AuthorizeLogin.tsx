import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../lib/session'
import { ErrorMessage, Loading } from '../../lib/ui'
import { organizationListOptions, teamsOptions } from '../organizations/api'
import { serverInfoOptions, useApproveLogin } from './api'

/**
 * `terraform login`'s authorization page: Terraform, waiting on this machine, asks for a token; the
 * signed-in user chooses the organization and the team whose rights it gets (and until when), and
 * approves; a person signed in through single sign-on approves a token of their own, which acts with
 * their teams. Homeport then sends the browser back to Terraform's listener with a one-time code.
 */
export function AuthorizeLogin({ query }: { query: string }) {
  const { client } = useSession()
  // A person signed in through single sign-on hands out their own rights: their token acts with their teams.
  const person = client.token === null
  const params = new URLSearchParams(query)
  const redirect = params.get('redirect_uri') ?? ''
  const info = useQuery(serverInfoOptions(client))
  const orgs = useQuery({ ...organizationListOptions(client, ''), enabled: !person })
  const [org, setOrg] = useState('')
  const chosenOrg = org || orgs.data?.data[0]?.id || ''
  const teams = useQuery({ ...teamsOptions(client, chosenOrg), enabled: !person && chosenOrg !== '' })
  const [team, setTeam] = useState('')
  // Only the teams whose rights the caller may hand out: all of them for an owner, a team's own for a team.
  const grantable = (teams.data?.data ?? []).filter((entry) => entry.attributes.permissions['can-approve-terraform-login'])
  const chosenTeam = team || grantable[0]?.id || ''
  const [until, setUntil] = useState('')
  const [denied, setDenied] = useState(false)
  const approve = useApproveLogin(client)
  const listener = (() => {
    try {
      return new URL(redirect).host
    } catch {
      return ''
    }
  })()

  if (denied) {
    return (
      <section className="card padded stack-tight" aria-labelledby="authorize-title">
        <h1 id="authorize-title">Login refused</h1>
        <p>No token was issued. Stop terraform login in its terminal (Ctrl-C).</p>
      </section>
    )
  }
  return (
    <section className="card padded stack-tight authorize" aria-labelledby="authorize-title">
      <h1 id="authorize-title">Terraform CLI on this machine wants a token</h1>
      <p>
        <code>terraform login {info.data?.registryHostname ?? ''}</code> is waiting on this computer{listener ? ` (at ${listener})` : ''}. Approve it, and Terraform gets a token
        it saves for the commands it runs next.{' '}
        {person
          ? 'The token is yours: it can do what your teams can, and you can delete it on your account page.'
          : 'The token acts as the team you choose: it can do what that team can, and you can revoke it under the organization’s Teams.'}
      </p>
      {params.get('client_id') !== 'terraform-cli' && <p role="alert">This request does not come from the Terraform CLI: do not approve it.</p>}
      {!person && orgs.isPending && <Loading what="your organizations" />}
      <ErrorMessage error={orgs.error ?? teams.error} />
      {!person && orgs.data && orgs.data.data.length === 0 && <p>You see no organization to log in to.</p>}
      {(person || (orgs.data && orgs.data.data.length > 0)) && (
        <form
          className="stack-tight"
          aria-label="Approve terraform login"
          onSubmit={(event) => {
            event.preventDefault()
            approve.mutate(
              { request: params, organization: chosenOrg, teamId: chosenTeam, expiredAt: until ? new Date(`${until}T23:59:59`).toISOString() : null },
              // Back to Terraform's own listener, which takes the code and asks for the token.
              { onSuccess: (next) => window.location.assign(next) }
            )
          }}
        >
          <div className="form-row">
            {!person && (
              <>
                <div className="field">
                  <label htmlFor="authorize-org">Organization</label>
                  <select
                    id="authorize-org"
                    value={chosenOrg}
                    onChange={(event) => {
                      setOrg(event.target.value)
                      setTeam('')
                    }}
                  >
                    {(orgs.data?.data ?? []).map((entry) => (
                      <option key={entry.id} value={entry.id}>
                        {entry.id}
                      </option>
                    ))}
                  </select>
                </div>
                <div className="field">
                  <label htmlFor="authorize-team">The token may do what this team may</label>
                  <select id="authorize-team" value={chosenTeam} onChange={(event) => setTeam(event.target.value)}>
                    {grantable.map((entry) => (
                      <option key={entry.id} value={entry.id}>
                        {entry.attributes.name} ({entry.attributes['organization-access']['manage-modules'] ? 'read and publish' : 'read'})
                      </option>
                    ))}
                  </select>
                </div>
              </>
            )}
            <div className="field">
              <label htmlFor="authorize-until">Valid until (optional)</label>
              <input id="authorize-until" type="date" value={until} min={new Date().toISOString().slice(0, 10)} onChange={(event) => setUntil(event.target.value)} />
            </div>
          </div>
          <div className="form-row">
            <button type="submit" className="primary" disabled={(!person && !chosenTeam) || approve.isPending}>
              Approve
            </button>
            <button type="button" onClick={() => setDenied(true)}>
              Deny
            </button>
          </div>
          <ErrorMessage error={approve.error} action="Could not approve it" />
        </form>
      )}
    </section>
  )
}
