import type { AuthenticationTokenRecord, OrganizationRecord } from '../../store/records.js'
import { UniqueConstraintError } from '../../store/errors.js'
import type { Store } from '../../store/port.js'
import { accountOf, type Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { NotFoundError } from '../core/errors.js'
import { newId, now } from '../core/ids.js'
import type { OrganizationService } from './organizations.js'
import type { AuditResource, AuditTrailService } from './audit-trail.js'
import { hashToken, newToken, tokenExpiry } from '../core/tokens.js'

/**
 * HCP's two organization token types (`?token=` on its endpoint): the organization token, for
 * pipelines that publish, and the audit-trails token, which reads the audit trail alone.
 */
export type OrganizationTokenType = 'organization' | 'audit-trails'

export const ORGANIZATION_TOKEN_TYPES: readonly OrganizationTokenType[] = ['organization', 'audit-trails']

/** Where each type is kept in the organization's record. */
const FIELD = { organization: 'token', 'audit-trails': 'auditTrailsToken' } as const

/**
 * An organization's tokens (HCP's organization API token, and its audit-trails token): one of each
 * type per organization, each generated, read and deleted on its own (access.ts says what each may
 * do). As on HCP, the owners and the organization token manage them; generating one replaces the
 * previous one of its type at once, and never one of the other. Only their hashes are kept.
 */
export class OrganizationTokenService {
  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService,
    private readonly audit: AuditTrailService
  ) {}

  async generate(caller: Caller, orgName: string, expiredAt: string | null | undefined, type: OrganizationTokenType = 'organization'): Promise<{ org: OrganizationRecord; token: string; record: AuthenticationTokenRecord }> {
    const org = await this.organizations.forChange(caller, orgName, 'manage organization token', 'create', tokenResource(orgName, type, orgName))
    const token = newToken()
    const record: AuthenticationTokenRecord = { id: newId('at'), hash: hashToken(token), createdAt: now(), description: null, expiredAt: tokenExpiry(expiredAt), createdBy: accountOf(caller, org).id }
    try {
      const { record: updated } = await this.store.organizations.update(org.id, (draft) => {
        draft[FIELD[type]] = record
      })
      await this.audit.done({ author: caller, permission: 'manage organization token', org: updated, action: 'create', resource: tokenResource(updated.name, type, record.id) })
      return { org: updated, token, record }
    } catch (error) {
      // 256 random bits cannot collide; should they, the caller may simply try again.
      if (error instanceof UniqueConstraintError) throw new Error('token collision, try again', { cause: error })
      throw error
    }
  }

  /** The token's description (never the token itself); 404 when the organization has none. */
  async read(caller: Caller, orgName: string, type: OrganizationTokenType = 'organization'): Promise<{ org: OrganizationRecord; record: AuthenticationTokenRecord }> {
    const org = await this.manageable(caller, orgName)
    const record = org[FIELD[type]]
    if (!record) throw new NotFoundError(`organization "${orgName}" has no ${type} token`)
    return { org, record }
  }

  async delete(caller: Caller, orgName: string, type: OrganizationTokenType = 'organization'): Promise<void> {
    const org = await this.organizations.forChange(caller, orgName, 'manage organization token', 'destroy', tokenResource(orgName, type, orgName))
    const record = org[FIELD[type]]
    if (!record) throw new NotFoundError(`organization "${orgName}" has no ${type} token`)
    await this.store.organizations.update(org.id, (draft) => {
      draft[FIELD[type]] = null
    })
    await this.audit.done({ author: caller, permission: 'manage organization token', org, action: 'destroy', resource: tokenResource(org.name, type, record.id) })
  }

  private async manageable(caller: Caller, orgName: string): Promise<OrganizationRecord> {
    const org = await this.organizations.read(caller, orgName)
    if (!authorize(caller, 'manage organization token', org)) throw new NotFoundError(`organization "${orgName}" not found`)
    return org
  }
}

function tokenResource(orgName: string, type: OrganizationTokenType, id: string): AuditResource {
  return { type: 'authentication-token', id, name: `the ${type} token of ${orgName}` }
}
