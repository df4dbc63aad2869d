import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { NewToken } from '../../lib/new-token'
import { formatDate } from '../../lib/format'
import { AppLink } from '../../lib/link'
import { useSession } from '../../lib/session'
import { ConfirmButton, ErrorMessage, Loading } from '../../lib/ui'
import { accountOptions } from '../organizations/api'
import { accountTeamsOptions, useCreateUserToken, useDeleteUserToken, userTokensOptions } from './api'

/**
 * Who is signed in: for a person (single sign-on), their teams, which their identity provider's groups
 * decide at each sign-in, and their API tokens; for a token, whose it is.
 */
export function AccountPage() {
  const { client } = useSession()
  const account = useQuery(accountOptions(client))
  if (account.isPending) return <Loading what="your account" />
  if (account.isError) return <ErrorMessage error={account.error} action="Could not read your account" />
  const { id, attributes } = account.data.data
  const person = client.token === null
  return (
    <section aria-labelledby="account-heading" className="stack">
      <header className="page-header">
        <div>
          <h1 id="account-heading">{attributes.username}</h1>
          <p className="muted">
            {person
              ? `Signed in through single sign-on${attributes.email ? ` as ${attributes.email}` : ''}${attributes['is-site-admin'] ? ', with the site admin’s rights' : ''}.`
              : attributes['is-site-admin']
                ? 'Signed in with the site-admin token.'
                : 'Signed in with an API token; its rights are its team’s or organization’s.'}
          </p>
        </div>
      </header>
      {person && <PersonTeams />}
      {person && <PersonTokens userId={id} />}
    </section>
  )
}

function PersonTeams() {
  const { client } = useSession()
  const teams = useQuery(accountTeamsOptions(client))
  const items = teams.data?.data ?? []
  return (
    <section className="card padded stack-tight" aria-labelledby="teams-heading">
      <h2 id="teams-heading">Teams</h2>
      <p className="muted">Your identity provider’s groups decide them at each sign-in: a group named organization/team makes you a member of that team.</p>
      {teams.isPending && <Loading what="your teams" />}
      <ErrorMessage error={teams.error} action="Could not load your teams" />
      {teams.isSuccess && items.length === 0 && <p role="status">None: none of your groups names a team here. Ask the site admin which groups Homeport’s teams go by.</p>}
      {items.length > 0 && (
        <ul>
          {items.map((team) => (
            <li key={team.id}>
              <AppLink to={{ page: 'organization', org: team.attributes['organization-name'], tab: 'modules' }}>{team.attributes['organization-name']}</AppLink> / {team.attributes.name}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

function PersonTokens({ userId }: { userId: string }) {
  const { client } = useSession()
  const tokens = useQuery(userTokensOptions(client, userId))
  const create = useCreateUserToken(client, userId)
  const remove = useDeleteUserToken(client, userId)
  const [description, setDescription] = useState('')
  const [until, setUntil] = useState('')
  const [shown, setShown] = useState<string>()
  const make = (event: React.FormEvent) => {
    event.preventDefault()
    // The end of the chosen day, where the person is.
    create.mutate(
      { description: description.trim(), expiredAt: until ? new Date(`${until}T23:59:59`).toISOString() : null },
      {
        onSuccess: (token) => {
          setShown(token)
          setDescription('')
          setUntil('')
        }
      }
    )
  }
  const items = tokens.data?.data ?? []
  return (
    <section className="card padded stack-tight" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">API tokens</h2>
      <p className="muted">For Terraform, OpenTofu, scripts and assistants: a token acts with your teams, as of your last sign-in, and stops working while you are in none.</p>
      {tokens.isPending && <Loading what="your tokens" />}
      <ErrorMessage error={tokens.error ?? create.error ?? remove.error} />
      {shown && <NewToken token={shown} label="New API token" onDone={() => setShown(undefined)} />}
      {tokens.isSuccess && items.length === 0 && <p role="status">None yet.</p>}
      {items.length > 0 && (
        <ul className="plain">
          {items.map((token) => (
            <li key={token.id} className="row">
              <span>
                <strong>{token.attributes.description ?? 'No description'}</strong>{' '}
                <span className="muted">
                  made {formatDate(token.attributes['created-at'])}; {token.attributes['expired-at'] ? `expires ${formatDate(token.attributes['expired-at'])}` : 'never expires'}
                </span>
              </span>
              <ConfirmButton label="Delete" subject={`token ${token.attributes.description ?? token.id}`} confirm="Delete this token? What uses it stops at once." busy={remove.isPending} onConfirm={() => remove.mutate(token.id)} />
            </li>
          ))}
        </ul>
      )}
      <form className="form-row" onSubmit={make}>
        <div className="field">
          <label htmlFor="token-description">Description</label>
          <input id="token-description" value={description} maxLength={200} placeholder="laptop, CI…" onChange={(event) => setDescription(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="token-until">Valid until (optional)</label>
          <input id="token-until" type="date" value={until} min={new Date().toISOString().slice(0, 10)} onChange={(event) => setUntil(event.target.value)} />
        </div>
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Making…' : 'Make token'}
        </button>
      </form>
    </section>
  )
}
