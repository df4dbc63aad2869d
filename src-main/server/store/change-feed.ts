/** Hears a collection's writes: the id of the record written, or none when writes may have gone unheard. */
export type ChangeListener = (id: string | undefined) => void

/**
 * Who is told of a collection's writes (RecordStore.onChange), once each is stored: this process's as
 * they commit and, on PostgreSQL, another replica's as its NOTIFY arrives. What a listener keeps
 * derived from records (the search index) stays current record by record, rather than reading
 * every record again after any write.
 */
export class ChangeFeed {
  private readonly listeners = new Set<ChangeListener>()

  on(listener: ChangeListener): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  /** A listener that fails is not the writer's failure: the write is stored, and the rest still hear of it. */
  tell(id: string | undefined): void {
    for (const listener of this.listeners) {
      try {
        listener(id)
      } catch (error) {
        console.error(`homeport: a listener of the store's writes failed: ${(error as Error).message}`)
      }
    }
  }
}
