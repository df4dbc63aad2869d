import type Router from '@koa/router'
import type { Services } from '../../domain/services.js'
import type { PersonTeam } from '../../domain/people/people.js'
import { callerOf } from '../../http/auth.js'
import { sendDocument } from '../../http/jsonapi.js'
import { pathParams } from '../../http/query.js'
import type { Resource } from '../../../shared/wire/jsonapi.js'
import type { PersonTeamAttributes } from '../../../shared/wire/organizations.js'
import { organizationPath } from './serializers/organization-resources.js'
import { tokenInput, tokenResource } from './serializers/token-resources.js'

/**
 * A person's own things (domain/people/): HCP's user tokens (`/users/:id/authentication-tokens`;
 * reading and deleting one by id is in login.ts, beside terraform login's), and Homeport's list of
 * the teams their groups gave them, for their page in the GUI.
 */
export function peopleRoutes(router: Router, services: Services): void {
  const people = services.people
  const owner = (userId: string) => ({ user: { data: { id: userId, type: 'users' } } })
  router.get('/users/:id/authentication-tokens', async (ctx) => {
    const { id } = pathParams(ctx, 'id')
    const tokens = await people.tokens(callerOf(ctx), id)
    sendDocument(ctx, 200, { data: tokens.map((record) => tokenResource(record, owner(id))) })
  })
  router.post('/users/:id/authentication-tokens', async (ctx) => {
    const { id } = pathParams(ctx, 'id')
    const { token, record } = await people.createToken(callerOf(ctx), id, tokenInput(ctx))
    sendDocument(ctx, 201, { data: tokenResource(record, owner(id), token) })
  })
  router.get('/account/teams', async (ctx) => {
    const caller = callerOf(ctx)
    const teams = caller.kind === 'user' ? (await people.person(caller, caller.userId)).teams : []
    sendDocument(ctx, 200, { data: teams.map(personTeamResource) })
  })
}

function personTeamResource(team: PersonTeam): Resource<PersonTeamAttributes, 'teams'> {
  return {
    id: team.teamId,
    type: 'teams',
    attributes: { name: team.teamName, 'organization-name': team.organizationName },
    relationships: { organization: { data: { id: team.organizationName, type: 'organizations' }, links: { related: organizationPath(team.organizationName) } } }
  }
}
