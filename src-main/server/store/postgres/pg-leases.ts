import { randomBytes } from 'node:crypto'
import type { Pool } from 'pg'
import type { Leases } from '../port.js'

/**
 * Leases in PostgreSQL (`hp_leases`): one row per job, naming the replica that holds it and until
 * when. Taking one is a single statement, so two replicas asking at once cannot both get it; a
 * lease whose holder stopped renewing it (it died) is free once expired.
 */
export class PgLeases implements Leases {
  /** This replica, as its leases name it. */
  private readonly owner = `${process.pid}-${randomBytes(6).toString('hex')}`

  constructor(private readonly pool: Pool) {}

  async acquire(job: string, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO hp_leases (job, owner, until) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (job) DO UPDATE SET owner = EXCLUDED.owner, until = EXCLUDED.until
       WHERE hp_leases.owner = EXCLUDED.owner OR hp_leases.until < now()`,
      [job, this.owner, ttlMs]
    )
    return rowCount === 1
  }

  async release(job: string): Promise<void> {
    await this.pool.query('DELETE FROM hp_leases WHERE job = $1 AND owner = $2', [job, this.owner])
  }
}
