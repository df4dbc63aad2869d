import { BY_ARCHIVE, type Store } from '../store/store.js'

/**
 * Decides when an archive (a module's, or a provider's file) may go. Files are shared by content,
 * so one goes only when no module or provider version refers to it, and not while a version is about to (it is pinned between being stored
 * and being named by a version).
 */
export class ArchiveKeeper {
  private readonly pinned = new Set<string>()

  constructor(private readonly store: Store) {}

  /** Keeps an archive from being swept while a version is about to refer to it; returns the unpin. */
  pin(sha256: string): () => void {
    this.pinned.add(sha256)
    return () => this.pinned.delete(sha256)
  }

  /** Deletes the archives (and their docs) that no version refers to any more. */
  async release(hashes: Iterable<string>): Promise<void> {
    for (const sha256 of new Set(hashes)) {
      if (this.pinned.has(sha256)) continue
      if ((await this.store.modules.listBy(BY_ARCHIVE, sha256)).length > 0) continue
      if ((await this.store.providers.listBy(BY_ARCHIVE, sha256)).length > 0) continue
      if ((await this.store.providerMirror.listBy(BY_ARCHIVE, sha256)).length > 0) continue
      await this.store.archives.delete(sha256)
    }
  }
}
