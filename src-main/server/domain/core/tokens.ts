import { createHash, timingSafeEqual } from 'node:crypto'
import { InvalidInputError } from './errors.js'
import { newSecret } from './ids.js'

/** A new API token; only its hash is ever stored. */
export function newToken(): string {
  return `hp1.${newSecret()}`
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

/** Compares two hex hashes without leaking, through timing, how much of them matched. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}

/** Whether a token is past its expiry (`expiredAt`, when it has one). */
export function hasExpired(token: { expiredAt: string | null }, now = Date.now()): boolean {
  return token.expiredAt !== null && Date.parse(token.expiredAt) <= now
}

/** A token's requested expiry (`expired-at`), checked: a time in the future, kept as ISO 8601; none is null. */
export function tokenExpiry(expiredAt: string | null | undefined, now = Date.now()): string | null {
  if (expiredAt === undefined || expiredAt === null) return null
  const at = /^\d{4}-\d{2}-\d{2}T/.test(expiredAt) ? Date.parse(expiredAt) : Number.NaN
  if (Number.isNaN(at)) throw new InvalidInputError(`expired-at "${expiredAt}" is not an ISO 8601 time (like 2027-01-31T12:00:00Z).`, 'expiredAt')
  if (at <= now) throw new InvalidInputError(`expired-at ${expiredAt} is in the past: a token must expire later.`, 'expiredAt')
  return new Date(at).toISOString()
}
