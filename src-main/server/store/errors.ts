/** A file in the data directory that Homeport cannot load; it refuses to start rather than overwrite it. */
export class StoreLoadError extends Error {
  constructor(
    readonly path: string,
    reason: string
  ) {
    super(
      `Cannot load ${path}: ${reason}\n` +
        'Homeport has not changed this file. Restore it from a backup (homeport restore), or move it ' +
        'out of the data directory to start without the data it holds.'
    )
    this.name = 'StoreLoadError'
  }
}

/** A write would give two records the same value of a unique index. */
export class UniqueConstraintError extends Error {
  constructor(
    readonly index: string,
    readonly key: string
  ) {
    super(`another record already has ${index} "${key}"`)
    this.name = 'UniqueConstraintError'
  }
}

/** The record to update or delete does not exist (any more). */
export class RecordMissingError extends Error {
  constructor(readonly id: string) {
    super(`no record ${id}`)
    this.name = 'RecordMissingError'
  }
}
