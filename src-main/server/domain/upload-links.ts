import { createHmac, timingSafeEqual } from 'node:crypto'
import type { VersionRecord } from '../store/records.js'

/** How long an upload link stays valid at least; links shown within one window are the same link. */
export const UPLOAD_LINK_TTL_MS = 60 * 60 * 1000
const WINDOW_MS = 10 * 60 * 1000

/**
 * Upload links are the credential for an upload (`PUT {upload_url}/v1/object/<object id>`, no
 * Authorization header). The object id is `<version id>.<expiry>.<HMAC>`: the HMAC, under the
 * installation's key, covers the version, its expiry and the version's link generation, which
 * moves on each time an archive is received through a link. So a link is derived, never stored:
 * showing one writes nothing (a read never writes), it works once (its generation is then past),
 * and it cannot be stretched (the expiry is signed).
 */
export function uploadObjectId(signingKey: string, version: Pick<VersionRecord, 'id' | 'linkGeneration'>, now = Date.now()): string {
  const expires = Math.floor((Math.floor(now / WINDOW_MS) * WINDOW_MS + WINDOW_MS + UPLOAD_LINK_TTL_MS) / 1000)
  return objectIdFor(signingKey, version.id, version.linkGeneration, expires)
}

export function objectIdFor(signingKey: string, versionId: string, generation: number, expiresSeconds: number): string {
  return `${versionId}.${expiresSeconds}.${mac(signingKey, versionId, generation, expiresSeconds)}`
}

function mac(signingKey: string, versionId: string, generation: number, expiresSeconds: number): string {
  return createHmac('sha256', signingKey).update(`upload:${versionId}:${generation}:${expiresSeconds}`).digest('base64url')
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

/** What a link is to its version now: usable, expired, used already (an earlier generation), or not the version's at all. */
export type LinkState = 'usable' | 'expired' | 'used' | 'unknown'

export function linkState(signingKey: string, version: Pick<VersionRecord, 'id' | 'linkGeneration'>, link: ParsedObjectId, now = Date.now()): LinkState {
  const signs = (generation: number) => {
    const expected = Buffer.from(mac(signingKey, version.id, generation, link.expiresSeconds))
    const given = Buffer.from(link.mac)
    return expected.length === given.length && timingSafeEqual(expected, given)
  }
  if (link.versionId !== version.id) return 'unknown'
  if (signs(version.linkGeneration)) return link.expiresSeconds * 1000 > now ? 'usable' : 'expired'
  // Only the recent past is worth telling apart from a link that never was.
  for (let generation = version.linkGeneration - 1; generation >= Math.max(0, version.linkGeneration - 64); generation--) {
    if (signs(generation)) return 'used'
  }
  return 'unknown'
}
