import { queryOptions, useMutation } from '@tanstack/react-query'
import type { ServerInfo } from '@shared/server-info'
import type { Document } from '@shared/wire/jsonapi'
import type { OAuthAuthorizationAttributes } from '@shared/wire/organizations'
import type { ApiClient } from '../../lib/api-client'

export function serverInfoOptions(client: ApiClient) {
  return queryOptions({
    queryKey: ['server-info'],
    queryFn: () => client.getAbsolute<ServerInfo>('/api/homeport/v1/server-info'),
    staleTime: Infinity
  })
}

/** What the signed-in user approves of a `terraform login`: Terraform's request (its query) and the token's team and end. */
export interface LoginApproval {
  request: URLSearchParams
  organization: string
  teamId: string
  expiredAt: string | null
}

/** Approves a `terraform login`; resolves with where the browser goes next: Terraform's listener, with a one-time code. */
export function useApproveLogin(client: ApiClient) {
  return useMutation({
    mutationFn: ({ request, organization, teamId, expiredAt }: LoginApproval) =>
      client
        .request<Document<OAuthAuthorizationAttributes>>('POST', '/oauth-authorizations', {
          data: {
            type: 'oauth-authorizations',
            attributes: {
              'client-id': request.get('client_id'),
              'redirect-uri': request.get('redirect_uri'),
              'code-challenge': request.get('code_challenge'),
              'code-challenge-method': request.get('code_challenge_method'),
              state: request.get('state'),
              organization,
              'team-id': teamId,
              'expired-at': expiredAt
            }
          }
        })
        .then((document) => document.data.attributes['redirect-url'])
  })
}
