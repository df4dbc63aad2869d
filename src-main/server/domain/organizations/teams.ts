import type { AuthenticationTokenRecord, CliTokenRecord, OrganizationRecord, TeamRecord } from '../../store/records.js'
import { TEAM_ID, type Store } from '../../store/port.js'
import { UniqueConstraintError } from '../../store/errors.js'
import { accountOf, describeCaller, type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import type { OrganizationService } from './organizations.js'
import type { AuditResource, AuditTrailService } from './audit-trail.js'
import { hashToken, newToken, tokenExpiry } from '../core/tokens.js'

export interface TeamInput {
  name?: string
  manageModules?: boolean
}

export interface TeamRef {
  org: OrganizationRecord
  team: TeamRecord
}

const TEAM_NAME = /^[A-Za-z0-9_-]+$/
const TEAM_NAME_MAX = 64

/** Teams (a subset of HCP Terraform's): who may read an organization and manage its modules. */
export class TeamService {
  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService,
    private readonly audit: AuditTrailService
  ) {}

  async list(caller: Caller, orgName: string): Promise<TeamRef[]> {
    const org = await this.organizations.read(caller, orgName)
    return org.teams.map((team) => ({ org, team }))
  }

  async read(caller: Caller, teamId: string): Promise<TeamRef> {
    const org = await this.store.organizations.findBy(TEAM_ID, teamId)
    const team = org?.teams.find((candidate) => candidate.id === teamId)
    if (!org || !team || !authorize(caller, 'read teams', org)) throw new NotFoundError(`team "${teamId}" not found`)
    return { org, team }
  }

  async create(caller: Caller, orgName: string, input: TeamInput): Promise<TeamRef> {
    const org = await this.organizations.forChange(caller, orgName, 'manage teams', 'create', { type: 'team', id: input.name ?? '', name: `${orgName}/${input.name ?? ''}` })
    const name = input.name
    if (name === undefined) throw new InvalidInputError('A team needs a name.', 'name')
    if (!TEAM_NAME.test(name) || name.length > TEAM_NAME_MAX) {
      throw new InvalidInputError(
        `"${name}" is not a valid team name: up to ${TEAM_NAME_MAX} letters, digits, "-" and "_".`,
        'name'
      )
    }
    const team: TeamRecord = {
      id: newId('team'),
      name,
      owners: false,
      manageModules: input.manageModules ?? false,
      createdAt: now(),
      token: null
    }
    const { record } = await this.store.organizations.update(org.id, (draft) => {
      if (draft.teams.some((other) => other.name.toLowerCase() === name.toLowerCase())) {
        throw new InvalidInputError(`A team named "${name}" already exists in this organization.`, 'name', [], 'name-taken')
      }
      draft.teams.push(team)
    })
    await this.changed(caller, record, 'create', teamResource(record, team))
    return { org: record, team }
  }

  /** Changes a team's access (HCP's `PATCH /teams/:id` `organization-access`), by owners; the owners team keeps all of it. */
  async update(caller: Caller, teamId: string, input: { manageModules?: boolean }): Promise<TeamRef> {
    const { org, team } = await this.forChange(caller, teamId, 'update')
    if (team.owners && input.manageModules === false) throw new InvalidInputError('The owners team always manages modules.', 'organizationAccess.manageModules')
    const { record, result } = await this.store.organizations.update(org.id, (draft) => {
      const target = draft.teams.find((candidate) => candidate.id === teamId)
      if (!target) throw new NotFoundError(`team "${teamId}" not found`)
      if (input.manageModules !== undefined && !target.owners) target.manageModules = input.manageModules
      return target
    })
    await this.changed(caller, record, 'update', teamResource(record, result))
    return { org: record, team: result }
  }

  async delete(caller: Caller, teamId: string): Promise<void> {
    const { org, team } = await this.forChange(caller, teamId, 'destroy')
    if (team.owners) throw new InvalidInputError('The owners team cannot be deleted.')
    await this.store.organizations.update(org.id, (draft) => {
      draft.teams = draft.teams.filter((candidate) => candidate.id !== teamId)
      // Tokens terraform login obtained for the team go with it.
      draft.cliTokens = draft.cliTokens.filter((token) => token.teamId !== teamId)
    })
    await this.changed(caller, org, 'destroy', teamResource(org, team))
  }

  /** Creates the team's token, replacing any previous one. The token is returned this once. */
  async createToken(
    caller: Caller,
    teamId: string,
    input: { description: string | null; expiredAt?: string | null }
  ): Promise<{ ref: TeamRef; token: string; record: AuthenticationTokenRecord }> {
    const { org } = await this.forChange(caller, teamId, 'create', 'authentication-token')
    const token = newToken()
    const record: AuthenticationTokenRecord = { id: newId('at'), hash: hashToken(token), createdAt: now(), description: input.description, expiredAt: tokenExpiry(input.expiredAt), createdBy: accountOf(caller, org).id }
    try {
      const { record: updated, result: team } = await this.store.organizations.update(org.id, (draft) => {
        const target = draft.teams.find((candidate) => candidate.id === teamId)
        if (!target) throw new NotFoundError(`team "${teamId}" not found`)
        target.token = record
        return target
      })
      await this.changed(caller, updated, 'create', tokenResource(updated, team, record.id))
      return { ref: { org: updated, team }, token, record }
    } catch (error) {
      // 256 random bits cannot collide; should they, the caller may simply try again.
      if (error instanceof UniqueConstraintError) throw new Error('token collision, try again', { cause: error })
      throw error
    }
  }

  /**
   * One more token acting as the team (HCP's multiple team tokens, `POST /teams/:id/authentication-tokens`),
   * beside its legacy one and those terraform login obtained: listed and revoked with them under the
   * organization's tokens. Made for a purpose (`homeport terraform-config --team`), so described.
   */
  async addToken(caller: Caller, teamId: string, input: { description: string | null; expiredAt?: string | null }): Promise<{ ref: TeamRef; token: string; record: CliTokenRecord }> {
    const { org, team } = await this.forChange(caller, teamId, 'create', 'authentication-token')
    const token = newToken()
    const record: CliTokenRecord = {
      id: newId('at'),
      hash: hashToken(token),
      createdAt: now(),
      description: input.description,
      expiredAt: tokenExpiry(input.expiredAt),
      createdBy: accountOf(caller, org).id,
      teamId,
      approvedBy: describeCaller(caller, org)
    }
    try {
      const { record: updated } = await this.store.organizations.update(org.id, (draft) => {
        if (!draft.teams.some((candidate) => candidate.id === teamId)) throw new NotFoundError(`team "${teamId}" not found`)
        draft.cliTokens.push(record)
      })
      await this.changed(caller, updated, 'create', { type: 'authentication-token', id: record.id, name: `a token of team ${org.name}/${team.name}` })
      return { ref: { org: updated, team }, token, record }
    } catch (error) {
      if (error instanceof UniqueConstraintError) throw new Error('token collision, try again', { cause: error })
      throw error
    }
  }

  /** The team token's description (never the token itself), for owners; 404 when the team has none. */
  async readToken(caller: Caller, teamId: string): Promise<AuthenticationTokenRecord> {
    const { org, team } = await this.read(caller, teamId)
    if (!authorize(caller, 'manage teams', org) || !team.token) throw new NotFoundError(`team "${teamId}" has no token`)
    return team.token
  }

  async deleteToken(caller: Caller, teamId: string): Promise<void> {
    const { org, team } = await this.forChange(caller, teamId, 'destroy', 'authentication-token')
    if (!team.token) throw new NotFoundError(`team "${teamId}" has no token`)
    await this.store.organizations.update(org.id, (draft) => {
      const target = draft.teams.find((candidate) => candidate.id === teamId)
      if (target) target.token = null
    })
    await this.changed(caller, org, 'destroy', tokenResource(org, team, team.token.id))
  }

  /** The team, for a change to it (or to its token) by its organization's owners; 404 to anyone else, recorded. */
  private async forChange(caller: Caller, teamId: string, action: string, of: 'team' | 'authentication-token' = 'team'): Promise<TeamRef> {
    const org = await this.store.organizations.findBy(TEAM_ID, teamId)
    const team = org?.teams.find((candidate) => candidate.id === teamId)
    if (!org || !team) throw new NotFoundError(`team "${teamId}" not found`)
    const resource = of === 'team' ? teamResource(org, team) : tokenResource(org, team, team.token?.id ?? teamId)
    await this.audit.check(caller, { permission: 'manage teams', org, action, resource }, () => new NotFoundError(`team "${teamId}" not found`))
    return { org, team }
  }

  private changed(caller: Caller, org: OrganizationRecord, action: string, resource: AuditResource): Promise<void> {
    return this.audit.done({ author: caller, permission: 'manage teams', org, action, resource })
  }
}

function teamResource(org: OrganizationRecord, team: TeamRecord): AuditResource {
  return { type: 'team', id: team.id, name: `${org.name}/${team.name}` }
}

function tokenResource(org: OrganizationRecord, team: TeamRecord, tokenId: string): AuditResource {
  return { type: 'authentication-token', id: tokenId, name: `the token of team ${org.name}/${team.name}` }
}
