import { createHash, timingSafeEqual } from 'node:crypto'
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
