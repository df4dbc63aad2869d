import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import type { Document, ListDocument } from '@shared/wire/jsonapi'
import type { GatePolicyAttributes, GateRequestAttributes, GateVersionAttributes } from '@shared/wire/gate'
import type { AuditTrailPage } from '@shared/wire/audit-trail'

export type { GatePolicyAttributes, GateRequestAttributes, GateRuleAttributes, GateVersionAttributes } from '@shared/wire/gate'

/** A verdict in words, for every page that shows one. */
const GATE_VERDICTS: Record<GateVersionAttributes['verdict'], string> = {
  offered: 'offered',
  cooldown: 'in cooldown',
  blocked: 'blocked',
  'not-allowed': 'not on the allow list',
  'awaiting-approval': 'waiting for approval',
  denied: 'denied'
}

/** How a version's verdict is shown: its badge's tone and words (offered; held, and how; or offered where report-only would hold it). */
export function verdictBadge(verdict: Pick<GateVersionAttributes, 'offered' | 'reported' | 'verdict' | 'waived'>): { tone: string; words: string } {
  if (verdict.reported) return { tone: 'info', words: `offered; would be ${GATE_VERDICTS[verdict.verdict]}` }
  if (verdict.offered) return { tone: 'good', words: verdict.waived ? 'offered (waived)' : 'offered' }
  return { tone: verdict.verdict === 'cooldown' || verdict.verdict === 'awaiting-approval' ? 'warn' : 'bad', words: GATE_VERDICTS[verdict.verdict] }
}

/** Whose gate: the installation's (undefined) or an organization's. */
export type GateScope = string | undefined

const base = (scope: GateScope) => (scope === undefined ? '/admin/gate' : `/organizations/${encodeURIComponent(scope)}/gate`)
const gateKeys = {
  all: ['gate'] as const,
  scope: (scope: GateScope) => ['gate', scope ?? ''] as const
}

export function gatePolicyOptions(client: ApiClient, scope: GateScope) {
  return queryOptions({ queryKey: [...gateKeys.scope(scope), 'policy'] as const, queryFn: () => client.get<Document<GatePolicyAttributes>>(`${base(scope)}/policy`) })
}

/** The scope's queue, newest first. Only those who decide it may read it: anyone else is told no, once. */
export function gateRequestsOptions(client: ApiClient, scope: GateScope) {
  return queryOptions({ queryKey: [...gateKeys.scope(scope), 'requests'] as const, queryFn: () => client.get<ListDocument<GateRequestAttributes>>(`${base(scope)}/requests`), retry: false })
}

/** How the scope's gate treats a package's versions: every one it has seen, and the named ones. */
export function gateVersionsOptions(client: ApiClient, scope: GateScope, kind: 'provider' | 'module', pkg: string, versions?: string[]) {
  const query = new URLSearchParams({ kind, package: pkg })
  if (versions) query.set('versions', versions.join(','))
  return queryOptions({
    queryKey: [...gateKeys.scope(scope), 'versions', kind, pkg, versions?.join(',') ?? ''] as const,
    queryFn: () => client.get<ListDocument<GateVersionAttributes>>(`${base(scope)}/versions?${query.toString()}`)
  })
}

/** Every change to a gate changes what every list offers: everything the gate shows is read again. */
function useGateMutation<T>(client: ApiClient, request: (input: T) => Promise<unknown>) {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn: request, onSuccess: () => queryClient.invalidateQueries({ queryKey: gateKeys.all }) })
}

export interface PolicySettings {
  cooldown: string
  'allow-only': boolean
  approvals: boolean
  'report-only': boolean
}

export function useUpdatePolicy(client: ApiClient, scope: GateScope) {
  return useGateMutation(client, (settings: Partial<PolicySettings>) => client.request('PATCH', `${base(scope)}/policy`, { data: { type: 'gate-policies', attributes: settings } }))
}

export function useAddRule(client: ApiClient, scope: GateScope) {
  return useGateMutation(client, (rule: { effect: string; pattern: string; versions: string; reason: string }) =>
    client.request('POST', `${base(scope)}/policy/rules`, { data: { type: 'gate-rules', attributes: rule } })
  )
}

export function useRemoveRule(client: ApiClient, scope: GateScope) {
  return useGateMutation(client, (id: string) => client.request('DELETE', `${base(scope)}/policy/rules/${encodeURIComponent(id)}`))
}

export function useDecideRequest(client: ApiClient, scope: GateScope) {
  return useGateMutation(client, ({ id, status, reason }: { id: string; status: 'approved' | 'denied'; reason: string }) =>
    client.request('PATCH', `${base(scope)}/requests/${encodeURIComponent(id)}`, { data: { type: 'gate-requests', attributes: { status, reason } } })
  )
}

/**
 * The gate's recent decisions in the scope, from its audit trail (`upstream-version` events: held,
 * blocked, waived, and what a report-only policy would have held), newest first. The installation's is
 * the site admin's to read, an organization's its owners'.
 */
export function gateDecisionsOptions(client: ApiClient, scope: GateScope) {
  const path = scope === undefined ? '/admin/audit-trail' : `/organizations/${encodeURIComponent(scope)}/audit-trail`
  return queryOptions({
    queryKey: [...gateKeys.scope(scope), 'decisions'] as const,
    queryFn: () => client.get<AuditTrailPage>(`${path}?filter[type]=upstream-version&page[size]=50`),
    retry: false
  })
}
