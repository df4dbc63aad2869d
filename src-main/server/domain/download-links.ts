import { createHmac, timingSafeEqual } from 'node:crypto'
import type { VersionRecord } from '../store/records.js'

/** How long a download location stays valid: Terraform fetches it right after asking. */
export const DOWNLOAD_LINK_TTL_MS = 10 * 60 * 1000

/**
 * Terraform never sends its token to a download location, so the location carries its own
 * credential: `<version id>.<expiry>.<HMAC>` under the installation's key, bound to the
 * version's archive. It goes in the URL path, not the query, because go-getter rewrites queries.
 */
export function signDownload(signingKey: string, version: VersionRecord, now = Date.now()): string {
  const expires = Math.floor((now + DOWNLOAD_LINK_TTL_MS) / 1000)
  return `${version.id}.${expires}.${signature(signingKey, version.id, version.archive?.sha256 ?? '', expires)}`
}

export interface DownloadToken {
  versionId: string
  expires: number
  signature: string
}

export function parseDownloadToken(token: string): DownloadToken | undefined {
  // One spelling per location: no leading zeros in the expiry.
  const match = /^([a-z]+-[A-Za-z0-9]+)\.([1-9]\d{0,11})\.([A-Za-z0-9_-]{43})$/.exec(token)
  return match ? { versionId: match[1]!, expires: Number(match[2]), signature: match[3]! } : undefined
}

/** Whether the token was signed for this version's current archive and has not expired. */
export function verifyDownload(signingKey: string, token: DownloadToken, version: VersionRecord, now = Date.now()): boolean {
  if (!version.archive || token.expires * 1000 < now) return false
  const expected = Buffer.from(signature(signingKey, version.id, version.archive.sha256, token.expires))
  const given = Buffer.from(token.signature)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

function signature(signingKey: string, versionId: string, sha256: string, expires: number): string {
  return createHmac('sha256', signingKey).update(`download:${versionId}:${sha256}:${expires}`).digest('base64url')
}
