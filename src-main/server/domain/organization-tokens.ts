import type { AuthenticationTokenRecord, OrganizationRecord } from '../store/records.js'
import { UniqueConstraintError } from '../store/errors.js'
import type { Store } from '../store/store.js'
import { isOrganizationToken, isOwner, type Caller } from './access.js'
import { NotFoundError } from './errors.js'
import { newId, now } from './ids.js'
import type { OrganizationService } from './organizations.js'
import { hashToken, newToken, tokenExpiry } from './tokens.js'

/**
 * The organization token (HCP's organization API token): one per organization, for pipelines that
 * publish modules and providers (access.ts says what it may do). As on HCP, the owners and the token
 * itself manage it; generating one replaces the previous one at once. Only its hash is kept.
 */
export class OrganizationTokenService {
  constructor(
    private readonly store: Store,
    private readonly organizations: OrganizationService
  ) {}

  async generate(caller: Caller, orgName: string, expiredAt: string | null | undefined): Promise<{ org: OrganizationRecord; token: string; record: AuthenticationTokenRecord }> {
    const org = await this.manageable(caller, orgName)
    const token = newToken()
    const record: AuthenticationTokenRecord = { id: newId('at'), hash: hashToken(token), createdAt: now(), description: null, expiredAt: tokenExpiry(expiredAt) }
    try {
      const { record: updated } = await this.store.organizations.update(org.id, (draft) => {
        draft.token = record
      })
      return { org: updated, token, record }
    } catch (error) {
      // 256 random bits cannot collide; should they, the caller may simply try again.
      if (error instanceof UniqueConstraintError) throw new Error('token collision, try again', { cause: error })
      throw error
    }
  }

  /** The token's description (never the token itself); 404 when the organization has none. */
  async read(caller: Caller, orgName: string): Promise<{ org: OrganizationRecord; record: AuthenticationTokenRecord }> {
    const org = await this.manageable(caller, orgName)
    if (!org.token) throw new NotFoundError(`organization "${orgName}" has no organization token`)
    return { org, record: org.token }
  }

  async delete(caller: Caller, orgName: string): Promise<void> {
    const { org } = await this.read(caller, orgName)
    await this.store.organizations.update(org.id, (draft) => {
      draft.token = null
    })
  }

  private async manageable(caller: Caller, orgName: string): Promise<OrganizationRecord> {
    const org = await this.organizations.read(caller, orgName)
    if (!isOwner(caller, org) && !isOrganizationToken(caller, org)) throw new NotFoundError(`organization "${orgName}" not found`)
    return org
  }
}
