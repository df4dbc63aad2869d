import type { Context } from 'koa'
import { readResource } from '../../../http/jsonapi.js'
import type { AuthenticationTokenRecord } from '../../../store/records.js'
import type { Resource } from '../../../../shared/wire/jsonapi.js'
import type { TokenAttributes } from '../../../../shared/wire/organizations.js'

/** The optional body of a token's creation: `description` (team tokens) and `expired-at`. */
export function tokenInput(ctx: Context): { description: string | null; expiredAt: string | null } {
  if (!ctx.request.body || Object.keys(ctx.request.body).length === 0) return { description: null, expiredAt: null }
  const attributes = readResource(ctx, 'authentication-tokens', { typeMayBeEmpty: true }).attributes
  return { description: attributes.nullableString('description') ?? null, expiredAt: attributes.nullableString('expired-at') ?? null }
}

/** An `authentication-tokens` resource; the token's text only when just made (it is shown that once and never kept). */
export function tokenResource(record: AuthenticationTokenRecord, relationships: Record<string, unknown>, token?: string): Resource<TokenAttributes, 'authentication-tokens'> {
  return {
    id: record.id,
    type: 'authentication-tokens',
    attributes: {
      'created-at': record.createdAt,
      description: record.description,
      ...(token ? { token } : {}),
      'expired-at': record.expiredAt
    },
    // HCP's created-by names a user: here the account of the caller that made it (as account/details names it).
    relationships: record.createdBy ? { ...relationships, 'created-by': { data: { id: record.createdBy, type: 'users' } } } : relationships
  }
}
