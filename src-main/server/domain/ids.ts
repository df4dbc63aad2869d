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
