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
    /** As `GET /api/v2/account/details` answers for the token (`user-team…`), or the kind of credential where there was none. */
    accessor_id: string
    /** The username `account/details` answers (`api-team_publishers`, `site-admin`), or what the credential was. */
    description: string
    /** HCP's `Client`; Homeport adds what kind of credential it was. */
    type: 'Client'
    credential: 'site-admin' | 'team' | 'user' | 'organization-token' | 'link' | 'anonymous' | 'system'
    impersonator_id: null
    organization_id: string | null
  }
  /** The request that made the change (HCP's `id`, and where it came from), or null for Homeport's command line. */
  request: { id: string; ip: string } | null
  resource: {
    /** The API id (`modver-…`, `team-…`; an organization's name). */
    id: string
    /** Singular, as HCP names it: `registry-module-version`, `team`, `authentication-token`… */
    type: string
    action: string
    meta: {
      /** The resource's name for people: `acme/network/aws 1.0.0`. */
      name: string
      /** The authorization table's action it was done, or refused, under: `publish module`. */
      permission: string
      /** Refused: the caller was not allowed, and nothing changed. */
      outcome: 'done' | 'refused'
    }
  }
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
