import type { Writable } from 'node:stream'
import type { Store } from '../../store/port.js'
import type { Caller } from '../core/access.js'
import { authorize } from '../core/authorize.js'
import { ForbiddenError, NotFoundError } from '../core/errors.js'
import type { AuditTrailService } from './audit-trail.js'

/** Installation-wide settings and operations, for the site admin only (anyone else: 404). */
export class SiteService {
  constructor(
    private readonly store: Store,
    private readonly audit: AuditTrailService
  ) {}

  /** The site-level switch that self-hosted organizations need before enabling cost estimation. */
  costEstimation(caller: Caller): boolean {
    requireSiteAdmin(caller, 'no such setting')
    return this.store.installation().costEstimationEnabled
  }

  async setCostEstimation(caller: Caller, enabled: boolean | undefined): Promise<boolean> {
    const change = { permission: 'manage site settings', org: undefined, action: 'update', resource: { type: 'site-setting', id: 'cost-estimation', name: 'cost estimation' } } as const
    await this.audit.check(caller, change, () => new NotFoundError('no such setting', false))
    if (enabled === undefined) return this.store.installation().costEstimationEnabled
    const { costEstimationEnabled } = await this.store.updateInstallation((draft) => {
      draft.costEstimationEnabled = enabled
    })
    await this.audit.done({ ...change, author: caller })
    return costEstimationEnabled
  }

  /** A consistent backup of everything, written to `destination` while the server runs. */
  backup(caller: Caller, destination: Writable): Promise<void> {
    requireSiteAdmin(caller, 'Only a site admin can take a backup')
    if (this.store.backupRefusal) throw new ForbiddenError(this.store.backupRefusal)
    return this.store.backup(destination)
  }
}

function requireSiteAdmin(caller: Caller, message: string): void {
  if (!authorize(caller, 'manage site settings')) throw new NotFoundError(message, false)
}
