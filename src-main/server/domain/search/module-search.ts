import type { ModuleDocs } from '../archives/module-docs.js'
import type { Scorer } from './term-index.js'

/** What a module is searched by, with how much a word found there counts. */
const FIELDS = [
  ['name', 10],
  ['namespace', 4],
  ['provider', 4],
  ['description', 5],
  ['inputs', 2],
  ['outputs', 2],
  ['resources', 2],
  ['readme', 1]
] as const

export type SearchField = (typeof FIELDS)[number][0]

/** The fields, best first. */
export const SEARCH_FIELDS: readonly SearchField[] = FIELDS.map(([field]) => field)

/** The words of one module a query is matched against, by field. */
export type SearchText = Record<SearchField, string[]>

export interface Ranked<T> {
  item: T
  score: number
  /** The fields some word of the query was found in, best first. */
  matched: SearchField[]
}

/** The fields of a module's search text that come from its documentation (the rest, from its address). */
export type DocsSearchText = Pick<SearchText, 'description' | 'inputs' | 'outputs' | 'resources' | 'readme'>

/**
 * The searchable words of a version's documentation, field by field: each field's distinct words
 * (lower case, split as a query is), what the index (module-index.ts) reads of it, each word once (a
 * README's words repeat).
 */
export function docsSearchText(docs: ModuleDocs): DocsSearchText {
  const parts = [docs.root, ...docs.submodules]
  return {
    description: wordsOf([docs.description]),
    inputs: wordsOf(parts.flatMap((part) => part.inputs.flatMap((input) => [input.name, input.description]))),
    outputs: wordsOf(parts.flatMap((part) => part.outputs.flatMap((output) => [output.name, output.description]))),
    resources: wordsOf(parts.flatMap((part) => part.resources.map((resource) => resource.type))),
    readme: wordsOf([docs.root.readme])
  }
}

function wordsOf(texts: string[]): string[] {
  // Joined by a character no word holds: one split, one set.
  return queryWords(texts.join('\n'))
}

/** A module's searchable words: its address's, and its latest version's documentation's (docsSearchText). */
export function searchText(address: { namespace: string; name: string; provider: string }, docs: DocsSearchText): SearchText {
  return { name: queryWords(address.name), namespace: queryWords(address.namespace), provider: queryWords(address.provider), ...docs }
}

/** The words of a query: lower case, split on anything but letters and digits (`s3-bucket` is `s3` and `bucket`). */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word !== ''))]
}

/** The words of a module's name, as a query's are compared with them (a name that is the query itself counts most). */
export function nameWords(name: string): string {
  return queryWords(name).join(' ')
}

/**
 * How a module found by every word of a query ranks (module-index.ts): each word counts as much as
 * the first field it is in (FIELDS' order; `fields` is a mask, bit i: SEARCH_FIELDS[i]), and a name
 * that is the query itself counts 20 more.
 */
export const MODULE_SCORE: Scorer = {
  word: (fields) => (fields === 0 ? 0 : FIELDS[31 - Math.clz32(fields & -fields)]![1]),
  title: 20
}

/** The fields of a mask (bit i: SEARCH_FIELDS[i]), best first. */
export function fieldsOf(mask: number): SearchField[] {
  return SEARCH_FIELDS.filter((_, index) => (mask & (1 << index)) !== 0)
}
