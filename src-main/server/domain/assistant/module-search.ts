import type { ModuleDocs } from '../archives/module-docs.js'

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

/** The texts of one module a query is matched against. */
export type SearchText = Record<SearchField, string>

export interface Ranked<T> {
  item: T
  score: number
  /** The fields some word of the query was found in, best first. */
  matched: SearchField[]
}

/** The fields of a module's search text that come from its documentation (the rest, from its address). */
export type DocsSearchText = Pick<SearchText, 'description' | 'inputs' | 'outputs' | 'resources' | 'readme'>

/**
 * The searchable texts of a version's documentation, each as the distinct words it holds (lower
 * case, split as a query is, joined by spaces): a query's word, letters and digits only, is found in
 * a text exactly when it is found in one of its words, so this finds what the whole text would, in a
 * small part of its size (a README's words repeat), small enough to keep for every module.
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

function wordsOf(texts: string[]): string {
  // Joined by a character no word holds: one split, one set.
  return queryWords(texts.join('\n')).join(' ')
}

/** A module's searchable texts: its address, and its latest version's documentation (docsSearchText). */
export function searchText(address: { namespace: string; name: string; provider: string }, docs: DocsSearchText): SearchText {
  return { name: address.name, namespace: address.namespace, provider: address.provider, ...docs }
}

/** The words of a query: lower case, split on anything but letters and digits (`s3-bucket` is `s3` and `bucket`). */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word !== ''))]
}

/**
 * The items whose texts hold every word of the query (anywhere: a word of the name or of an input's
 * description), best first: each word counts as much as the best field it is in, a name that is the
 * query itself counts most, and ties go by `tieBreak`. An empty query matches everything, in
 * `tieBreak` order.
 */
export function rank<T>(items: Array<{ item: T; text: SearchText }>, query: string, tieBreak: (a: T, b: T) => number): Array<Ranked<T>> {
  const words = queryWords(query)
  const ranked: Array<Ranked<T>> = []
  for (const { item, text } of items) {
    const lowered = Object.fromEntries(FIELDS.map(([field]) => [field, text[field].toLowerCase()])) as SearchText
    let score = 0
    const matched = new Set<SearchField>()
    let every = true
    for (const word of words) {
      const best = FIELDS.find(([field]) => lowered[field].includes(word))
      if (!best) {
        every = false
        break
      }
      score += best[1]
      for (const [field] of FIELDS) if (lowered[field].includes(word)) matched.add(field)
    }
    if (!every) continue
    if (words.length > 0 && queryWords(text.name).join(' ') === words.join(' ')) score += 20
    ranked.push({ item, score, matched: FIELDS.map(([field]) => field).filter((field) => matched.has(field)) })
  }
  return ranked.sort((a, b) => b.score - a.score || tieBreak(a.item, b.item))
}
