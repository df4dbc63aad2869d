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

/**
 * Homeport started on a data directory it cannot write (a full disk, a read-only mount), so it
 * serves reads only: every write is refused with this, and nothing is half-written.
 */
export class WritesRefusedError extends Error {
  constructor(readonly reason: 'disk-full' | 'read-only') {
    super(
      reason === 'disk-full'
        ? 'The disk that holds Homeport’s data directory was full when Homeport started, so it serves reads only: nothing was written. Free some space and restart Homeport.'
        : 'Homeport’s data directory is read-only (or not Homeport’s to write), so it serves reads only: nothing was written.'
    )
    this.name = 'WritesRefusedError'
  }
}

/** Whether a file system error says that nothing can be written there now, and why. */
export function unwritableCause(error: unknown): 'disk-full' | 'read-only' | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'disk-full'
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return 'read-only'
  return undefined
}

/**
 * A stored file (an archive, a provider's file, an OCI layer) that a record names is not in the
 * store: removed from the data directory or the database by hand, or lost with a disk. Its code is
 * the file system's, so that a missing file reads the same from every store.
 */
export class StoredFileMissingError extends Error {
  readonly code = 'ENOENT'

  constructor(readonly sha256: string) {
    super(`no stored file ${sha256}`)
    this.name = 'StoredFileMissingError'
  }
}

/** Whether reading a stored file failed because the store does not have it (see StoredFileMissingError). */
export function isStoredFileMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT'
}

/** The body of an upload was larger than allowed; nothing was stored. */
export class TooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the archive is larger than ${limit} bytes`)
    this.name = 'TooLargeError'
  }
}

/** Homeport cannot reach its PostgreSQL database (nothing listens, no answer, the connection dropped). */
export class DatabaseUnreachableError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DatabaseUnreachableError'
  }
}

/**
 * Whether an error says the database is out of reach, rather than that a statement failed: a
 * connection refused, timed out or dropped, or PostgreSQL shutting down or not taking connections.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (error instanceof DatabaseUnreachableError) return true
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code === 'string' && (['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(code) || /^(08|57P0)/.test(code))) return true
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Connection ended unexpectedly/i.test((error as Error | undefined)?.message ?? '')
}
