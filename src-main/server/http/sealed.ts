import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/**
 * A value the browser keeps for the server and cannot read or change: AES-256-GCM under a key derived
 * from the installation's signing key and the purpose, with its expiry inside. Every replica shares the
 * signing key (the store's installation record), so whichever one the browser comes back to opens it.
 */
export function seal(signingKey: string, purpose: string, value: unknown, expiresAt: number): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyFor(signingKey, purpose), iv)
  const body = Buffer.concat([cipher.update(JSON.stringify({ value, expiresAt }), 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

/** What `seal` sealed for this purpose, while it has not expired; undefined for anything else. */
export function unseal(signingKey: string, purpose: string, sealed: string, now: number): unknown {
  const bytes = Buffer.from(sealed, 'base64url')
  if (bytes.length < 29) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(signingKey, purpose), bytes.subarray(0, 12))
    decipher.setAuthTag(bytes.subarray(12, 28))
    const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
    const { value, expiresAt } = JSON.parse(text) as { value: unknown; expiresAt: number }
    return typeof expiresAt === 'number' && expiresAt > now ? value : undefined
  } catch {
    return undefined
  }
}

function keyFor(signingKey: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', signingKey, 'homeport sealed', purpose, 32))
}
