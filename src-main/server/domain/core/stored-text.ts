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

/**
 * Where in `value` (a parsed JSON document) a string holds text no store keeps, as a JSON pointer
 * (`/data/attributes/name`); undefined when there is none. Keys are checked as well as values.
 */
export function unstorableTextIn(value: unknown, pointer = ''): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : pointer || '/'
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unstorableTextIn(item, `${pointer}/${index}`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
      if (!isStorableText(key)) return at
      const found = unstorableTextIn(item, at)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * `value` (a JSON document read from a module's own files: its README, its descriptions) with any
 * text no store keeps replaced by U+FFFD, as a UTF-8 decoder replaces what it cannot read: a
 * module is documented alike on every store rather than refused on one.
 */
export function storableCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (_key, item: unknown) => (typeof item === 'string' ? item.replace(UNSTORABLE_ALL, '\ufffd') : item)) as T
}
