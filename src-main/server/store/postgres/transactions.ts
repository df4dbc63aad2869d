import type { Pool, PoolClient } from 'pg'

/** PostgreSQL's codes for a transaction it aborted to let another go on: trying again succeeds. */
const RETRIABLE = new Set(['40001', '40P01'])
const ATTEMPTS = 5

/**
 * Runs `work` in a transaction on one connection: committed when it returns, rolled back when it
 * throws. A transaction PostgreSQL aborts for a deadlock or a serialization conflict with another
 * (replica's) writer is run again: `work` must be safe to repeat, as the store's changes are.
 */
export async function inTransaction<R>(pool: Pool, work: (client: PoolClient) => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect()
    let broken = false
    try {
      await client.query('BEGIN')
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true
      })
      if (attempt < ATTEMPTS && RETRIABLE.has((error as { code?: string }).code ?? '')) continue
      throw error
    } finally {
      client.release(broken)
    }
  }
}
