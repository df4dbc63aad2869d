import semver from 'semver'
import { InvalidInputError } from '../core/errors.js'

/**
 * A path under one of the upstream registry's services (`hashicorp/null/versions`), made only by
 * `upstreamPath` from segments checked against the registry protocol's grammar. The brand makes
 * it the one way to name an upstream path: a caller's text cannot reach `UpstreamRegistry` as a
 * path (an absolute URL in a namespace would otherwise win over the upstream's own address).
 */
export type UpstreamPath = string & { readonly __upstreamPath: unique symbol }

/** One segment: what the protocol calls it, and the caller's value. */
export interface Segment {
  what: string
  value: string
}

/** Namespaces, names, module providers and provider types: letters and digits, with `-` and `_` inside. */
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9])?$/
/** A provider's os or arch, as Go names them (`linux`, `amd64`, `arm64`). */
const PLATFORM_PART = /^[a-z0-9_]{1,32}$/
/** The protocol's fixed words between segments. */
const WORDS = new Set(['versions', 'download', 'providers', 'provider-docs', 'index.json', 'index.md', 'resources', 'datasources', 'functions', 'guides'])
/** The words of the paths above, as a type. */
type Word = 'versions' | 'download' | 'providers' | 'provider-docs' | 'index.json' | 'index.md' | 'resources' | 'datasources' | 'functions' | 'guides'

export const namespaceSegment = (value: string): Segment => ({ what: 'namespace', value })
export const nameSegment = (value: string): Segment => ({ what: 'name', value })
export const providerSegment = (value: string): Segment => ({ what: 'provider', value })
export const typeSegment = (value: string): Segment => ({ what: 'provider type', value })
export const versionSegment = (value: string): Segment => ({ what: 'version', value })
export const osSegment = (value: string): Segment => ({ what: 'os', value })
export const archSegment = (value: string): Segment => ({ what: 'arch', value })
/** A provider doc's id in the public registry's v2 API: digits. */
export const docIdSegment = (value: string): Segment => ({ what: 'doc id', value })
/** A version as OpenTofu's docs API names it: `v` and the version. */
export const tagSegment = (value: string): Segment => ({ what: 'tag', value })
/** A doc's file in OpenTofu's docs API: its name and `.md`. */
export const docFileSegment = (value: string): Segment => ({ what: 'doc file', value })

function valid({ what, value }: Segment): boolean {
  if (what === 'version') return semver.valid(value) === value && value.length <= 128
  if (what === 'os' || what === 'arch') return PLATFORM_PART.test(value)
  if (what === 'doc id') return /^[0-9]{1,20}$/.test(value)
  if (what === 'tag') return value.startsWith('v') && semver.valid(value.slice(1)) === value.slice(1) && value.length <= 129
  if (what === 'doc file') return /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}\.md$/.test(value) && !value.includes('..')
  return NAME.test(value)
}

/**
 * The path of `segments` (each checked) and the protocol's fixed words, each encoded, joined by
 * `/`. A segment outside the grammar is refused before anything is fetched.
 */
export function upstreamPath(...segments: Array<Segment | Word>): UpstreamPath {
  return segments
    .map((segment) => {
      if (typeof segment === 'string') {
        if (!WORDS.has(segment)) throw new Error(`"${segment}" is not a word of the registry protocol`)
        return segment
      }
      if (!valid(segment)) throw new InvalidInputError(`"${segment.value}" is not a valid ${segment.what} in the registry protocol.`)
      return encodeURIComponent(segment.value)
    })
    .join('/') as UpstreamPath
}

/**
 * `path` under the service's `base`, refused unless it stays on the base's origin and below its
 * path: the last guard between a checked path and a request.
 */
export function resolveUnder(base: URL, path: UpstreamPath): URL {
  const url = new URL(path, base)
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) {
    throw new Error(`${url.href} is not under the upstream service at ${base.href}`)
  }
  return url
}
