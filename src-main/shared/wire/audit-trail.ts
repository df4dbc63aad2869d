/**
 * The audit trail's answers: HCP Terraform's audit-trails format (`GET /organization/audit-trail`,
 * which is not JSON:API), served the same for an organization's owners and for the GUI.
 */

export interface AuditTrailEvent {
  id: string
  /** HCP's schema version of an event. */
  version: '0'
  type: 'Resource'
  timestamp: string
  auth: {
    /** The team's id, the organization's for its tokens, or `site-admin` / `link`. */
    accessor_id: string
    description: string
    /** HCP's `Client`; Homeport adds what kind of credential it was. */
    type: 'Client'
    credential: 'site-admin' | 'team' | 'organization-token' | 'link' | 'system'
    impersonator_id: null
    organization_id: string | null
  }
  request: { id: string; method: string; path: string; ip: string; status: number }
  resource: { id: string; type: string; action: string; meta: null }
}

export interface AuditTrailPage {
  data: AuditTrailEvent[]
  pagination: {
    current_page: number
    prev_page: number | null
    next_page: number | null
    total_pages: number
    total_count: number
  }
}
