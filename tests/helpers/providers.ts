import { createHash, randomBytes } from 'node:crypto'
import { zipSync } from 'fflate'
import * as openpgp from 'openpgp'
import { createOrganization, doc, startTestServer, type TestServer } from './server.js'

/** A signing key, as a provider's developer keeps one: the public half goes to the registry. */
export interface SigningKey {
  publicArmor: string
  privateKey: openpgp.PrivateKey
  /** The primary key's long id, 16 upper-case hex digits. */
  keyId: string
}

export async function makeSigningKey(name = 'Acme Providers'): Promise<SigningKey> {
  const { publicKey, privateKey } = await openpgp.generateKey({ type: 'ecc', curve: 'ed25519Legacy', userIDs: [{ name, email: 'providers@acme.example' }], format: 'armored' })
  const key = await openpgp.readPrivateKey({ armoredKey: privateKey })
  return { publicArmor: publicKey, privateKey: key, keyId: key.getKeyID().toHex().toUpperCase() }
}

/** A release as goreleaser writes it: a zip per platform, SHA256SUMS, and its binary detached signature. */
export interface ProviderRelease {
  type: string
  version: string
  zips: Map<string, { os: string; arch: string; bytes: Buffer; shasum: string }>
  shasums: Buffer
  signature: Buffer
}

/**
 * A real provider release: each zip holds one executable `terraform-provider-<type>_v<version>`
 * (a script: `terraform init` never runs it) and no directory entries, as Terraform wants.
 */
export async function providerRelease(type: string, version: string, platforms: string[], key: SigningKey, { binaryBytes = 0 } = {}): Promise<ProviderRelease> {
  const zips: ProviderRelease['zips'] = new Map()
  for (const platform of platforms) {
    const [os, arch] = platform.split('_') as [string, string]
    const script = `#!/bin/sh\n# terraform-provider-${type} ${version} for ${platform}\necho "This is a test provider; it serves no plugin protocol." >&2\nexit 1\n`
    // As large as a real provider's binary when asked (a script, then bytes that do not compress, stored as they are).
    const binary = Buffer.concat([Buffer.from(script), randomBytes(binaryBytes)])
    // Unix mode 0755 in the external attributes, so the unpacked file is executable.
    const bytes = Buffer.from(zipSync({ [`terraform-provider-${type}_v${version}`]: [new Uint8Array(binary), { level: binaryBytes > 0 ? 0 : 6, os: 3, attrs: (0o100755 << 16) >>> 0, mtime: new Date('2026-01-01T00:00:00Z') }] }))
    zips.set(`terraform-provider-${type}_${version}_${platform}.zip`, { os, arch, bytes, shasum: sha256(bytes) })
  }
  const shasums = Buffer.from([...zips].map(([name, zip]) => `${zip.shasum}  ${name}\n`).join(''))
  return { type, version, zips, shasums, signature: await sign(shasums, key) }
}

/** A binary detached signature of `bytes`, as `gpg --detach-sign` makes. */
export async function sign(bytes: Buffer, key: SigningKey): Promise<Buffer> {
  const message = await openpgp.createMessage({ binary: new Uint8Array(bytes) })
  return Buffer.from(await openpgp.sign({ message, signingKeys: key.privateKey, detached: true, format: 'binary' }))
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** PUTs a file to an upload link, without a token, as `curl -T` does. */
export async function putFile(url: string, bytes: Buffer, fetcher: typeof fetch = fetch) {
  const response = await fetcher(url, { method: 'PUT', body: new Uint8Array(bytes) })
  const text = await response.text()
  return { status: response.status, body: text ? (JSON.parse(text) as { errors?: Array<{ detail: string }> }) : undefined }
}

/** What publishing needs of a Homeport: its API as the site admin, and a fetch for the upload links (a test server, or a spec's page). */
export type ApiTarget = Pick<TestServer, 'api' | 'adminToken' | 'fetch'>

/**
 * Publishes a release through the API as HCP's docs tell a publisher to (shared/research/providers.md
 * §5.6): the key (once per namespace), the provider, the version, SHA256SUMS and its signature, then
 * each platform and its zip. Returns what each upload answered.
 */
export async function publishProvider(test: ApiTarget, org: string, release: ProviderRelease, key: SigningKey, token = test.adminToken) {
  const api = (method: string, path: string, body?: unknown) => test.api(method, path, { token, body })
  const existingKey = await test.api('GET', `/api/registry/private/v2/gpg-keys/${org}/${key.keyId}`, { token })
  if (existingKey.status === 404) {
    const created = await api('POST', '/api/registry/private/v2/gpg-keys', doc('gpg-keys', { namespace: org, 'ascii-armor': key.publicArmor }))
    if (created.status !== 201) throw new Error(`gpg key: ${created.status} ${JSON.stringify(created.body)}`)
  }
  const path = `/organizations/${org}/registry-providers/private/${org}/${release.type}`
  if ((await api('GET', path)).status === 404) {
    const created = await api('POST', `/organizations/${org}/registry-providers`, doc('registry-providers', { name: release.type, namespace: org, 'registry-name': 'private' }))
    if (created.status !== 201) throw new Error(`provider: ${created.status} ${JSON.stringify(created.body)}`)
  }
  const version = await api('POST', `${path}/versions`, doc('registry-provider-versions', { version: release.version, 'key-id': key.keyId, protocols: ['5.0'] }))
  if (version.status !== 201) throw new Error(`version: ${version.status} ${JSON.stringify(version.body)}`)
  const links = version.body.data.links as Record<string, string>
  const uploads = [await putFile(links['shasums-upload']!, release.shasums, test.fetch), await putFile(links['shasums-sig-upload']!, release.signature, test.fetch)]
  for (const [filename, zip] of release.zips) {
    const platform = await api('POST', `${path}/versions/${release.version}/platforms`, doc('registry-provider-platforms', { os: zip.os, arch: zip.arch, shasum: zip.shasum, filename }))
    if (platform.status !== 201) throw new Error(`platform: ${platform.status} ${JSON.stringify(platform.body)}`)
    uploads.push(await putFile(platform.body.data.links['provider-binary-upload'] as string, zip.bytes, test.fetch))
  }
  return { path, uploads }
}

/**
 * A second Homeport standing in for the public registry: its organization `hashicorp` publishes, signed
 * by the key returned, what registry.terraform.io/hashicorp/… is to Terraform.
 */
export async function startPublicUpstream(): Promise<{ upstream: TestServer; key: SigningKey }> {
  const upstream = await startTestServer()
  await createOrganization(upstream, 'hashicorp')
  return { upstream, key: await makeSigningKey('Upstream Registry') }
}
