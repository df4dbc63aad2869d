/**
 * Homeport's own bundles API: `bundles` (a bundle being made for an air-gapped install, followed
 * until it can be downloaded) and `bundle-imports` (what importing one did, item by item).
 */
import type { BundleManifest } from '../bundle-manifest.js'

export type BundleStatus = 'resolving' | 'writing' | 'ready' | 'failed'

/** Something the bundle cannot hold, and why: no bundle is written while there is one. */
export interface BundleProblem {
  what: string
  reason: string
}

/** What a bundle is asked for (`POST /api/v2/bundles`): a configuration's files, or modules and providers named outright. */
export interface BundleRequestAttributes {
  organization: string
  /** `<os>_<arch>` each: the platforms its providers are for. */
  platforms: string[]
  /** A configuration's `.tf` files and lock file, by relative path. */
  configuration?: Record<string, string>
  /** Each a source, with a version constraint or none for the newest. */
  modules: Array<{ source: string; version?: string }>
  providers: Array<{ source: string; version?: string }>
}

/** A `bundles` resource's attributes; its `links.download` is there once it is ready. */
export interface BundleAttributes {
  /** The organization whose registry it is made from. */
  organization: string
  status: BundleStatus
  'created-at': string
  /** What it is doing now, and what it did, newest last. */
  steps: string[]
  /** Bytes copied into the bundle so far, of `total-bytes`, while writing. */
  'written-bytes': number
  'total-bytes': number
  /** Why it failed: everything that could not be resolved, each with the reason. */
  problems: BundleProblem[]
  /** Public modules the organization did not curate yet, added to it so they could be pulled through. */
  curated: string[]
  filename: string
  size: number | null
  sha256: string | null
  /** Once resolved. */
  manifest: BundleManifest | null
}

/** Whether an import added an item, or found it already here. */
export type ImportOutcome = 'added' | 'present'

export interface ImportedModule {
  source: string
  version: string
  outcome: ImportOutcome
}

export interface ImportedProvider {
  source: string
  version: string
  platforms: string[]
  outcome: ImportOutcome
}

/** A `bundle-imports` resource's attributes. */
export interface BundleImportAttributes {
  /** The organization that curates the bundle's public modules here. */
  organization: string
  'created-organizations': string[]
  modules: ImportedModule[]
  providers: ImportedProvider[]
  /** Things worth saying that did not stop the import. */
  notes: string[]
}
