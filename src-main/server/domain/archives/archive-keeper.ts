import { BY_ARCHIVE, type Store } from '../../store/port.js'

/**
 * Decides when an archive (a module's, or a provider's file) may go. Files are shared by content,
 * so one goes only when no module or provider version (or provider doc) refers to it, and not while a version is about to (it is pinned between being stored
 * and being named by a version).
 */
export class ArchiveKeeper {
  /** How many writes are about to name each archive: two imports of the same zip may overlap. */
  private readonly pinned = new Map<string, number>()

  constructor(private readonly store: Store) {}

  /** Keeps an archive from being swept while a version is about to refer to it; returns the unpin. */
  pin(sha256: string): () => void {
    this.pinned.set(sha256, (this.pinned.get(sha256) ?? 0) + 1)
    let unpinned = false
    return () => {
      if (unpinned) return
      unpinned = true
      const left = this.pinned.get(sha256)! - 1
      if (left === 0) this.pinned.delete(sha256)
      else this.pinned.set(sha256, left)
    }
  }

  /** Deletes the archives (and their docs) that no version refers to any more. */
  async release(hashes: Iterable<string>): Promise<void> {
    for (const sha256 of new Set(hashes)) {
      if (this.pinned.has(sha256)) continue
      if (await this.store.modules.inGroup(BY_ARCHIVE, sha256)) continue
      if (await this.store.providers.inGroup(BY_ARCHIVE, sha256)) continue
      if (await this.store.providerMirror.inGroup(BY_ARCHIVE, sha256)) continue
      if (await this.store.providerDocs.inGroup(BY_ARCHIVE, sha256)) continue
      await this.store.archives.delete(sha256)
    }
  }
}
