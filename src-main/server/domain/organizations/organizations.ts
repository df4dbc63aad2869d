import type { CollaboratorAuthPolicy, ExecutionMode, OrganizationRecord, TeamRecord } from '../../store/records.js'
import { ORGANIZATION_NAME, organizationNameKey, type Store } from '../../store/port.js'
import { UniqueConstraintError } from '../../store/errors.js'
import { type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import type { Edition } from './edition.js'
import type { DomainEvents } from '../core/events.js'
import type { Action } from '../core/authorize.js'
import type { AuditResource, AuditTrailService } from './audit-trail.js'

/** Attributes of HCP’s create and update an organization; absent fields keep their default or previous value. */
export interface OrganizationInput {
  name?: string
  email?: string
  sessionTimeout?: number | null
  sessionRemember?: number | null
  collaboratorAuthPolicy?: string
  costEstimationEnabled?: boolean
  sendPassingStatusesForUntriggeredSpeculativePlans?: boolean
  aggregatedCommitStatusEnabled?: boolean
  speculativePlanManagementEnabled?: boolean
  ownersTeamSamlRoleId?: string | null
  assessmentsEnforced?: boolean
  allowForceDeleteWorkspaces?: boolean
  defaultExecutionMode?: string
  defaultAgentPoolId?: string | null
}

export interface OrganizationFilter {
  /** Matches name or e-mail; takes precedence over the other two. */
  q?: string
  email?: string
  name?: string
}

const NAME_PATTERN = /^[A-Za-z0-9_-]+$/
const NAME_MAX = 64
// Deliberately loose: one @, no spaces, a dot in the domain. Deliverability is not ours to judge.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const COLLABORATOR_AUTH_POLICIES: readonly CollaboratorAuthPolicy[] = ['password', 'two_factor_mandatory']
const EXECUTION_MODES: readonly ExecutionMode[] = ['remote', 'local', 'agent']
const DEFAULT_SESSION_MINUTES = 20160

export function validateOrganizationName(name: string, attribute = 'name'): void {
  if (!NAME_PATTERN.test(name)) {
    throw new InvalidInputError(
      `"${name}" is not a valid organization name: use only letters, digits, "-" and "_".`,
      attribute
    )
  }
  if (name.length > NAME_MAX) {
    throw new InvalidInputError(`An organization name has at most ${NAME_MAX} characters.`, attribute)
  }
}

export class OrganizationService {
  constructor(
    private readonly store: Store,
    private readonly events: DomainEvents,
    private readonly edition: Edition,
    private readonly audit: AuditTrailService
  ) {}

  async list(caller: Caller, filter: OrganizationFilter = {}): Promise<OrganizationRecord[]> {
    const visible = (await this.store.organizations.all()).filter((org) => authorize(caller, 'read organization', org))
    const matches = (org: OrganizationRecord): boolean => {
      if (filter.q !== undefined) return contains(org.name, filter.q) || contains(org.email, filter.q)
      return (
        (filter.name === undefined || contains(org.name, filter.name)) &&
        (filter.email === undefined || contains(org.email, filter.email))
      )
    }
    return visible.filter(matches).sort((a, b) => a.name.localeCompare(b.name))
  }

  /** The organization, when the caller may see it; 404 otherwise, so names do not leak. */
  async read(caller: Caller, name: string): Promise<OrganizationRecord> {
    const org = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(name))
    if (!org || org.name !== name || !authorize(caller, 'read organization', org)) {
      throw new NotFoundError(`organization "${name}" not found`)
    }
    return org
  }

  /**
   * The organization of that exact name, whoever asks: for a change, whose permission the audit
   * trail checks (and records when refused), so that owners see attempts from outside too.
   */
  async named(name: string): Promise<OrganizationRecord | undefined> {
    const org = await this.store.organizations.findBy(ORGANIZATION_NAME, organizationNameKey(name))
    return org?.name === name ? org : undefined
  }

  /** The organization named, for a change under `permission`: 404 when there is none, and when the caller may not (recorded). */
  async forChange(caller: Caller, name: string, permission: Action, action: string, resource: AuditResource): Promise<OrganizationRecord> {
    const org = await this.named(name)
    if (!org) throw new NotFoundError(`organization "${name}" not found`)
    await this.audit.check(caller, { permission, org, action, resource }, () => new NotFoundError(`organization "${name}" not found`))
    return org
  }

  /** Only a site admin creates organizations; team tokens belong to one organization. */
  async create(caller: Caller, input: OrganizationInput): Promise<OrganizationRecord> {
    const attempt = { permission: 'create organization', org: undefined, action: 'create', resource: { type: 'organization', id: input.name ?? '', name: input.name ?? '' } } as const
    await this.audit.check(caller, attempt, () => new NotFoundError('only a site admin can create organizations'))
    if (input.name === undefined) throw new InvalidInputError('An organization needs a name.', 'name')
    if (input.email === undefined) throw new InvalidInputError('An organization needs an e-mail address.', 'email')
    const createdAt = now()
    const owners: TeamRecord = {
      id: newId('team'),
      name: 'owners',
      owners: true,
      manageModules: true,
      createdAt,
      token: null
    }
    const draft: OrganizationRecord = {
      id: newId('org'),
      name: input.name,
      email: input.email,
      createdAt,
      sessionTimeout: DEFAULT_SESSION_MINUTES,
      sessionRemember: DEFAULT_SESSION_MINUTES,
      collaboratorAuthPolicy: 'password',
      costEstimationEnabled: false,
      sendPassingStatusesForUntriggeredSpeculativePlans: false,
      // Aggregated commit statuses and passing statuses for untriggered plans exclude each
      // other, so asking for the latter turns the former's default off.
      aggregatedCommitStatusEnabled: input.sendPassingStatusesForUntriggeredSpeculativePlans !== true,
      speculativePlanManagementEnabled: true,
      ownersTeamSamlRoleId: null,
      assessmentsEnforced: false,
      allowForceDeleteWorkspaces: false,
      defaultExecutionMode: 'remote',
      defaultAgentPoolId: null,
      teams: [owners],
      moduleConsumerIds: [],
      dataRetentionPolicy: null,
      vcsConnections: [],
      token: null,
      cliTokens: [],
      loginCodes: []
    }
    this.apply(draft, input)
    let org: OrganizationRecord
    try {
      org = await this.store.organizations.create(draft)
    } catch (error) {
      throw nameTaken(error, draft.name)
    }
    await this.audit.done({ ...attempt, author: caller, org, resource: organizationResource(org) })
    return org
  }

  async update(caller: Caller, name: string, input: OrganizationInput): Promise<OrganizationRecord> {
    const org = await this.forChange(caller, name, 'manage organization', 'update', { type: 'organization', id: name, name })
    let record: OrganizationRecord
    try {
      record = (await this.store.organizations.update(org.id, (draft) => this.apply(draft, input))).record
    } catch (error) {
      throw nameTaken(error, input.name ?? name)
    }
    await this.audit.done({ author: caller, permission: 'manage organization', org: record, action: 'update', resource: organizationResource(record) })
    return record
  }

  /** Removes the organization at once, then everything that belonged to it; the installation's trail says so. */
  async destroy(caller: Caller, name: string): Promise<void> {
    const org = await this.forChange(caller, name, 'manage organization', 'destroy', { type: 'organization', id: name, name })
    await this.store.organizations.delete(org.id)
    await this.events.emit('organizationDestroyed', org)
    await this.audit.done({ author: caller, permission: 'manage organization', org: undefined, action: 'destroy', resource: organizationResource(org) })
  }

  /** Applies the input's changes to `draft` and checks every rule on the result. */
  private apply(draft: OrganizationRecord, input: OrganizationInput): void {
    const hosted = this.edition === 'hosted'
    if (input.name !== undefined) {
      validateOrganizationName(input.name)
      draft.name = input.name
    }
    if (input.email !== undefined) {
      if (!EMAIL_PATTERN.test(input.email)) {
        throw new InvalidInputError(`"${input.email}" is not a valid e-mail address.`, 'email')
      }
      draft.email = input.email
    }
    if (input.sessionTimeout !== undefined) draft.sessionTimeout = minutes(input.sessionTimeout, 'sessionTimeout')
    if (input.sessionRemember !== undefined) draft.sessionRemember = minutes(input.sessionRemember, 'sessionRemember')
    if (input.collaboratorAuthPolicy !== undefined) {
      draft.collaboratorAuthPolicy = oneOf(input.collaboratorAuthPolicy, COLLABORATOR_AUTH_POLICIES, 'collaboratorAuthPolicy')
    }
    // The organization's choice, kept as given, as Terraform Enterprise does (go-tfe's fixtures ask for it
    // whatever the site says); in the self-hosted edition the site admin's switch decides whether it applies.
    if (input.costEstimationEnabled !== undefined) draft.costEstimationEnabled = input.costEstimationEnabled
    const sendPassing = input.sendPassingStatusesForUntriggeredSpeculativePlans
    if (sendPassing !== undefined) {
      if (sendPassing && !hosted) {
        throw new InvalidInputError(
          'send-passing-statuses-for-untriggered-speculative-plans is always false in the self-hosted edition.',
          'sendPassingStatusesForUntriggeredSpeculativePlans'
        )
      }
      draft.sendPassingStatusesForUntriggeredSpeculativePlans = sendPassing
    }
    if (input.aggregatedCommitStatusEnabled !== undefined) {
      draft.aggregatedCommitStatusEnabled = input.aggregatedCommitStatusEnabled
    }
    if (draft.aggregatedCommitStatusEnabled && draft.sendPassingStatusesForUntriggeredSpeculativePlans) {
      throw new InvalidInputError(
        'aggregated-commit-status-enabled cannot be used while send-passing-statuses-for-untriggered-speculative-plans is true.',
        input.aggregatedCommitStatusEnabled !== undefined
          ? 'aggregatedCommitStatusEnabled'
          : 'sendPassingStatusesForUntriggeredSpeculativePlans'
      )
    }
    if (input.speculativePlanManagementEnabled !== undefined) {
      draft.speculativePlanManagementEnabled = input.speculativePlanManagementEnabled
    }
    if (input.ownersTeamSamlRoleId !== undefined) draft.ownersTeamSamlRoleId = input.ownersTeamSamlRoleId
    if (input.assessmentsEnforced !== undefined && hosted) draft.assessmentsEnforced = input.assessmentsEnforced
    if (input.allowForceDeleteWorkspaces !== undefined) {
      draft.allowForceDeleteWorkspaces = input.allowForceDeleteWorkspaces
    }
    this.applyExecutionMode(draft, input)
  }

  private applyExecutionMode(draft: OrganizationRecord, input: OrganizationInput): void {
    if (input.defaultExecutionMode !== undefined) {
      draft.defaultExecutionMode = oneOf(input.defaultExecutionMode, EXECUTION_MODES, 'defaultExecutionMode')
    }
    const pool = input.defaultAgentPoolId
    if (draft.defaultExecutionMode !== 'agent') {
      if (pool !== undefined && pool !== null) {
        // HCP's words for HCP's rule (go-tfe's tests look for them).
        throw new InvalidInputError("Default agent pool must not be specified unless using 'agent' execution mode", 'defaultAgentPoolId')
      }
      draft.defaultAgentPoolId = null
      return
    }
    if (pool !== undefined) draft.defaultAgentPoolId = pool
    if (!draft.defaultAgentPoolId) {
      throw new InvalidInputError("Default agent pool must be specified when using 'agent' execution mode", 'defaultAgentPoolId')
    }
  }
}

function contains(value: string, search: string): boolean {
  return value.toLowerCase().includes(search.toLowerCase())
}

function minutes(value: number | null, attribute: string): number | null {
  if (value !== null && (!Number.isSafeInteger(value) || value < 1)) {
    throw new InvalidInputError('Session lengths are whole numbers of minutes, at least 1.', attribute)
  }
  return value
}

function oneOf<T extends string>(value: string, allowed: readonly T[], attribute: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new InvalidInputError(`"${value}" is not one of ${allowed.map((a) => `"${a}"`).join(', ')}.`, attribute)
  }
  return value as T
}

function nameTaken(error: unknown, name: string): unknown {
  if (error instanceof UniqueConstraintError && error.index === ORGANIZATION_NAME) {
    return new InvalidInputError(`An organization named "${name}" already exists.`, 'name', [], 'name-taken')
  }
  return error
}

/** An organization as the audit trail names it: HCP's id for an organization is its name. */
export function organizationResource(org: OrganizationRecord): AuditResource {
  return { type: 'organization', id: org.name, name: org.name }
}
