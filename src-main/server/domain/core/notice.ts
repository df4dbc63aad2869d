import { InvalidInputError } from './errors.js'

/** What a publisher asks of a version's deprecation, in the words of HCP's module version lifecycle (`deprecated-status`): modules and providers alike. */
export type DeprecationChange = { deprecation: 'Deprecated'; reason: string; link: string | null } | { deprecation: 'Undeprecated' }

/** The most characters a publisher's notice (a deprecation's reason, a revocation's message) holds. */
const MAX_TEXT = 1000
/** The most characters a notice's link holds: every versions list and provider `warnings` carries it to every `terraform init`. */
const MAX_LINK = 2000
/**
 * Control characters other than a newline: Terraform and OpenTofu print notices to a terminal, where
 * ESC, CSI (C1 U+009B), OSC 8 hyperlinks, a carriage return or a backspace rewrite the screen or
 * plant a hidden link. A tab is refused too, and so are the Unicode line and paragraph separators.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/
const CONTROL_ALL = new RegExp(CONTROL.source, 'g')

/**
 * A publisher's notice to consumers, trimmed: required, and short enough to show in a CLI's warning.
 * `attribute` is the JSON:API path of the field (`deprecation.reason`), for the error's pointer.
 */
export function noticeText(value: string, attribute: string): string {
  const trimmed = value.trim()
  if (trimmed === '') throw new InvalidInputError(`Say why (${attribute.split('.').pop()}): consumers see it.`, attribute)
  if (trimmed.length > MAX_TEXT) throw new InvalidInputError(`Keep it to ${MAX_TEXT} characters.`, attribute)
  const control = CONTROL.exec(trimmed)
  if (control) {
    throw new InvalidInputError(
      `It holds the control character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} at ${control.index + 1}: Terraform prints notices to a terminal, so only text and newlines are taken.`,
      attribute
    )
  }
  return trimmed
}

/** An upstream registry's notice passed on to Terraform (a provider's `warnings`): its control characters dropped, newlines kept, at most a notice's length. */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL_ALL, '').slice(0, MAX_TEXT)
}

/** A notice's optional link: null when absent, else an http(s) URL, normalized. */
export function noticeLink(value: string | null, attribute: string): string | null {
  if (value === null || value.trim() === '') return null
  if (value.trim().length > MAX_LINK) throw new InvalidInputError(`Keep the link to ${MAX_LINK} characters.`, attribute)
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw new InvalidInputError(`"${value}" is not a URL.`, attribute)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidInputError(`The link must be an http(s) URL, not ${url.protocol}.`, attribute)
  return url.toString()
}
