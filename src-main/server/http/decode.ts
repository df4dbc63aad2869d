/**
 * A percent-encoded path segment, decoded; undefined when it is not valid percent-encoding (`%`,
 * `%zz`, a lone `%E0%A4%A`), which `decodeURIComponent` would throw as a URIError: the caller
 * answers that as a name it does not know, in its face's format, never as a 500.
 */
export function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}
