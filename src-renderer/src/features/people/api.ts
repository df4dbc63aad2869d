import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { ApiClient } from '../../lib/api-client'
import type { Document, ListDocument } from '@shared/wire/jsonapi'
import type { PersonTeamAttributes, TokenAttributes } from '@shared/wire/organizations'

const peopleKeys = {
  teams: ['account', 'teams'] as const,
  tokens: (userId: string) => ['account', 'tokens', userId] as const
}

/** The teams the person's groups made them a member of, at their last sign-in. */
export function accountTeamsOptions(client: ApiClient) {
  return queryOptions({ queryKey: peopleKeys.teams, queryFn: () => client.get<ListDocument<PersonTeamAttributes>>('/account/teams') })
}

/** The person's own API tokens (HCP's user tokens). */
export function userTokensOptions(client: ApiClient, userId: string) {
  return queryOptions({
    queryKey: peopleKeys.tokens(userId),
    queryFn: () => client.get<ListDocument<TokenAttributes>>(`/users/${encodeURIComponent(userId)}/authentication-tokens`)
  })
}

/** Makes a token of the person's; resolves with the token, shown this once. */
export function useCreateUserToken(client: ApiClient, userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ description, expiredAt }: { description: string; expiredAt: string | null }) =>
      client
        .request<Document<TokenAttributes>>('POST', `/users/${encodeURIComponent(userId)}/authentication-tokens`, {
          data: { type: 'authentication-tokens', attributes: { description: description || null, 'expired-at': expiredAt } }
        })
        .then((document) => document.data.attributes.token ?? ''),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: peopleKeys.tokens(userId) })
  })
}

export function useDeleteUserToken(client: ApiClient, userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (tokenId: string) => client.request<void>('DELETE', `/authentication-tokens/${encodeURIComponent(tokenId)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: peopleKeys.tokens(userId) })
  })
}
