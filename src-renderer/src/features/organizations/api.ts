import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { ApiError, type ApiClient } from '../../lib/api-client'
import type { Document, ListDocument } from '../../lib/jsonapi'

export interface OrganizationAttributes {
  name: string
  email: string
  'created-at': string
  'external-id': string
  'session-timeout': number | null
  'session-remember': number | null
  'collaborator-auth-policy': string
  'cost-estimation-enabled': boolean
  'send-passing-statuses-for-untriggered-speculative-plans': boolean
  'aggregated-commit-status-enabled': boolean
  'speculative-plan-management-enabled': boolean
  'owners-team-saml-role-id': string | null
  'assessments-enforced'?: boolean
  'allow-force-delete-workspaces': boolean
  'default-execution-mode': string
  permissions: Record<string, boolean>
}

export interface TeamAttributes {
  name: string
  'created-at': string
  'organization-access': { 'manage-modules': boolean }
  permissions: Record<string, boolean>
}

export const organizationKeys = {
  all: ['organizations'] as const,
  list: (search: string) => ['organizations', 'list', search] as const,
  detail: (name: string) => ['organizations', 'detail', name] as const,
  entitlements: (name: string) => ['organizations', 'detail', name, 'entitlements'] as const,
  teams: (name: string) => ['organizations', 'detail', name, 'teams'] as const,
  token: (name: string) => ['organizations', 'detail', name, 'token'] as const
}

export function organizationListOptions(client: ApiClient, search: string) {
  const query = search ? `?q=${encodeURIComponent(search)}` : ''
  return queryOptions({
    queryKey: organizationKeys.list(search),
    queryFn: () => client.get<ListDocument<OrganizationAttributes>>(`/organizations${query}`)
  })
}

export function organizationOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: organizationKeys.detail(name),
    queryFn: () => client.get<Document<OrganizationAttributes>>(`/organizations/${encodeURIComponent(name)}`)
  })
}

export function entitlementOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: organizationKeys.entitlements(name),
    queryFn: () => client.get<Document<Record<string, boolean | number | null>>>(`/organizations/${encodeURIComponent(name)}/entitlement-set`)
  })
}

export function teamsOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: organizationKeys.teams(name),
    queryFn: () => client.get<ListDocument<TeamAttributes>>(`/organizations/${encodeURIComponent(name)}/teams?page[size]=100`)
  })
}

export function useCreateOrganization(client: ApiClient) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { name: string; email: string }) =>
      client.request<Document<OrganizationAttributes>>('POST', '/organizations', {
        data: { type: 'organizations', attributes: input }
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.all })
  })
}

export function useUpdateOrganization(client: ApiClient, name: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (attributes: Partial<OrganizationAttributes> & Record<string, unknown>) =>
      client.request<Document<OrganizationAttributes>>('PATCH', `/organizations/${encodeURIComponent(name)}`, {
        data: { type: 'organizations', attributes }
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.all })
  })
}

export function useDeleteOrganization(client: ApiClient, name: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => client.request<void>('DELETE', `/organizations/${encodeURIComponent(name)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.all })
  })
}

export function useCreateTeam(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { name: string; manageModules: boolean }) =>
      client.request<Document<TeamAttributes>>('POST', `/organizations/${encodeURIComponent(org)}/teams`, {
        data: { type: 'teams', attributes: { name: input.name, 'organization-access': { 'manage-modules': input.manageModules } } }
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.teams(org) })
  })
}

export function useDeleteTeam(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (teamId: string) => client.request<void>('DELETE', `/teams/${encodeURIComponent(teamId)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.teams(org) })
  })
}

/** Gives a team *Manage modules*, or takes it away (owners). */
export function useUpdateTeamAccess(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ teamId, manageModules }: { teamId: string; manageModules: boolean }) =>
      client.request<Document<TeamAttributes>>('PATCH', `/teams/${encodeURIComponent(teamId)}`, {
        data: { type: 'teams', attributes: { 'organization-access': { 'manage-modules': manageModules } } }
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.teams(org) })
  })
}

/** Creates (or replaces) a team's token; the answer is the only time the token is shown. */
export function useCreateTeamToken(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (teamId: string) =>
      client.request<Document<{ token: string }>>('POST', `/teams/${encodeURIComponent(teamId)}/authentication-token`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.teams(org) })
  })
}

export interface TokenAttributes {
  'created-at': string
  'expired-at': string | null
  description: string | null
  /** Only in the answer that made it. */
  token?: string
}

/** The organization token's description, or null when the organization has none. */
export function organizationTokenOptions(client: ApiClient, org: string) {
  return queryOptions({
    queryKey: organizationKeys.token(org),
    queryFn: () =>
      client.get<Document<TokenAttributes>>(`/organizations/${encodeURIComponent(org)}/authentication-token`).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null
        throw error
      })
  })
}

/** Generates (or replaces) the organization token, with an optional expiry; the answer is the only time it is shown. */
export function useGenerateOrganizationToken(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (expiredAt: string | null) =>
      client.request<Document<TokenAttributes>>('POST', `/organizations/${encodeURIComponent(org)}/authentication-token`, {
        data: { type: 'authentication-tokens', attributes: { 'expired-at': expiredAt } }
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.token(org) })
  })
}

export function useDeleteOrganizationToken(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => client.request<void>('DELETE', `/organizations/${encodeURIComponent(org)}/authentication-token`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.token(org) })
  })
}

/** Who the signed-in token is (HCP's account details): the site admin, or a team's or organization's service account. */
export function accountOptions(client: ApiClient) {
  return queryOptions({
    queryKey: ['account', client.token.slice(0, 12)] as const,
    queryFn: () => client.get<Document<{ username: string; 'is-site-admin': boolean; 'is-service-account': boolean }>>('/account/details')
  })
}
