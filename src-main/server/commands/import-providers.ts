import { createReadStream } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { findReleases, manifestProtocols } from '../../shared/provider-release.js'
import { PUBLIC_REGISTRY_HOSTS } from '../../shared/terraform-config.js'
import { parseShasums } from '../domain/providers/release-files.js'
import { UsageError } from '../boot/options.js'
import { command, DATA_DIR_OPTIONS } from './command.js'
import type { HomeportClient } from './lib/client.js'
import { readMirrorFolder, type FolderPackage } from './lib/mirror-folder.js'
import { requireRunning } from './lib/running.js'

export const importProviders = command({
  name: 'import-providers',
  synopsis: '<folder> [--namespace <namespace> --key <file.asc> [--hostname <host>]] [--data-dir <path>] [--token <admin token>]',
  description: `imports into the running Homeport's mirror a folder written by terraform providers mirror,
  each zip checked against the hashes the folder lists: Terraform installs them through the network mirror
  (or the registry protocol too, where upstream's signed SHA256SUMS, mirrored already, lists the same zip).
  Or a provider's release folder (goreleaser's dist/, or the files of releases.hashicorp.com), with
  --namespace (whose provider: hashicorp) and --key (the public key that signed SHA256SUMS): the signature
  and each zip are checked, and Terraform installs them through the registry protocol and the network mirror
  under --hostname (registry.terraform.io unless told).`,
  options: { ...DATA_DIR_OPTIONS, namespace: { type: 'string' }, key: { type: 'string' }, hostname: { type: 'string' } },
  async run({ values, positionals }) {
    const [folder] = positionals
    if (!folder || positionals.length > 1) throw new UsageError('homeport import-providers takes one folder: written by terraform providers mirror, or a provider release folder.')
    const { client } = await requireRunning(values, 'then import')
    await importProviderFolder(client, folder, { hostname: values.hostname, namespace: values.namespace, key: values.key })
  }
})

/** Where a release folder's provider belongs, and the key that signed it: a release folder says neither. */
export interface ReleaseOptions {
  hostname?: string
  namespace?: string
  /** The path of the ASCII-armored public key that signed SHA256SUMS. */
  key?: string
}

/** PUTs one zip to the running Homeport's import endpoint, checked there against `hashes`; whether it was taken. */
async function sendPackage(client: HomeportClient, found: FolderPackage): Promise<boolean> {
  const name = `${found.hostname}/${found.namespace}/${found.type} ${found.version} for ${found.platform}`
  let answer
  try {
    answer = await client.importProviderPackage(found, found.hashes, createReadStream(found.path))
  } catch (error) {
    // A zip that is refused or cannot be read (missing, unreadable) fails alone; the others go on.
    console.error(`Not imported: ${name}: ${(error as Error).message}`)
    return false
  }
  const { 'already-present': present, signed } = answer.data.attributes
  console.log(`${present ? 'Already mirrored' : 'Imported'}: ${name}${signed ? ' (signed)' : ' (unsigned: served through the network mirror)'}.`)
  return true
}

/**
 * `homeport import-providers <folder>`: a folder written by `terraform providers mirror` (each zip
 * checked against the hashes its `<version>.json` lists), or a provider's release folder (goreleaser's,
 * or files from releases.hashicorp.com: SHA256SUMS checked against the signing key given, then each zip
 * against SHA256SUMS). Every package that can be imported is; the others are listed with the reason.
 */
async function importProviderFolder(client: HomeportClient, folder: string, options: ReleaseOptions): Promise<void> {
  const mirrored = await readMirrorFolder(folder)
  const { packages, unlisted } = mirrored.length > 0 ? { packages: mirrored, unlisted: 0 } : await releasePackages(client, folder, options)
  let failures = unlisted
  for (const found of packages) if (!(await sendPackage(client, found))) failures++
  if (failures > 0) throw new Error(`${failures} of ${packages.length + unlisted} packages were not imported.`)
}

/** Imports each release's signed SHA256SUMS, then names its zips, each to be checked against its line there. */
async function releasePackages(
  client: HomeportClient,
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
    const files = { shasums, 'shasums-signature': (await readFile(release.signature.path)).toString('base64'), 'signing-key': signingKey, protocols }
    const { data } = await client.importProviderRelease({ hostname, namespace, type: release.type, version: release.version }, files).catch((error: Error) => {
      throw new Error(`${name} was not imported: ${error.message}`)
    })
    console.log(`${data.attributes['already-present'] ? 'Already mirrored' : 'Imported'}: ${name}'s SHA256SUMS, signed by key ${data.attributes['key-id']}.`)
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
