import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { NewToken } from '../../lib/new-token'
import { formatDate } from '../../lib/format'
import { useSession } from '../../lib/session'
import { useToast } from '../../lib/toast'
import { ConfirmButton, ErrorMessage, Loading } from '../../lib/ui'
import { teamsOptions, useCreateTeam, useCreateTeamToken, useDeleteTeam, useUpdateTeamAccess } from './api'
import { NAME_PATTERN, patternProps } from '../../lib/name-pattern'

/** Teams and their tokens: who may read the organization and publish its modules. */
export function Teams({ org, canManage }: { org: string; canManage: boolean }) {
  const { client } = useSession()
  const teams = useQuery(teamsOptions(client, org))
  const create = useCreateTeam(client, org)
  const remove = useDeleteTeam(client, org)
  const token = useCreateTeamToken(client, org)
  const access = useUpdateTeamAccess(client, org)
  const toast = useToast()
  const [name, setName] = useState('')
  const [manageModules, setManageModules] = useState(false)
  const [shown, setShown] = useState<{ team: string; token: string }>()
  const makeToken = (teamId: string, team: string) => token.mutate(teamId, { onSuccess: (made) => setShown({ team, token: made }) })

  return (
    <section className="stack" aria-label="Teams">
      {canManage && (
        <form
          className="card form"
          aria-label="Create a team"
          onSubmit={(event) => {
            event.preventDefault()
            create.mutate(
              { name: name.trim(), manageModules },
              {
                onSuccess: () => {
                  setName('')
                  // Each team's rights are chosen anew: the next one starts read-only.
                  setManageModules(false)
                }
              }
            )
          }}
        >
          <div className="form-row">
            <div className="field">
              <label htmlFor="team-name">New team</label>
              <input
                id="team-name"
                value={name}
                required
                {...patternProps(NAME_PATTERN, 'a team name is letters, digits, “-” and “_” only.')}
                aria-describedby="team-name-hint"
                onChange={(event) => {
                  setName(event.target.value)
                  // An earlier refusal (a name taken) is about the name no longer there.
                  create.reset()
                }}
              />
              <p className="hint" id="team-name-hint">
                Letters, digits, “-” and “_”.
              </p>
            </div>
            <label className="inline">
              <input type="checkbox" checked={manageModules} onChange={(event) => setManageModules(event.target.checked)} /> May publish
              modules (Manage modules)
            </label>
            <button type="submit" className="primary" disabled={create.isPending}>
              Create team
            </button>
          </div>
          <ErrorMessage error={create.error} />
        </form>
      )}

      {shown && <NewToken token={shown.token} label="New token" title={<h3>Token for {shown.team}</h3>} className="card padded notice" onDone={() => setShown(undefined)} />}

      {teams.isPending && <Loading what="teams" />}
      <ErrorMessage error={teams.error ?? remove.error ?? token.error ?? access.error} />
      {teams.data && (
        <table>
          <thead>
            <tr>
              <th scope="col">Team</th>
              <th scope="col">Manage modules</th>
              <th scope="col">Token</th>
              <th scope="col">Created</th>
              {canManage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {teams.data.data.map((team) => {
              const hasToken = Boolean((team.relationships?.['authentication-token'] as { data: unknown } | undefined)?.data)
              return (
                <tr key={team.id}>
                  <td>
                    <strong>{team.attributes.name}</strong>
                  </td>
                  <td>
                    {team.attributes['organization-access']['manage-modules'] ? 'yes' : 'no'}
                    {/* A change of rights is asked for, then confirmed, then said: one stray click on a checkbox granted publishing at once. */}
                    {team.attributes.permissions['can-update-organization-access'] && (
                      <>
                        {' '}
                        <ConfirmButton
                          // A new button once the rights changed: the question asked was about the old ones.
                          key={String(team.attributes['organization-access']['manage-modules'])}
                          label={team.attributes['organization-access']['manage-modules'] ? 'Make read-only' : 'Let publish'}
                          subject={team.attributes.name}
                          confirm={
                            team.attributes['organization-access']['manage-modules']
                              ? `${team.attributes.name} will only read modules. Change it?`
                              : `${team.attributes.name} will publish, change and delete modules and providers. Grant it?`
                          }
                          action={team.attributes['organization-access']['manage-modules'] ? 'Make read-only' : 'Grant'}
                          busyLabel="Saving…"
                          busy={access.isPending}
                          onConfirm={() => {
                            const manageModules = !team.attributes['organization-access']['manage-modules']
                            access.mutate(
                              { teamId: team.id, manageModules },
                              { onSuccess: () => toast(`${team.attributes.name} ${manageModules ? 'may now publish modules' : 'now only reads modules'}.`) }
                            )
                          }}
                        />
                      </>
                    )}
                  </td>
                  <td>{hasToken ? 'set' : 'none'}</td>
                  <td>{formatDate(team.attributes['created-at'])}</td>
                  {canManage && (
                    <td className="actions">
                      {hasToken ? (
                        // The working token stops at once: ask first.
                        <ConfirmButton
                          label="Replace token"
                          subject={`of ${team.attributes.name}`}
                          confirm={`${team.attributes.name}'s current token stops working at once. Replace it?`}
                          action="Replace"
                          busyLabel="Replacing…"
                          busy={token.isPending}
                          onConfirm={() => makeToken(team.id, team.attributes.name)}
                        />
                      ) : (
                        <button type="button" aria-label={`Create token for ${team.attributes.name}`} onClick={() => makeToken(team.id, team.attributes.name)}>
                          Create token
                        </button>
                      )}
                      {team.attributes.permissions['can-destroy'] && (
                        <ConfirmButton label="Delete" subject={team.attributes.name} confirm={`Delete ${team.attributes.name}?`} busy={remove.isPending} onConfirm={() => remove.mutate(team.id)} />
                      )}
                    </td>
                  )}
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
    </section>
  )
}
