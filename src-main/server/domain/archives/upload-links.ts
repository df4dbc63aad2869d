import { createHmac, timingSafeEqual } from 'node:crypto'

/** How long an upload link stays valid at least; links shown within one window are the same link. */
export const UPLOAD_LINK_TTL_MS = 60 * 60 * 1000
const WINDOW_MS = 10 * 60 * 1000

/**
 * Upload links are the credential for an upload (`PUT {upload_url}/v1/object/<object id>`, no
 * Authorization header). The object id is `<version id>.<expiry>.<HMAC>`: the HMAC, under the
 * installation's key, covers the version and its expiry. So a link is derived, never stored:
 * showing one writes nothing (a read never writes), and it cannot be stretched (the expiry is
 * signed). It takes archives until it expires or its version is published (HCP's clients PUT
 * again to the same link: the last archive wins); whether the version still takes one is the
 * domain's rule (module-rules.ts), not the link's.
 */
export function uploadObjectId(signingKey: string, id: string, now = Date.now()): string {
  const expires = Math.floor((Math.floor(now / WINDOW_MS) * WINDOW_MS + WINDOW_MS + UPLOAD_LINK_TTL_MS) / 1000)
  return objectIdFor(signingKey, id, expires)
}

export function objectIdFor(signingKey: string, id: string, expiresSeconds: number): string {
  return `${id}.${expiresSeconds}.${mac(signingKey, id, expiresSeconds)}`
}

function mac(signingKey: string, id: string, expiresSeconds: number): string {
  return createHmac('sha256', signingKey).update(`upload:${id}:${expiresSeconds}`).digest('base64url')
}

export interface ParsedObjectId {
  versionId: string
  expiresSeconds: number
  mac: string
}

/** A module version's id, or a provider file's: `provver-…+shasums`, `provver-…+shasums-sig`, `provpltfrm-…+binary`. */
const OBJECT_ID = /^((?:modver|provver|provpltfrm)-[A-Za-z0-9]{1,64}(?:\+[a-z-]{1,20})?)\.([1-9][0-9]{0,11})\.([A-Za-z0-9_-]{43})$/

/** The parts of an object id, or undefined when it is not one Homeport could have made. */
export function parseObjectId(objectId: string): ParsedObjectId | undefined {
  const match = OBJECT_ID.exec(objectId)
  return match ? { versionId: match[1]!, expiresSeconds: Number(match[2]), mac: match[3]! } : undefined
}

/** What a link is to the object `id` now: usable, expired, or not one Homeport made for it. */
export type LinkState = 'usable' | 'expired' | 'unknown'

export function linkState(signingKey: string, id: string, link: ParsedObjectId, now = Date.now()): LinkState {
  const expected = Buffer.from(mac(signingKey, id, link.expiresSeconds))
  const given = Buffer.from(link.mac)
  if (link.versionId !== id || expected.length !== given.length || !timingSafeEqual(expected, given)) return 'unknown'
  return link.expiresSeconds * 1000 > now ? 'usable' : 'expired'
}
