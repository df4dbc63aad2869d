import type { DataRetentionPolicy, OrganizationRecord } from '../../store/records.js'
import type { Store } from '../../store/port.js'
import { type Caller } from '../core/access.js'
import type { Edition } from './edition.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import type { OrganizationService } from './organizations.js'
import type { AuditResource, AuditTrailService } from './audit-trail.js'

export type DataRetentionInput = { kind: 'delete-older'; deleteOlderThanNDays: number } | { kind: 'dont-delete' }

export interface EffectivePolicy {
  policy: DataRetentionPolicy
  /** False when the organization sets none and inherits the installation default. */
  explicit: boolean
}

/**
 * Terraform Enterprise's data retention policies (self-hosted edition). Homeport records the
 * policy and reports it; it keeps no runs, plans or state versions, the data such a policy
 * prunes, so there is nothing for it to delete yet.
 */
export class DataRetentionService {
  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService,
    private readonly edition: Edition,
    private readonly audit: AuditTrailService
  ) {}

  async read(caller: Caller, orgName: string): Promise<EffectivePolicy> {
    return effectivePolicy(await this.readSelfHosted(caller, orgName), this.store)
  }

  async set(caller: Caller, orgName: string, input: DataRetentionInput): Promise<EffectivePolicy> {
    const org = await this.readAsOwner(caller, orgName, 'update')
    if (input.kind === 'delete-older') {
      const days = input.deleteOlderThanNDays
      if (!Number.isSafeInteger(days) || days < 1) {
        throw new InvalidInputError('delete-older-than-n-days is a whole number of days, at least 1.', 'deleteOlderThanNDays')
      }
    }
    const policy: DataRetentionPolicy = { ...input, id: newId('drp'), createdAt: now() }
    const { record } = await this.store.organizations.update(org.id, (draft) => {
      draft.dataRetentionPolicy = policy
    })
    await this.audit.done({ author: caller, permission: 'manage data retention', org, action: 'update', resource: policyResource(orgName) })
    return effectivePolicy(record, this.store)
  }

  async delete(caller: Caller, orgName: string): Promise<void> {
    const org = await this.readAsOwner(caller, orgName, 'destroy')
    await this.store.organizations.update(org.id, (draft) => {
      draft.dataRetentionPolicy = null
    })
    await this.audit.done({ author: caller, permission: 'manage data retention', org, action: 'destroy', resource: policyResource(orgName) })
  }

  private async readSelfHosted(caller: Caller, orgName: string): Promise<OrganizationRecord> {
    if (this.edition !== 'self-hosted') {
      throw new NotFoundError('data retention policies exist in the self-hosted edition only')
    }
    return this.organizations.read(caller, orgName)
  }

  private async readAsOwner(caller: Caller, orgName: string, action: string): Promise<OrganizationRecord> {
    if (this.edition !== 'self-hosted') throw new NotFoundError('data retention policies exist in the self-hosted edition only')
    return this.organizations.forChange(caller, orgName, 'manage data retention', action, policyResource(orgName))
  }
}

function effectivePolicy(org: OrganizationRecord, store: Store): EffectivePolicy {
  if (org.dataRetentionPolicy) return { policy: org.dataRetentionPolicy, explicit: true }
  return { policy: store.installation().defaultDataRetentionPolicy, explicit: false }
}

function policyResource(orgName: string): AuditResource {
  return { type: 'data-retention-policy', id: orgName, name: `the data retention policy of ${orgName}` }
}
