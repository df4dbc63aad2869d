import { BY_ARCHIVE, type Store } from '../../store/port.js'

/**
 * Decides when an archive (a module's, or a provider's file) may go. Files are shared by content,
 * so one goes only when no module or provider version (or provider doc) refers to it, and not while a version is about to (it is pinned between being stored
 * and being named by a version).
 */
export class ArchiveKeeper {
  /** How many writes are about to name each archive: two imports of the same zip may overlap. */
  private readonly pinned = new Map<string, number>()
  /** For each release in flight, the archives pinned since it began: one pinned and let go meanwhile is named by a version now. */
  private readonly pinnedDuring = new Set<Set<string>>()

  constructor(private readonly store: Store) {}

  /** Keeps an archive from being swept while a version is about to refer to it; returns the unpin. */
  pin(sha256: string): () => void {
    this.pinned.set(sha256, (this.pinned.get(sha256) ?? 0) + 1)
    for (const pins of this.pinnedDuring) pins.add(sha256)
    let unpinned = false
    return () => {
      if (unpinned) return
      unpinned = true
      const left = this.pinned.get(sha256)! - 1
      if (left === 0) this.pinned.delete(sha256)
      else this.pinned.set(sha256, left)
    }
  }

  /**
   * Deletes the archives (and their docs) that no version refers to any more. They are asked about a
   * page at a time, one question per kind of record that may refer to one (a query each on PostgreSQL):
   * the start's recovery asks about every archive, and one at a time a registry of 10,000 modules took
   * 40,000 queries, two seconds of its start.
   */
  async release(hashes: Iterable<string>): Promise<void> {
    const all = [...new Set(hashes)]
    for (let start = 0; start < all.length; start += RELEASE_PAGE) {
      const pinnedSince = new Set<string>()
      this.pinnedDuring.add(pinnedSince)
      try {
        let unreferenced = all.slice(start, start + RELEASE_PAGE).filter((sha256) => !this.pinned.has(sha256))
        for (const records of [this.store.modules, this.store.providers, this.store.providerMirror, this.store.providerDocs]) {
          if (unreferenced.length === 0) break
          const references = await records.groupSizes(BY_ARCHIVE, unreferenced)
          unreferenced = unreferenced.filter((sha256) => references.get(sha256) === 0)
        }
        // Pinned meanwhile: a version is about to name it, or names it already (pinned and let go while the references were counted).
        for (const sha256 of unreferenced) if (!this.pinned.has(sha256) && !pinnedSince.has(sha256)) await this.store.archives.delete(sha256)
      } finally {
        this.pinnedDuring.delete(pinnedSince)
      }
    }
  }
}

/** How many archives one question asks about. */
const RELEASE_PAGE = 500
