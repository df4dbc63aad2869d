/**
 * Text every store can keep. PostgreSQL refuses a NUL in text and JSONB, and a lone UTF-16
 * surrogate is not Unicode at all (it cannot be written as UTF-8); the file store would keep
 * both, so the same input would succeed on one store and fail on the other. Such text is refused
 * where it enters (the API's paths, queries and bodies, a bundle's manifest, an upstream's
 * answers), the same way for every store.
 */
// eslint-disable-next-line no-control-regex -- finding NUL is the point
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g')

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value)
}

/** How deep a JSON document may nest: far beyond any real one (a bundle manifest or an API body nests 5 or 6 deep). */
export const MAX_JSON_DEPTH = 64

/** What is wrong with a parsed JSON document, and where (a JSON pointer, `/data/attributes/name`). */
export interface JsonProblem {
  problem: 'unstorable-text' | 'too-deep'
  pointer: string
}

/**
 * The first place in `value` (a parsed JSON document) that no store keeps: text holding a NUL or
 * a lone surrogate (keys as well as values), or nesting deeper than MAX_JSON_DEPTH. Walked with a
 * stack of its own, not by recursion: a document nested 100,000 deep is answered, not a stack overflow.
 */
export function jsonProblemIn(value: unknown): JsonProblem | undefined {
  const pending: Array<{ value: unknown; pointer: string; depth: number }> = [{ value, pointer: '', depth: 0 }]
  while (pending.length > 0) {
    const { value: item, pointer, depth } = pending.pop()!
    if (typeof item === 'string') {
      if (!isStorableText(item)) return { problem: 'unstorable-text', pointer: pointer || '/' }
      continue
    }
    if (item === null || typeof item !== 'object') continue
    if (depth >= MAX_JSON_DEPTH) return { problem: 'too-deep', pointer: pointer || '/' }
    const entries: Array<readonly [string, unknown]> = Array.isArray(item) ? (item as unknown[]).map((child, index) => [String(index), child] as const) : Object.entries(item)
    // Pushed last first, so that the document is walked in its own order and the first problem is found first.
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, child] = entries[index]!
      const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
      if (!isStorableText(key)) return { problem: 'unstorable-text', pointer: at }
      pending.push({ value: child, pointer: at, depth: depth + 1 })
    }
  }
  return undefined
}

/** What a JsonProblem is, in words, for the error that refuses it. */
export function describeJsonProblem({ problem, pointer }: JsonProblem): string {
  return problem === 'too-deep' ? `nests deeper than ${MAX_JSON_DEPTH} levels at ${pointer.slice(0, 200)}…` : `holds a NUL character or a lone surrogate at ${pointer}`
}

/**
 * `value` (a JSON document read from a module's own files: its README, its descriptions) with any
 * text no store keeps replaced by U+FFFD, as a UTF-8 decoder replaces what it cannot read: a
 * module is documented alike on every store rather than refused on one.
 */
export function storableCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (_key, item: unknown) => (typeof item === 'string' ? item.replace(UNSTORABLE_ALL, '\ufffd') : item)) as T
}
