/**
 * The JSON:API documents of Homeport's management API (`/api/v2`), one definition for the server
 * that builds them and the clients that read them (the GUI, Homeport's own CLI commands). Types
 * only: this folder is compiled into the GUI as well, so it imports nothing of the server's.
 */

/** A resource's `{ id, type }`, as relationships name it. */
export interface Identifier<T extends string = string> {
  id: string
  type: T
}

export interface Resource<A, T extends string = string> extends Identifier<T> {
  attributes: A
  relationships?: Record<string, unknown>
  links?: Record<string, string>
}

export interface Document<A, T extends string = string> {
  data: Resource<A, T>
}

/** `meta.pagination` of a paginated list. */
export interface Pagination {
  'current-page': number
  'page-size': number
  'prev-page': number | null
  'next-page': number | null
  'total-pages': number
  'total-count': number
}

/** A list; `M` is what an endpoint adds to its `meta` beside the pagination. */
export interface ListDocument<A, M extends object = object, T extends string = string> {
  data: Array<Resource<A, T>>
  meta?: { pagination?: Pagination } & M
  links?: Record<string, string | null>
}
