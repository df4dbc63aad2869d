import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import type { AuditTrailPage } from '@shared/wire/audit-trail'

export type { AuditTrailEvent } from '@shared/wire/audit-trail'

/** What the trail is narrowed to: an action, a kind of resource, words in who or what. */
export interface AuditFilters {
  action: string
  type: string
  q: string
}

export const AUDIT_PAGE_SIZE = 50

export const auditKeys = {
  all: ['audit-trail'] as const,
  page: (org: string, filters: AuditFilters, page: number) => ['audit-trail', org, filters, page] as const
}

/** A page of an organization's audit trail, newest first (owners and the site admin). */
export function auditTrailOptions(client: ApiClient, org: string, filters: AuditFilters, page: number) {
  const query = new URLSearchParams({ 'page[size]': String(AUDIT_PAGE_SIZE), 'page[number]': String(page) })
  if (filters.action) query.set('filter[action]', filters.action)
  if (filters.type) query.set('filter[type]', filters.type)
  if (filters.q) query.set('q', filters.q)
  return queryOptions({
    queryKey: auditKeys.page(org, filters, page),
    queryFn: () => client.get<AuditTrailPage>(`/organizations/${encodeURIComponent(org)}/audit-trail?${query.toString()}`),
    // The page shown stays while the next loads: moving through pages does not jump.
    placeholderData: keepPreviousData
  })
}

interface RetentionDocument {
  data: { id: string; type: 'audit-trail-settings'; attributes: { 'retention-days': number | null } }
}

export function retentionOptions(client: ApiClient) {
  return queryOptions({
    queryKey: [...auditKeys.all, 'retention'] as const,
    queryFn: () => client.get<RetentionDocument>('/admin/audit-trail-settings'),
    // Only the site admin has the setting; anyone else is told no, once.
    retry: false
  })
}

export function useSetRetention(client: ApiClient) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (days: number | null) => client.request<RetentionDocument>('PATCH', '/admin/audit-trail-settings', { data: { type: 'audit-trail-settings', attributes: { 'retention-days': days } } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: auditKeys.all })
  })
}
