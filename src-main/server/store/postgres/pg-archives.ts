import { createHash, randomBytes } from 'node:crypto'
import { Readable, Transform, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Pool } from 'pg'
import { StoredFileMissingError, TooLargeError } from '../errors.js'
import type { ArchiveRef } from '../records.js'
import type { Archives } from '../port.js'
import { inTransaction } from './transactions.js'

/** The size of the chunks an archive is kept in: a read or write holds one chunk, never the archive. */
export const CHUNK_BYTES = 1024 * 1024

/** How long an archive stays after it was last stored, even with nothing referring to it (see `delete`). */
export const DEFAULT_ARCHIVE_GRACE_MS = 60 * 60 * 1000

/**
 * Archives (module archives, provider zips and their sums) in PostgreSQL, by content: `hp_archives`
 * says what is stored (its size, parsed documentation, and when it was last stored), `hp_archive_chunks`
 * holds its bytes in chunks of a megabyte as `bytea`. An archive streams in under a temporary key while
 * it is hashed, and takes its SHA-256 as its key only once whole, in one transaction: a reader never
 * sees half.
 *
 * Several replicas share the archives, and each pins only its own (archive-keeper.ts): another replica
 * may have just stored the same content for an upload it has not yet recorded. So an archive is
 * deleted only once `graceMs` have passed since it was last stored; until then it stays, and a later
 * sweep (at start, and hourly) removes it if still nothing refers to it.
 */
export class PgArchives implements Archives {
  constructor(
    private readonly pool: Pool,
    private readonly graceMs = DEFAULT_ARCHIVE_GRACE_MS
  ) {}

  async put(source: Readable, maxBytes: number): Promise<ArchiveRef> {
    const staging = `tmp-${randomBytes(12).toString('hex')}`
    const hash = createHash('sha256')
    let size = 0
    let sequence = 0
    let pending: Buffer[] = []
    let pendingBytes = 0
    const pool = this.pool
    const flush = async () => {
      if (pendingBytes === 0) return
      const chunk = Buffer.concat(pending)
      pending = []
      pendingBytes = 0
      await pool.query('INSERT INTO hp_archive_chunks (sha256, seq, data) VALUES ($1, $2, $3)', [staging, sequence++, chunk])
    }
    // As the file store does: past the limit the pipeline fails and its source is destroyed (a git archive must not be left running).
    const meter = new Transform({
      transform(piece: Buffer, _encoding, done) {
        size += piece.length
        if (size > maxBytes) return done(new TooLargeError(maxBytes))
        hash.update(piece)
        done(null, piece)
      }
    })
    const chunks = new Writable({
      write(piece: Buffer, _encoding, done) {
        let rest = piece
        const next = async () => {
          while (rest.length > 0) {
            const taken = rest.subarray(0, CHUNK_BYTES - pendingBytes)
            pending.push(taken)
            pendingBytes += taken.length
            rest = rest.subarray(taken.length)
            if (pendingBytes === CHUNK_BYTES) await flush()
          }
        }
        next().then(() => done(), done)
      },
      final(done) {
        flush().then(() => done(), done)
      }
    })
    try {
      await pipeline(source, meter, chunks)
      const sha256 = hash.digest('hex')
      await inTransaction(this.pool, async (client) => {
        // Stored already (here or by another replica, even at this moment): it is stored again, now; its chunks stay.
        const { rows } = await client.query<{ inserted: boolean }>(
          'INSERT INTO hp_archives (sha256, size) VALUES ($1, $2) ON CONFLICT (sha256) DO UPDATE SET stored_at = now() RETURNING (xmax = 0) AS inserted',
          [sha256, size]
        )
        if (rows[0]?.inserted) await client.query('UPDATE hp_archive_chunks SET sha256 = $2 WHERE sha256 = $1', [staging, sha256])
      })
      return { sha256, size }
    } finally {
      // The staging chunks of a failed or duplicate upload.
      await this.pool.query('DELETE FROM hp_archive_chunks WHERE sha256 = $1', [staging]).catch(() => undefined)
    }
  }

  read(sha256: string, range?: { start: number; end: number }): Readable {
    const pool = this.pool
    async function* chunks(): AsyncGenerator<Buffer> {
      const { rows } = await pool.query<{ size: string }>('SELECT size FROM hp_archives WHERE sha256 = $1', [sha256])
      if (!rows[0]) throw new StoredFileMissingError(sha256)
      const size = Number(rows[0].size)
      const start = range?.start ?? 0
      const end = Math.min(range?.end ?? size - 1, size - 1)
      for (let sequence = Math.floor(start / CHUNK_BYTES); sequence * CHUNK_BYTES <= end; sequence++) {
        const chunk = await pool.query<{ data: Buffer }>('SELECT data FROM hp_archive_chunks WHERE sha256 = $1 AND seq = $2', [sha256, sequence])
        const data = chunk.rows[0]?.data
        if (!data) throw Object.assign(new Error(`archive ${sha256} lacks its chunk ${sequence}`), { code: 'EIO' })
        const offset = sequence * CHUNK_BYTES
        yield data.subarray(Math.max(0, start - offset), Math.min(data.length, end - offset + 1))
      }
    }
    return Readable.from(chunks(), { objectMode: false })
  }

  async writeDocs(sha256: string, docs: unknown): Promise<void> {
    await this.pool.query('UPDATE hp_archives SET docs = $2 WHERE sha256 = $1', [sha256, JSON.stringify(docs)])
  }

  async readDocs<T>(sha256: string): Promise<T | undefined> {
    const { rows } = await this.pool.query<{ docs: T | null }>('SELECT docs FROM hp_archives WHERE sha256 = $1', [sha256])
    return rows[0]?.docs ?? undefined
  }

  async readManyDocs<T>(hashes: readonly string[]): Promise<Array<T | undefined>> {
    if (hashes.length === 0) return []
    const { rows } = await this.pool.query<{ sha256: string; docs: T | null }>('SELECT sha256, docs FROM hp_archives WHERE sha256 = ANY($1::text[])', [hashes])
    const docs = new Map(rows.map((row) => [row.sha256, row.docs ?? undefined]))
    return hashes.map((sha256) => docs.get(sha256))
  }

  /** Deletes the archive unless it was stored within the grace period (by this replica or another). */
  async delete(sha256: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const gone = await client.query("DELETE FROM hp_archives WHERE sha256 = $1 AND stored_at <= now() - $2 * interval '1 millisecond'", [sha256, this.graceMs])
      if (gone.rowCount) await client.query('DELETE FROM hp_archive_chunks WHERE sha256 = $1', [sha256])
    })
  }

  async list(): Promise<string[]> {
    const { rows } = await this.pool.query<{ sha256: string }>('SELECT sha256 FROM hp_archives ORDER BY sha256')
    return rows.map((row) => row.sha256)
  }
}
