/**
 * Where a change comes from: the request that asked for it (its id, and the client's address), as
 * the audit trail records it. The HTTP layer gives it to the caller it identifies (access.ts), and to
 * the capability links' services (an upload, a webhook, a login code's exchange); the command line has none.
 * It travels with them rather than in an AsyncLocalStorage, which on Node 20 turns on async hooks for
 * the whole process and cost the protocol's answers about 9 % (docs/operations/performance.md).
 */
export interface Origin {
  requestId: string
  ip: string
}
