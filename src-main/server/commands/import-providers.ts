import { createReadStream } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { findReleases, manifestProtocols } from '../../shared/provider-release.js'
import { PUBLIC_REGISTRY_HOSTS } from '../../shared/terraform-config.js'
import { parseShasums } from '../domain/providers/release-files.js'
import { readMirrorFolder, type FolderPackage } from './lib/mirror-folder.js'
import { UsageError } from '../boot/options.js'
import { bodyOf, type RunningServer } from './lib/running-server.js'

/** Where a release folder's provider belongs, and the key that signed it: a release folder says neither. */
export interface ReleaseOptions {
  hostname?: string
  namespace?: string
  /** The path of the ASCII-armored public key that signed SHA256SUMS. */
  key?: string
}

type Answer = { data?: { attributes: Record<string, unknown> }; errors?: Array<{ detail?: string }> }

/** The JSON:API answer to a request, or the reason it could not be sent, as one error. */
async function send(running: RunningServer, method: string, path: string, body: unknown, what: string): Promise<Answer> {
  return running.request(method, path, body).then(
    async (response): Promise<Answer> => ({ errors: [{ detail: `HTTP ${response.statusCode}` }], ...(JSON.parse(await bodyOf(response)) as Answer) }),
    (error: Error): Answer => ({ errors: [{ detail: `could not send ${what}: ${error.message}` }] })
  )
}

/** PUTs one zip to the running Homeport's import endpoint, checked there against `hashes`; whether it was taken. */
async function sendPackage(running: RunningServer, found: FolderPackage): Promise<boolean> {
  const name = `${found.hostname}/${found.namespace}/${found.type} ${found.version} for ${found.platform}`
  const query = new URLSearchParams(found.hashes.map((hash) => ['hash', hash]))
  const path = `/api/v2/admin/provider-mirror/packages/${[found.hostname, found.namespace, found.type, found.version, found.platform].map(encodeURIComponent).join('/')}`
  // A zip that cannot be read (missing, unreadable) fails alone; the others go on.
  const document = await send(running, 'PUT', `${path}?${query}`, createReadStream(found.path), found.path)
  if (!document.data) {
    console.error(`Not imported: ${name}: ${document.errors?.[0]?.detail}`)
    return false
  }
  const { 'already-present': present, signed } = document.data.attributes
  console.log(`${present ? 'Already mirrored' : 'Imported'}: ${name}${signed ? ' (signed)' : ' (unsigned: served through the network mirror)'}.`)
  return true
}

/**
 * `homeport import-providers <folder>`: a folder written by `terraform providers mirror` (each zip
 * checked against the hashes its `<version>.json` lists), or a provider's release folder (goreleaser's,
 * or files from releases.hashicorp.com: SHA256SUMS checked against the signing key given, then each zip
 * against SHA256SUMS). Every package that can be imported is; the others are listed with the reason.
 */
export async function importProviderFolder(running: RunningServer, folder: string, options: ReleaseOptions): Promise<void> {
  const mirrored = await readMirrorFolder(folder)
  const { packages, unlisted } = mirrored.length > 0 ? { packages: mirrored, unlisted: 0 } : await releasePackages(running, folder, options)
  let failures = unlisted
  for (const found of packages) if (!(await sendPackage(running, found))) failures++
  if (failures > 0) throw new Error(`${failures} of ${packages.length + unlisted} packages were not imported.`)
}

/** Imports each release's signed SHA256SUMS, then names its zips, each to be checked against its line there. */
async function releasePackages(
  running: RunningServer,
  folder: string,
  { hostname = PUBLIC_REGISTRY_HOSTS[0]!, namespace, key }: ReleaseOptions
): Promise<{ packages: FolderPackage[]; unlisted: number }> {
  const files = (await readdir(folder, { withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => ({ name: entry.name, path: join(folder, entry.name) }))
  if (!files.some((file) => file.name.endsWith('_SHA256SUMS'))) {
    throw new Error(`${folder} is neither a folder written by terraform providers mirror (<host>/<namespace>/<type>/<version>.json) nor a provider release folder (terraform-provider-<type>_<version>_SHA256SUMS).`)
  }
  if (!namespace) throw new UsageError('A release folder does not say whose provider it is: give --namespace (hashicorp for hashicorp/aws).')
  if (!key) throw new UsageError('A release folder is checked against the key that signed its SHA256SUMS: give that public key with --key <file.asc> (HashiCorp publishes theirs at https://www.hashicorp.com/.well-known/pgp-key.txt).')
  const signingKey = await readFile(key, 'utf8')
  const packages: FolderPackage[] = []
  let unlisted = 0
  for (const release of findReleases(files)) {
    const shasums = await readFile(release.shasums.path, 'utf8')
    const protocols = release.manifest ? manifestProtocols(await readFile(release.manifest.path, 'utf8')) : []
    const name = `${hostname}/${namespace}/${release.type} ${release.version}`
    const path = `/api/v2/admin/provider-mirror/releases/${[hostname, namespace, release.type, release.version].map(encodeURIComponent).join('/')}`
    const attributes = { shasums, 'shasums-signature': (await readFile(release.signature.path)).toString('base64'), 'signing-key': signingKey, protocols }
    const document = await send(running, 'PUT', path, { data: { type: 'provider-releases', attributes } }, release.shasums.path)
    if (!document.data) throw new Error(`${name} was not imported: ${document.errors?.[0]?.detail}`)
    console.log(`${document.data.attributes['already-present'] ? 'Already mirrored' : 'Imported'}: ${name}'s SHA256SUMS, signed by key ${String(document.data.attributes['key-id'])}.`)
    const listed = parseShasums(shasums)
    for (const zip of release.zips) {
      const sha256 = listed.get(zip.file.name)
      if (!sha256) {
        unlisted++
        console.error(`Not imported: ${name} for ${zip.os}_${zip.arch}: SHA256SUMS does not list ${zip.file.name}.`)
        continue
      }
      packages.push({ hostname, namespace, type: release.type, version: release.version, platform: `${zip.os}_${zip.arch}`, hashes: [`zh:${sha256}`], path: zip.file.path })
    }
  }
  return { packages, unlisted }
}
