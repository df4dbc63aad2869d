import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { ApiError, type ApiClient } from '../../lib/api-client'
import type { Document, ListDocument } from '@shared/wire/jsonapi'
import type {
  AccountAttributes,
  CliTokenAttributes,
  EntitlementSetAttributes,
  OrganizationAttributes,
  TeamAttributes,
  TokenAttributes
} from '@shared/wire/organizations'

export type { OrganizationAttributes }

export const organizationKeys = {
  all: ['organizations'] as const,
  list: (search: string) => ['organizations', 'list', search] as const,
  detail: (name: string) => ['organizations', 'detail', name] as const,
  entitlements: (name: string) => ['organizations', 'detail', name, 'entitlements'] as const,
  teams: (name: string) => ['organizations', 'detail', name, 'teams'] as const,
  token: (name: string) => ['organizations', 'detail', name, 'token'] as const,
  cliTokens: (name: string) => ['organizations', 'detail', name, 'cli-tokens'] as const
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
    queryFn: () => client.get<Document<EntitlementSetAttributes>>(`/organizations/${encodeURIComponent(name)}/entitlement-set`)
  })
}

export function teamsOptions(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: organizationKeys.teams(name),
    queryFn: () => client.get<ListDocument<TeamAttributes>>(`/organizations/${encodeURIComponent(name)}/teams?page[size]=100`)
  })
}

export function createOrganization(client: ApiClient, input: { name: string; email: string }) {
  return client.request<Document<OrganizationAttributes>>('POST', '/organizations', { data: { type: 'organizations', attributes: input } })
}

export function useCreateOrganization(client: ApiClient) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { name: string; email: string }) => createOrganization(client, input),
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

/** The token a creation answered with: the only time it is sent, as it is never kept. */
function madeToken(document: Document<TokenAttributes>): string {
  const token = document.data.attributes.token
  if (!token) throw new Error('The token was made but not sent: replace it to get one.')
  return token
}

/** Creates (or replaces) a team's token; resolves with the token, shown this once. */
export function useCreateTeamToken(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (teamId: string) => client.request<Document<TokenAttributes>>('POST', `/teams/${encodeURIComponent(teamId)}/authentication-token`).then(madeToken),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.teams(org) })
  })
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

/** Generates (or replaces) the organization token, with an optional expiry; resolves with the token, shown this once. */
export function useGenerateOrganizationToken(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (expiredAt: string | null) =>
      client
        .request<Document<TokenAttributes>>('POST', `/organizations/${encodeURIComponent(org)}/authentication-token`, {
          data: { type: 'authentication-tokens', attributes: { 'expired-at': expiredAt } }
        })
        .then(madeToken),
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
    queryKey: ['account', client.token?.slice(0, 12) ?? 'session'] as const,
    queryFn: () => client.get<Document<AccountAttributes>>('/account/details')
  })
}

/** The tokens `terraform login` obtained in the organization: owners see all, a team its own. */
export function cliTokensOptions(client: ApiClient, org: string) {
  return queryOptions({
    queryKey: organizationKeys.cliTokens(org),
    queryFn: () => client.get<ListDocument<CliTokenAttributes>>(`/organizations/${encodeURIComponent(org)}/authentication-tokens`)
  })
}

/** Revokes a `terraform login` token at once. */
export function useRevokeCliToken(client: ApiClient, org: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => client.request<void>('DELETE', `/authentication-tokens/${encodeURIComponent(id)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationKeys.cliTokens(org) })
  })
}
