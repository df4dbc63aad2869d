import { InvalidInputError } from './errors.js'

/** What a publisher asks of a version's deprecation, in the words of HCP's module version lifecycle (`deprecated-status`): modules and providers alike. */
export type DeprecationChange = { deprecation: 'Deprecated'; reason: string; link: string | null } | { deprecation: 'Undeprecated' }

/** The most characters a publisher's notice (a deprecation's reason, a revocation's message) holds. */
const MAX_TEXT = 1000

/**
 * A publisher's notice to consumers, trimmed: required, and short enough to show in a CLI's warning.
 * `attribute` is the JSON:API path of the field (`deprecation.reason`), for the error's pointer.
 */
export function noticeText(value: string, attribute: string): string {
  const trimmed = value.trim()
  if (trimmed === '') throw new InvalidInputError(`Say why (${attribute.split('.').pop()}): consumers see it.`, attribute)
  if (trimmed.length > MAX_TEXT) throw new InvalidInputError(`Keep it to ${MAX_TEXT} characters.`, attribute)
  return trimmed
}

/** A notice's optional link: null when absent, else an http(s) URL, normalized. */
export function noticeLink(value: string | null, attribute: string): string | null {
  if (value === null || value.trim() === '') return null
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw new InvalidInputError(`"${value}" is not a URL.`, attribute)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidInputError(`The link must be an http(s) URL, not ${url.protocol}.`, attribute)
  return url.toString()
}
