import type { ModuleRecord, OrganizationRecord } from '../../store/records.js'

/** A version whose archive waits for ingest, and whose organization it counts against. */
export interface IngestJob {
  organizationId: string
  moduleId: string
  versionId: string
}

/** What the domain announces, and what each announcement carries. */
export interface DomainEventMap {
  /** A version's archive is stored; it waits for ingest. */
  archiveStored: IngestJob
  /** A module record was deleted: what other services keep for it goes too. */
  moduleRemoved: ModuleRecord
  /** An organization was destroyed: everything it owned goes too. */
  organizationDestroyed: OrganizationRecord
}

type Handler<K extends keyof DomainEventMap> = (payload: DomainEventMap[K]) => void | Promise<void>

/**
 * A few domain events, so that services need not know who reacts to what: the composition root
 * (services.ts) subscribes one service to another's events, and no service holds a setter or a
 * hook list. `emit` waits for every handler, in the order they subscribed, so the emitter knows
 * the consequences are done (an organization's modules are gone when destroy returns).
 */
export class DomainEvents {
  private readonly handlers = new Map<keyof DomainEventMap, Array<Handler<never>>>()

  on<K extends keyof DomainEventMap>(event: K, handler: Handler<K>): void {
    const list = this.handlers.get(event) ?? []
    list.push(handler)
    this.handlers.set(event, list)
  }

  async emit<K extends keyof DomainEventMap>(event: K, payload: DomainEventMap[K]): Promise<void> {
    for (const handler of (this.handlers.get(event) ?? []) as Array<Handler<K>>) await handler(payload)
  }
}
