import { AsyncLocalStorage } from 'node:async_hooks'

/** Where a change comes from: the request that asked for it (its id, and the client's address). */
export interface Origin {
  requestId: string
  ip: string
}

const current = new AsyncLocalStorage<Origin>()

/**
 * Runs `work` as asked by `origin`, so that whatever the domain records while it runs (the audit
 * trail) says which request it was, without every service passing the request along. The HTTP
 * layer sets it once per request; the command line sets none.
 */
export function runFrom<T>(origin: Origin, work: () => Promise<T>): Promise<T> {
  return current.run(origin, work)
}

/** The request the running work was asked by, if any. */
export function currentOrigin(): Origin | undefined {
  return current.getStore()
}
