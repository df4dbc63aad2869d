import type { BundleFile, BundleManifest } from '../../../shared/bundle-manifest.js'
import { InvalidInputError } from '../core/errors.js'
import { describeJsonProblem, jsonProblemIn } from '../core/stored-text.js'

/**
 * A Homeport bundle: an uncompressed tar (its modules and provider zips are compressed already)
 * holding `manifest.json` and the files it lists, each with its size and SHA-256:
 *
 *     manifest.json
 *     modules/<hostname>/<namespace>/<name>/<provider>/<version>.tar.gz
 *     providers/<hostname>/<namespace>/<type>/<version>/<SHA256SUMS file>
 *     providers/<hostname>/<namespace>/<type>/<version>/<SHA256SUMS file>.sig
 *     providers/<hostname>/<namespace>/<type>/<version>/terraform-provider-<type>_<version>_<os>_<arch>.zip
 *     providers/<hostname>/<namespace>/<type>/<version>/docs.json   (its docs, when it has any: domain/provider-docs/docs-file.ts)
 *
 * The manifest's shape is in shared/bundle-manifest.ts (the API shows it while a bundle is made).
 * The signing keys are in the manifest. A reader checks every file against the manifest, and
 * every provider's SHA256SUMS against its keys, before it takes anything.
 */
export const BUNDLE_FORMAT: BundleManifest['format'] = 'homeport-bundle'
export const BUNDLE_FORMAT_VERSION = 1
export const MANIFEST = 'manifest.json'

/** Every file a manifest lists. */
export function manifestFiles(manifest: BundleManifest): BundleFile[] {
  return [
    ...manifest.modules.map((module) => module.archive),
    ...manifest.providers.flatMap((provider) => [provider.shasums, provider.signature, ...provider.packages.map((found) => found.file), ...(provider.docs ? [provider.docs] : [])])
  ]
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/

/** A manifest read from a bundle, checked for shape: anything else is not a bundle this Homeport reads. */
export function checkManifest(value: unknown): BundleManifest {
  const invalid = (reason: string) => new InvalidInputError(`This is not a Homeport bundle it can read: ${reason}.`, 'bundle')
  const manifest = value as Partial<BundleManifest> | null
  if (!manifest || manifest.format !== BUNDLE_FORMAT) throw invalid('manifest.json does not say "homeport-bundle"')
  const problem = jsonProblemIn(manifest)
  if (problem !== undefined) throw invalid(`manifest.json ${describeJsonProblem(problem)}`)
  if (manifest.formatVersion !== BUNDLE_FORMAT_VERSION) {
    throw invalid(`it is format ${String(manifest.formatVersion)}, written by ${String(manifest.writtenBy)}; this Homeport reads format ${BUNDLE_FORMAT_VERSION}`)
  }
  if (!Array.isArray(manifest.modules) || !Array.isArray(manifest.providers) || typeof manifest.organization?.name !== 'string') throw invalid('manifest.json lacks its modules, providers or organization')
  const file = (candidate: BundleFile | undefined, what: string) => {
    const path = candidate?.path
    if (typeof path !== 'string' || !path.split('/').every((segment) => SEGMENT.test(segment)) || !/^[0-9a-f]{64}$/.test(candidate!.sha256) || !Number.isSafeInteger(candidate!.size)) {
      throw invalid(`${what} names no file, or a file with no SHA-256 and size`)
    }
  }
  const text = (value: unknown) => typeof value === 'string' && value.length > 0 && value.length <= 200
  for (const module of manifest.modules) {
    if (![module.hostname, module.namespace, module.name, module.provider, module.version].every(text) || !['public', 'private'].includes(module.registry)) throw invalid('a module lacks its address or version')
    file(module.archive, `${module.namespace}/${module.name}/${module.provider} ${module.version}`)
  }
  for (const provider of manifest.providers) {
    const name = `${provider.namespace}/${provider.type} ${provider.version}`
    if (![provider.hostname, provider.namespace, provider.type, provider.version].every(text) || !['mirror', 'private'].includes(provider.registry)) throw invalid('a provider lacks its address or version')
    if (!Array.isArray(provider.keys) || provider.keys.length === 0 || !provider.keys.every((key) => typeof key?.asciiArmor === 'string')) throw invalid(`${name} has no signing key`)
    if (!Array.isArray(provider.packages) || !Array.isArray(provider.protocols)) throw invalid(`${name} lacks its packages`)
    file(provider.shasums, `${name}'s SHA256SUMS`)
    file(provider.signature, `${name}'s signature`)
    for (const found of provider.packages) file(found.file, `${name} for ${String(found.os)}_${String(found.arch)}`)
    if (provider.docs !== undefined) file(provider.docs, `${name}'s docs`)
  }
  return manifest as BundleManifest
}
