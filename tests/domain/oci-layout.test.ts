import { describe, expect, it } from 'vitest'
import { moduleManifest, providerIndex, providerTargetManifest, versionTag } from '../../src-main/server/domain/oci/oci-layout.js'

const ZIP = { sha256: 'a'.repeat(64), size: 1234 }

/**
 * The artifacts' bytes are part of the contract: a digest a lock file, a `?digest=` source or an
 * OCI mirror's copy names must stay the digest of the same version. These are pinned; a change
 * that moves them is a breaking change for every user, not a refactoring.
 */
describe('the OCI artifacts’ layout', () => {
  it('builds a module manifest in OpenTofu’s layout, with a pinned digest', () => {
    const manifest = moduleManifest(ZIP, '1.2.0')
    expect(JSON.parse(manifest.bytes.toString())).toEqual({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      artifactType: 'application/vnd.opentofu.modulepkg',
      config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a', size: 2 },
      layers: [{ mediaType: 'archive/zip', digest: `sha256:${'a'.repeat(64)}`, size: 1234, annotations: { 'org.opencontainers.image.title': 'module.zip' } }],
      annotations: { 'org.opencontainers.image.version': '1.2.0' }
    })
    expect(manifest.digest).toBe('sha256:77f5c8bdcce7417671d71eaf7a27cdb296a7703355996bb457037788f00c1454')
  })

  it('builds a provider index over one manifest per platform, in a stable order, with pinned digests', () => {
    const platforms = [
      { os: 'linux', arch: 'amd64', sha256: 'b'.repeat(64), size: 10 },
      { os: 'darwin', arch: 'arm64', sha256: 'c'.repeat(64), size: 20 }
    ]
    const targets = platforms.map((zip) => ({ zip, manifest: providerTargetManifest(zip, `terraform-provider-x_1.0.0_${zip.os}_${zip.arch}.zip`) }))
    const index = providerIndex(targets, '1.0.0')
    expect(providerIndex([...targets].reverse(), '1.0.0').digest).toBe(index.digest)
    const body = JSON.parse(index.bytes.toString())
    expect(body.artifactType).toBe('application/vnd.opentofu.provider')
    expect(body.manifests.map((entry: { platform: unknown; artifactType: string }) => [entry.platform, entry.artifactType])).toEqual([
      [{ architecture: 'arm64', os: 'darwin' }, 'application/vnd.opentofu.provider-target'],
      [{ architecture: 'amd64', os: 'linux' }, 'application/vnd.opentofu.provider-target']
    ])
    expect(targets.map((target) => target.manifest.digest)).toEqual([
      'sha256:d760c983e140506f4204ad460271ea8a1c6e42dcb879c374cae0ea360e3e98ba',
      'sha256:311cd39210541aa0050988fc8aeaea201fbfd073818bf367676d4544f0c664e3'
    ])
    expect(index.digest).toBe('sha256:8292c46c96619803ec2bac9bcd5e68453d556007891b1deef5d87ecc46c05dca')
  })

  it('writes build metadata after _ in tags, as OpenTofu reads it', () => {
    expect(versionTag('1.0.0+linux.2')).toBe('1.0.0_linux.2')
    expect(versionTag('2.0.0-beta.1')).toBe('2.0.0-beta.1')
  })
})
