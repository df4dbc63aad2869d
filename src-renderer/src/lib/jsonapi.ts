/** The JSON:API shapes the GUI reads. */
export interface Resource<A> {
  id: string
  type: string
  attributes: A
  relationships?: Record<string, unknown>
  links?: { self?: string }
}

export interface Document<A> {
  data: Resource<A>
}

export interface ListDocument<A> {
  data: Array<Resource<A>>
  meta?: {
    pagination?: { 'total-count': number; 'current-page': number; 'total-pages': number; 'next-page': number | null; 'prev-page': number | null }
    /** Homeport's own, on the module list: how many modules of each provider match all but the provider filter. */
    'provider-counts'?: Record<string, number>
  }
}
