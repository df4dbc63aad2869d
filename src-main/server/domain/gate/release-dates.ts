import { createHash } from 'node:crypto'
import type { ReleaseSighting, ReleaseSightingRecord } from '../../store/records.js'
import type { Store } from '../../store/port.js'
import { Lru } from '../../../shared/lru.js'
import { packageKey, type PublicPackage } from './packages.js'

/**
 * The earliest publish time believed: Terraform's first release (July 2014). A date from the
 * network before it, or after now, is not believed: the version's age counts from when Homeport
 * first saw it (as NORA's first-seen ledger does).
 */
const EARLIEST_BELIEVABLE = Date.parse('2014-07-01T00:00:00Z')

/**
 * What is known of versions the gate sees for the first time: the upstream's publish time, where it
 * gives one, and since when Homeport has kept the version, where it has (mirrored before the gate was
 * turned on, or imported: seen then, not now).
 */
export interface ReleaseFacts {
  publishedAt?: string
  keptSince?: string
}
export type PublishTimes = (versions: string[]) => Promise<Map<string, ReleaseFacts>>

/**
 * When each upstream version was published and first seen here, and the digest of the content first
 * fetched: the gate's facts about age and identity, kept per package. Recording a sighting is a write
 * on a read, like the upstream cache: it happens once per new version, never on a list that brings
 * nothing new.
 */
export class ReleaseDates {
  constructor(
    private readonly store: Store,
    private readonly clock: () => number
  ) {}

  /** The package's sightings, `versions` among them (recorded now for those never seen, with the publish times `lookup` finds). */
  async sight(target: PublicPackage, versions: readonly string[], lookup?: PublishTimes): Promise<ReleaseSightingRecord | undefined> {
    const id = sightingId(target)
    const record = await this.store.releaseSightings.get(id)
    const unseen = versions.filter((version) => !record?.versions[version])
    if (unseen.length === 0) return record
    const facts = lookup ? await lookup(unseen).catch(() => new Map<string, ReleaseFacts>()) : new Map<string, ReleaseFacts>()
    const now = new Date(this.clock()).toISOString()
    return this.store.releaseSightings.upsert(
      id,
      () => ({ id, key: packageKey(target), versions: {} }) satisfies ReleaseSightingRecord,
      (draft) => {
        for (const version of unseen) {
          const known = facts.get(version)
          const kept = known?.keptSince !== undefined && known.keptSince < now ? known.keptSince : undefined
          draft.versions[version] ??= { firstSeenAt: kept ?? now, publishedAt: this.believable(known?.publishedAt) }
        }
      }
    )
  }

  /** What is recorded of the package's versions, without recording anything. */
  async known(target: PublicPackage): Promise<Record<string, ReleaseSighting>> {
    return (await this.store.releaseSightings.get(sightingId(target)))?.versions ?? {}
  }

  /**
   * Holds the content first fetched for a version as canonical: the first digest is recorded; a later
   * different one is refused (and recorded as refused). Whether `digest` is the canonical one.
   */
  async canonical(target: PublicPackage, version: string, digest: string): Promise<{ ok: true } | { ok: false; kept: string }> {
    const id = sightingId(target)
    const firstSeenAt = new Date(this.clock()).toISOString()
    let kept: string | undefined
    await this.store.releaseSightings.upsert(
      id,
      () => ({ id, key: packageKey(target), versions: {} }),
      (draft) => {
        const sighting = (draft.versions[version] ??= { firstSeenAt, publishedAt: null })
        if (sighting.digest === undefined) sighting.digest = digest
        else if (sighting.digest !== digest) {
          kept = sighting.digest
          sighting.refusedDigest = digest
        }
      }
    )
    return kept === undefined ? { ok: true } : { ok: false, kept }
  }

  private believable(time: string | undefined): string | null {
    if (time === undefined) return null
    const at = Date.parse(time)
    if (Number.isNaN(at) || at < EARLIEST_BELIEVABLE || at > this.clock()) return null
    return new Date(at).toISOString()
  }
}

/** Ids by package key, computed once: a list read asks for its package's at every request. */
const ids = new Lru<string, string>(10_000)

function sightingId(target: PublicPackage): string {
  const key = packageKey(target)
  let id = ids.get(key)
  if (id === undefined) {
    id = `sight-${createHash('sha256').update(key).digest('hex')}`
    ids.set(key, id)
  }
  return id
}
