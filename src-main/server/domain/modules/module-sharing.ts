import type { OrganizationRecord } from '../../store/records.js'
import type { Store } from '../../store/port.js'
import type { Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import type { Edition } from '../organizations/edition.js'
import { InvalidInputError, NotFoundError } from '../core/errors.js'
import type { OrganizationService } from '../organizations/organizations.js'
import type { AuditTrailService } from '../organizations/audit-trail.js'

/**
 * Terraform Enterprise's module sharing (self-hosted edition): a site admin names the
 * organizations (consumers) that may use an organization's private modules; from a consumer's
 * side, those organizations are its module producers.
 */
export class ModuleSharingService {
  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService,
    private readonly edition: Edition,
    private readonly audit: AuditTrailService
  ) {}

  /** The organizations whose private modules `orgName` may use. */
  async producers(caller: Caller, orgName: string): Promise<OrganizationRecord[]> {
    const org = await this.readSelfHosted(caller, orgName)
    const all = await this.store.organizations.all()
    return all.filter((producer) => producer.moduleConsumerIds.includes(org.id)).sort(byName)
  }

  async consumers(caller: Caller, orgName: string): Promise<OrganizationRecord[]> {
    const org = await this.readAsAdmin(caller, orgName)
    const consumers = await Promise.all(org.moduleConsumerIds.map((id) => this.store.organizations.get(id)))
    return consumers.filter((consumer) => consumer !== undefined).sort(byName)
  }

  /** Replaces the consumers of `orgName` with the named organizations. */
  async setConsumers(caller: Caller, orgName: string, consumerNames: string[]): Promise<OrganizationRecord[]> {
    if (this.edition !== 'self-hosted') throw new NotFoundError('module sharing exists in the self-hosted edition only')
    const org = await this.organizations.named(orgName)
    if (!org) throw new NotFoundError(`organization "${orgName}" not found`)
    const change = { permission: 'share modules between organizations', org, action: 'update', resource: { type: 'module-sharing', id: org.name, name: `the organizations that use ${org.name}'s modules` } } as const
    await this.audit.check(caller, change, () => new NotFoundError(`organization "${orgName}" not found`))
    const consumers: OrganizationRecord[] = []
    for (const [index, name] of consumerNames.entries()) {
      const consumer = await this.organizations.read(caller, name).catch(() => undefined)
      if (!consumer) throw new InvalidInputError(`There is no organization named "${name}".`, `/data/${index}/id`)
      if (consumer.id === org.id) {
        throw new InvalidInputError('An organization always uses its own modules.', `/data/${index}/id`)
      }
      if (!consumers.some((known) => known.id === consumer.id)) consumers.push(consumer)
    }
    await this.store.organizations.update(org.id, (draft) => {
      draft.moduleConsumerIds = consumers.map((consumer) => consumer.id)
    })
    await this.audit.done({ ...change, author: caller })
    return consumers.sort(byName)
  }

  /** Whether callers of `consumer` may read the private modules of `producer`. */
  shares(producer: OrganizationRecord, consumer: OrganizationRecord): boolean {
    return this.edition === 'self-hosted' && producer.moduleConsumerIds.includes(consumer.id)
  }

  private async readSelfHosted(caller: Caller, orgName: string): Promise<OrganizationRecord> {
    if (this.edition !== 'self-hosted') throw new NotFoundError('module sharing exists in the self-hosted edition only')
    return this.organizations.read(caller, orgName)
  }

  private async readAsAdmin(caller: Caller, orgName: string): Promise<OrganizationRecord> {
    const org = await this.readSelfHosted(caller, orgName)
    if (!authorize(caller, 'share modules between organizations')) throw new NotFoundError(`organization "${orgName}" not found`)
    return org
  }
}

function byName(a: OrganizationRecord, b: OrganizationRecord): number {
  return a.name.localeCompare(b.name)
}
