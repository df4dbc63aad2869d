import { randomBytes, randomInt } from 'node:crypto'

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz123456789'

/** An opaque id in HCP Terraform's style (`org-…`, `team-…`): 16 base58 characters, ~93 bits. */
export function newId(prefix: string): string {
  let id = ''
  for (let i = 0; i < 16; i++) id += ALPHABET[randomInt(ALPHABET.length)]
  return `${prefix}-${id}`
}

/** 256 bits of randomness, URL-safe. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url')
}

export function now(): string {
  return new Date().toISOString()
}

/**
 * Now, with microseconds (`2026-11-22T10:00:00.123456Z`), as the registry protocol's
 * `published_at` has it.
 */
export function nowWithMicroseconds(): string {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000)
  const iso = new Date(Math.floor(micros / 1000)).toISOString()
  return `${iso.slice(0, 23)}${String(micros % 1000).padStart(3, '0')}Z`
}
