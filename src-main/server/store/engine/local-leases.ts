import type { Leases } from '../port.js'

/**
 * Leases for a store one process owns (the file store, by its data directory's lock; the memory
 * store): there is no other process to share a job with, and this one renews its own leases, so
 * every lease is granted. The jobs' own queues keep them one at a time within the process.
 */
export class LocalLeases implements Leases {
  acquire(): Promise<boolean> {
    return Promise.resolve(true)
  }

  release(): Promise<void> {
    return Promise.resolve()
  }
}
