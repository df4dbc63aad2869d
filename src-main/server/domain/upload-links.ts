import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { UploadLink, VersionRecord } from '../store/records.js'

/** How long an upload link stays valid. */
export const UPLOAD_LINK_TTL_MS = 60 * 60 * 1000

/**
 * Upload links are the credential for an upload (`PUT {upload_url}/v1/object/<object id>`, no
 * Authorization header). The object id is an HMAC of the version and a random nonce under the
 * installation's key: 256 bits, never stored, re-derivable while the link is valid. The record
 * keeps only the nonce and the id's SHA-256, which finds the version again.
 */
export function mintUploadLink(signingKey: string, versionId: string, now = Date.now()): UploadLink {
  const nonce = randomBytes(16).toString('base64url')
  return {
    nonce,
    digest: digestOf(objectIdFor(signingKey, versionId, nonce)),
    expiresAt: new Date(now + UPLOAD_LINK_TTL_MS).toISOString(),
    usedAt: null
  }
}

export function objectIdFor(signingKey: string, versionId: string, nonce: string): string {
  return createHmac('sha256', signingKey).update(`upload:${versionId}:${nonce}`).digest('base64url')
}

export function digestOf(objectId: string): string {
  return createHash('sha256').update(objectId).digest('hex')
}

/** Whether `objectId` is the link of `version` (compared in constant time). */
export function matchesLink(signingKey: string, version: VersionRecord, objectId: string): boolean {
  if (!version.upload) return false
  const expected = Buffer.from(objectIdFor(signingKey, version.id, version.upload.nonce))
  const given = Buffer.from(objectId)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

export function isLinkUsable(link: UploadLink | null, now = Date.now()): boolean {
  return link !== null && link.usedAt === null && Date.parse(link.expiresAt) > now
}
