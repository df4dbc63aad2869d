/**
 * The manifest of a Homeport bundle (`manifest.json`, first in the bundle's tar): what it holds,
 * with the size and SHA-256 of every file and the providers' signing keys. The bundle's layout and
 * its reading are in the server's domain/bundles/bundle-format.ts; the shape is here because the
 * bundles API shows the manifest to its clients while a bundle is made.
 */

export interface BundleFile {
  /** Its path in the bundle. */
  path: string
  size: number
  sha256: string
}

export interface BundledModule {
  /** The registry that serves it: a public registry's name (mirrored as public modules), or the bundling Homeport's own. */
  hostname: string
  namespace: string
  name: string
  provider: string
  version: string
  registry: 'public' | 'private'
  archive: BundleFile
  /** Who calls it (`root`, or `<module> <version>`), for people reading the manifest. */
  calledBy: string[]
}

export interface BundledKey {
  keyId: string
  asciiArmor: string
  trustSignature: string
  source: string
  sourceUrl: string | null
}

export interface BundledPackage {
  os: string
  arch: string
  filename: string
  file: BundleFile
}

export interface BundledProvider {
  hostname: string
  namespace: string
  type: string
  version: string
  registry: 'mirror' | 'private'
  protocols: string[]
  shasums: BundleFile
  signature: BundleFile
  keys: BundledKey[]
  packages: BundledPackage[]
  /** The version's documentation, as Homeport kept it (`docs.json`: each doc's outline and markdown), when it has any. */
  docs?: BundleFile
}

export interface BundleManifest {
  format: 'homeport-bundle'
  formatVersion: number
  /** The Homeport version that wrote it. */
  writtenBy: string
  createdAt: string
  /** The organization whose registry the bundle was made from: its public modules are curated there. */
  organization: { name: string; email: string }
  platforms: string[]
  modules: BundledModule[]
  providers: BundledProvider[]
}
