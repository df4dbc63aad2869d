/**
 * A provider release folder as goreleaser writes it (HashiCorp's template, and releases.hashicorp.com):
 * `terraform-provider-<type>_<version>_SHA256SUMS`, its detached signature `….sig`, one zip per platform
 * `terraform-provider-<type>_<version>_<os>_<arch>.zip`, and optionally `…_manifest.json` with the
 * plugin protocol versions. Shared by the GUI (files the user picked) and the CLI (files on disk).
 */
export interface ProviderReleaseFiles<F> {
  type: string
  version: string
  shasums: F
  signature: F
  manifest?: F
  zips: Array<{ file: F; os: string; arch: string }>
}

const ZIP = /^terraform-provider-([a-z0-9-]+)_v?(\d+\.\d+\.\d+[^_]*)_([a-z0-9]+)_([a-z0-9]+)\.zip$/
const SUMS = /^terraform-provider-([a-z0-9-]+)_v?(\d+\.\d+\.\d+[^_]*)_SHA256SUMS$/

/**
 * Every release among `files` (a dist folder holds more: the rest is left out), each with its
 * signature and zips; says what is missing rather than returning half a release.
 */
export function findReleases<F extends { name: string }>(files: F[]): Array<ProviderReleaseFiles<F>> {
  const byName = new Map(files.map((file) => [file.name, file]))
  const releases = files.flatMap((shasums) => {
    const match = SUMS.exec(shasums.name)
    if (!match) return []
    const [, type, version] = match as unknown as [string, string, string]
    const signature = byName.get(`${shasums.name}.sig`)
    if (!signature) throw new Error(`No ${shasums.name}.sig beside it: sign the sums first (gpg --detach-sign).`)
    const zips = files.flatMap((file) => {
      const zip = ZIP.exec(file.name)
      return zip && zip[1] === type && zip[2] === version ? [{ file, os: zip[3]!, arch: zip[4]! }] : []
    })
    if (zips.length === 0) throw new Error(`No terraform-provider-${type}_${version}_<os>_<arch>.zip beside ${shasums.name}.`)
    const manifest = byName.get(shasums.name.replace(/_SHA256SUMS$/, '_manifest.json'))
    return [{ type, version, shasums, signature, ...(manifest ? { manifest } : {}), zips }]
  })
  if (releases.length === 0) throw new Error('No terraform-provider-<type>_<version>_SHA256SUMS among the files: pick the folder goreleaser wrote (dist/).')
  return releases
}

/** The plugin protocol versions a release's manifest declares (`{"metadata":{"protocol_versions":["5.0"]}}`), or none. */
export function manifestProtocols(text: string): string[] {
  const manifest = JSON.parse(text) as { metadata?: { protocol_versions?: unknown } }
  const protocols = manifest.metadata?.protocol_versions
  if (!Array.isArray(protocols) || !protocols.every((protocol) => typeof protocol === 'string' && /^\d+\.\d+$/.test(protocol))) {
    throw new Error('the manifest has no metadata.protocol_versions list (like ["5.0"])')
  }
  return protocols as string[]
}
