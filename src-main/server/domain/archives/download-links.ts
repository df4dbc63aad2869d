import { createHmac, timingSafeEqual } from 'node:crypto'

/** How long a download location stays valid: Terraform fetches it right after asking. */
export const DOWNLOAD_LINK_TTL_MS = 10 * 60 * 1000

/**
 * Terraform never sends its token to a download location, so the location carries its own
 * credential: `<id>.<expiry>.<HMAC>` under the installation's key, bound to the file the id's
 * record holds now (a module version's archive, a provider's sums, signature or zip). It goes in
 * the URL path, not the query, because go-getter rewrites queries.
 */
export function signDownload(signingKey: string, id: string, sha256: string, now = Date.now()): string {
  const expires = Math.floor((now + DOWNLOAD_LINK_TTL_MS) / 1000)
  return `${id}.${expires}.${signature(signingKey, id, sha256, expires)}`
}

export interface DownloadToken {
  /** A module version's id, or a provider file's (see upload-links.ts). */
  versionId: string
  expires: number
  signature: string
}

export function parseDownloadToken(token: string): DownloadToken | undefined {
  // One spelling per location: no leading zeros in the expiry.
  const match = /^([a-z]+-[A-Za-z0-9]+(?:\+[a-z-]{1,20})?)\.([1-9]\d{0,11})\.([A-Za-z0-9_-]{43})$/.exec(token)
  return match ? { versionId: match[1]!, expires: Number(match[2]), signature: match[3]! } : undefined
}

/** Whether the token was signed for this file (`sha256`, the file its id's record holds now) and has not expired. */
export function verifyDownload(signingKey: string, token: DownloadToken, sha256: string, now = Date.now()): boolean {
  if (token.expires * 1000 < now) return false
  const expected = Buffer.from(signature(signingKey, token.versionId, sha256, token.expires))
  const given = Buffer.from(token.signature)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

function signature(signingKey: string, versionId: string, sha256: string, expires: number): string {
  return createHmac('sha256', signingKey).update(`download:${versionId}:${sha256}:${expires}`).digest('base64url')
}
