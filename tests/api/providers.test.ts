import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { unzipSync, zipSync } from 'fflate'
import * as openpgp from 'openpgp'
import { makeSigningKey, providerRelease, publishProvider, putFile, sha256, sign, type SigningKey } from '../helpers/providers.js'
import { createOrganization, createTeamWithToken, doc, startTestServer, type TestServer } from '../helpers/server.js'
import { dirHash } from '../helpers/terraform-client.js'

let test: TestServer
let key: SigningKey
let otherKey: SigningKey
beforeAll(async () => {
  test = await startTestServer()
  await createOrganization(test, 'acme')
  await createOrganization(test, 'other')
  key = await makeSigningKey()
  otherKey = await makeSigningKey('Someone Else')
})
afterAll(async () => {
  await test.close()
})

const PROVIDERS = '/organizations/acme/registry-providers'
const protocol = (path: string, token: string | null = test.adminToken) => test.api('GET', `/api/registry/v1/providers/${path}`, { token })

describe('publishing a private provider (HCP Terraform’s API)', () => {
  it('takes a release as goreleaser writes it, and serves it through providers.v1', async () => {
    const release = await providerRelease('widget', '0.1.0', ['linux_amd64', 'darwin_arm64'], key)
    const { path, uploads } = await publishProvider(test, 'acme', release, key)
    expect(uploads.map((upload) => upload.status)).toEqual([200, 200, 200, 200])

    const provider = await test.api('GET', `${path}?include=registry-provider-versions`)
    expect(provider.body.data).toMatchObject({
      type: 'registry-providers',
      attributes: { name: 'widget', namespace: 'acme', 'registry-name': 'private', permissions: { 'can-delete': true } },
      relationships: { organization: { data: { id: 'acme', type: 'organizations' } } },
      links: { self: '/api/v2/organizations/acme/registry-providers/private/acme/widget' }
    })
    expect(provider.body.data.relationships['registry-provider-versions'].data).toEqual(provider.body.data.relationships.versions.data)
    expect(provider.body.included.map((item: { attributes: { version: string } }) => item.attributes.version)).toEqual(['0.1.0'])

    const version = await test.api('GET', `${path}/versions/0.1.0`)
    expect(version.body.data.attributes).toMatchObject({ version: '0.1.0', 'key-id': key.keyId, protocols: ['5.0'], 'shasums-uploaded': true, 'shasums-sig-uploaded': true })
    // Once uploaded, the links are for downloading, and the files are exactly what was uploaded.
    // Its docs may still be uploaded (and corrected): the files of the release, never again.
    expect(Object.keys(version.body.data.links).sort()).toEqual(['docs-upload', 'shasums-download', 'shasums-sig-download'])
    expect(Buffer.from(await (await fetch(version.body.data.links['shasums-download'])).arrayBuffer()).equals(release.shasums)).toBe(true)

    const platforms = await test.api('GET', `${path}/versions/0.1.0/platforms`)
    expect(platforms.body.data.map((platform: { attributes: { os: string; 'provider-binary-uploaded': boolean } }) => [platform.attributes.os, platform.attributes['provider-binary-uploaded']])).toEqual([
      ['linux', true],
      ['darwin', true]
    ])

    const versions = await protocol('acme/widget/versions')
    expect(versions.body).toEqual({
      versions: [{ version: '0.1.0', protocols: ['5.0'], platforms: [{ os: 'linux', arch: 'amd64' }, { os: 'darwin', arch: 'arm64' }] }]
    })
    // Terraform lower-cases the namespace and type.
    expect((await protocol('ACME/widget/versions')).status).toBe(200)
    const download = await protocol('acme/widget/0.1.0/download/linux/amd64')
    const zip = release.zips.get('terraform-provider-widget_0.1.0_linux_amd64.zip')!
    expect(download.body).toMatchObject({
      protocols: ['5.0'],
      os: 'linux',
      arch: 'amd64',
      filename: 'terraform-provider-widget_0.1.0_linux_amd64.zip',
      shasum: zip.shasum,
      signing_keys: { gpg_public_keys: [{ key_id: key.keyId, ascii_armor: key.publicArmor, trust_signature: '', source: 'Homeport', source_url: null }] }
    })
    // Absolute URLs on the origin the client called (Renovate takes them as they are; Terraform resolves either).
    for (const name of ['download_url', 'shasums_url', 'shasums_signature_url']) expect(download.body[name]).toMatch(new RegExp(`^${test.url}/api/registry/provider-files/`))
    // The three files are fetched without a token, as Terraform does.
    const base = `${test.url}/api/registry/v1/providers/acme/widget/0.1.0/download/linux/amd64`
    const get = (url: string, init?: RequestInit) => fetch(new URL(url, base), init)
    expect(Buffer.from(await (await get(download.body.shasums_url as string)).arrayBuffer()).equals(release.shasums)).toBe(true)
    expect(Buffer.from(await (await get(download.body.shasums_signature_url as string)).arrayBuffer()).equals(release.signature)).toBe(true)
    const head = await get(download.body.download_url as string, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(zip.bytes.length))
    expect(head.headers.get('content-encoding')).toBeNull()
    expect(Buffer.from(await (await get(download.body.download_url as string)).arrayBuffer()).equals(zip.bytes)).toBe(true)
    const ranged = await get(download.body.download_url as string, { headers: { Range: 'bytes=10-19' } })
    expect(ranged.status).toBe(206)
    expect(ranged.headers.get('content-range')).toBe(`bytes 10-19/${zip.bytes.length}`)
    expect(Buffer.from(await ranged.arrayBuffer()).equals(zip.bytes.subarray(10, 20))).toBe(true)
    // A platform the release lacks, a version it lacks, a tampered location.
    expect((await protocol('acme/widget/0.1.0/download/windows/amd64')).status).toBe(404)
    expect((await protocol('acme/widget/9.9.9/download/linux/amd64')).status).toBe(404)
    expect((await get((download.body.download_url as string).replace('/provider-files/', '/provider-files/x'))).status).toBe(404)
  })

  it('lists every platform’s h1: and zh: in the download answer, as OpenTofu 1.12 locks them all at once', async () => {
    const release = await providerRelease('locked', '1.0.0', ['linux_amd64', 'darwin_arm64', 'windows_amd64'], key)
    await publishProvider(test, 'acme', release, key)
    const expected = Object.fromEntries(
      [...release.zips.values()].map((zip) => [`${zip.os}_${zip.arch}`, { hashes: [dirHash(unzipSync(new Uint8Array(zip.bytes))), `zh:${zip.shasum}`], package_size: zip.bytes.length }])
    )
    for (const platform of ['linux/amd64', 'windows/amd64']) {
      expect((await protocol(`acme/locked/1.0.0/download/${platform}`)).body.packages).toEqual(expected)
    }
  })

  it('lists only versions whose sums, signature and a zip are in', async () => {
    const release = await providerRelease('gadget', '1.0.0', ['linux_amd64'], key)
    await publishProvider(test, 'acme', release, key)
    const path = `${PROVIDERS}/private/acme/gadget`
    const pending = await test.api('POST', `${path}/versions`, { body: doc('registry-provider-versions', { version: '1.1.0', 'key-id': key.keyId, protocols: ['5.0'] }) })
    expect(Object.keys(pending.body.data.links).sort()).toEqual(['docs-upload', 'shasums-sig-upload', 'shasums-upload'])
    expect((await protocol('acme/gadget/versions')).body.versions.map((version: { version: string }) => version.version)).toEqual(['1.0.0'])
  })

  it('refuses every file Terraform would refuse, saying why, and keeps nothing', async () => {
    const release = await providerRelease('checked', '2.0.0', ['linux_amd64'], key)
    const path = `${PROVIDERS}/private/acme/checked`
    await test.api('POST', PROVIDERS, { body: doc('registry-providers', { name: 'checked', namespace: 'acme', 'registry-name': 'private' }) })
    const version = await test.api('POST', `${path}/versions`, { body: doc('registry-provider-versions', { version: '2.0.0', 'key-id': key.keyId, protocols: ['5.0'] }) })
    const links = version.body.data.links as Record<string, string>
    const refused = async (url: string, bytes: Buffer, reason: RegExp, status = 422) => {
      const response = await putFile(url, bytes)
      expect(response.status, String(reason)).toBe(status)
      expect(response.body?.errors?.[0]?.detail).toMatch(reason)
    }
    await refused(links['shasums-sig-upload']!, release.signature, /Upload SHA256SUMS first/, 409)
    await refused(links['shasums-upload']!, Buffer.from('not a sums file\n'), /SHA256SUMS line 1 is not/)
    expect((await putFile(links['shasums-upload']!, release.shasums)).status).toBe(200)
    await refused(links['shasums-upload']!, release.shasums, /uploaded already/, 409)
    await refused(links['shasums-sig-upload']!, await sign(release.shasums, otherKey), /not a valid signature of SHA256SUMS by key/)
    await refused(links['shasums-sig-upload']!, Buffer.from('garbage'), /not a detached OpenPGP signature/)
    // An armored signature is de-armored: Terraform reads binary ones only.
    const armored = await openpgp.sign({ message: await openpgp.createMessage({ binary: new Uint8Array(release.shasums) }), signingKeys: key.privateKey, detached: true })
    expect((await putFile(links['shasums-sig-upload']!, Buffer.from(armored))).status).toBe(200)

    const zip = release.zips.get('terraform-provider-checked_2.0.0_linux_amd64.zip')!
    const platform = (os: string, arch: string, shasum: string, filename: string) =>
      test.api('POST', `${path}/versions/2.0.0/platforms`, { body: doc('registry-provider-platforms', { os, arch, shasum, filename }) })
    const linux = await platform('linux', 'amd64', zip.shasum, 'terraform-provider-checked_2.0.0_linux_amd64.zip')
    const upload = linux.body.data.links['provider-binary-upload'] as string
    await refused(upload, Buffer.concat([zip.bytes, Buffer.from('x')]), /The zip's SHA-256 is .*, not the platform's shasum/)
    expect((await platform('linux', 'amd64', zip.shasum, 'again.zip')).status).toBe(422)
    // Claims that SHA256SUMS does not back, and zips Terraform could not use.
    const notAZip = Buffer.from('definitely not a zip')
    const fake = await platform('freebsd', 'amd64', sha256(notAZip), 'terraform-provider-checked_2.0.0_freebsd_amd64.zip')
    await refused(fake.body.data.links['provider-binary-upload'] as string, notAZip, /SHA256SUMS does not list/)
    expect((await putFile(upload, zip.bytes)).status).toBe(200)
    await refused(upload, zip.bytes, /uploaded already/, 409)
    // Nothing refused was kept: the provider's files are the four accepted ones.
    const stored = (await test.server.services.store.providers.all()).find((provider) => provider.name === 'checked')!
    expect(stored.versions[0]!.platforms.filter((candidate) => candidate.binary).map((candidate) => candidate.os)).toEqual(['linux'])
    expect((await protocol('acme/checked/versions')).body.versions).toHaveLength(1)
  })

  it('refuses a zip without the provider’s executable, or with directory entries, even when SHA256SUMS lists it', async () => {
    const make = (files: Record<string, Uint8Array>) => Buffer.from(zipSync(files))
    const empty = make({ 'README.md': new TextEncoder().encode('no executable here') })
    const withDirectory = make({ 'extra/': new Uint8Array(0), 'terraform-provider-shapes_v1.0.0': new TextEncoder().encode('#!/bin/sh\n') })
    const release = await providerRelease('shapes', '1.0.0', [], key)
    const files = new Map([
      ['terraform-provider-shapes_1.0.0_linux_amd64.zip', empty],
      ['terraform-provider-shapes_1.0.0_linux_arm64.zip', withDirectory]
    ])
    release.shasums = Buffer.from([...files].map(([name, bytes]) => `${sha256(bytes)}  ${name}\n`).join(''))
    release.signature = await sign(release.shasums, key)
    const { path } = await publishProvider(test, 'acme', release, key)
    for (const [filename, bytes] of files) {
      const [, arch] = /linux_(\w+)\.zip$/.exec(filename)!
      const platform = await test.api('POST', `${path}/versions/1.0.0/platforms`, { body: doc('registry-provider-platforms', { os: 'linux', arch, shasum: sha256(bytes), filename }) })
      const response = await putFile(platform.body.data.links['provider-binary-upload'] as string, bytes)
      expect(response.status).toBe(422)
      expect(response.body?.errors?.[0]?.detail).toMatch(arch === 'amd64' ? /has no file terraform-provider-shapes at its root/ : /has a directory entry, "extra\/"/)
    }
  })

  it('refuses a signature by a key the namespace does not have', async () => {
    const stranger = await makeSigningKey('Unknown')
    const release = await providerRelease('unsigned', '1.0.0', ['linux_amd64'], stranger)
    await test.api('POST', PROVIDERS, { body: doc('registry-providers', { name: 'unsigned', namespace: 'acme', 'registry-name': 'private' }) })
    const version = await test.api('POST', `${PROVIDERS}/private/acme/unsigned/versions`, { body: doc('registry-provider-versions', { version: '1.0.0', 'key-id': stranger.keyId }) })
    expect((await putFile(version.body.data.links['shasums-upload'] as string, release.shasums)).status).toBe(200)
    const response = await putFile(version.body.data.links['shasums-sig-upload'] as string, release.signature)
    expect(response.status).toBe(422)
    expect(response.body?.errors?.[0]?.detail).toMatch(new RegExp(`has no GPG key ${stranger.keyId}`))
  })
})

describe('what HashiCorp’s client sends, and what teams may do', () => {
  it('accepts go-tfe’s empty data.type and null protocols, and names registry-name’s problems', async () => {
    await test.api('POST', PROVIDERS, { body: doc('registry-providers', { name: 'gotfe', namespace: 'acme', 'registry-name': 'private' }) })
    const version = await test.api('POST', `${PROVIDERS}/private/acme/gotfe/versions`, {
      body: { data: { type: '', attributes: { version: '1.0.0', 'key-id': 'abcdefg', protocols: null } } }
    })
    expect(version.status).toBe(201)
    expect(version.body.data.attributes).toMatchObject({ 'key-id': 'abcdefg', protocols: [] })
    const platform = await test.api('POST', `${PROVIDERS}/private/acme/gotfe/versions/1.0.0/platforms`, {
      body: { data: { type: '', attributes: { os: 'linux', arch: 'amd64', shasum: 'shasum', filename: 'filename' } } }
    })
    expect(platform.status).toBe(201)
    expect(platform.body.data.attributes).toMatchObject({ shasum: 'shasum', filename: 'filename', 'provider-binary-uploaded': false })
    expect(platform.body.data.links['provider-binary-upload']).toMatch(/\/archivist\/v1\/object\/provpltfrm-/)
    const blank = await test.api('POST', PROVIDERS, { body: doc('registry-providers', { name: 'x', namespace: 'acme' }) })
    // go-tfe's tests expect HCP's two errors for a blank name, and only the second for another.
    expect(blank.body.errors).toEqual([
      { status: '422', code: 'invalid-attribute', title: 'invalid attribute', detail: "Registry name can't be blank", source: { pointer: '/data/attributes/registry-name' } },
      { status: '422', code: 'invalid-attribute', title: 'invalid attribute', detail: 'Registry name is not included in the list', source: { pointer: '/data/attributes/registry-name' } }
    ])
    const invalid = await test.api('POST', PROVIDERS, { body: doc('registry-providers', { name: 'x', namespace: 'acme', 'registry-name': 'invalid' }) })
    expect(invalid.body.errors.map((error: { detail: string }) => error.detail)).toEqual(['Registry name is not included in the list'])
  })

  it('explains why an organization named with "_" cannot publish providers Terraform could install', async () => {
    await createOrganization(test, 'acme_corp')
    const response = await test.api('POST', '/organizations/acme_corp/registry-providers', { body: doc('registry-providers', { name: 'widget', namespace: 'acme_corp', 'registry-name': 'private' }) })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].detail).toMatch(/Terraform cannot install providers from the namespace "acme_corp".*Rename the organization \(for example to "acme-corp"\)/)
  })

  it('lets every team read, teams that manage modules publish, and others see nothing', async () => {
    const reader = await createTeamWithToken(test, 'acme', 'provider-readers')
    const stranger = await createTeamWithToken(test, 'other', 'provider-strangers', true)
    const path = `${PROVIDERS}/private/acme/widget`
    expect((await test.api('GET', path, { token: reader.token })).status).toBe(200)
    expect((await test.api('GET', path, { token: stranger.token })).status).toBe(404)
    expect((await test.api('DELETE', path, { token: reader.token })).status).toBe(404)
    const created = await test.api('POST', `${path}/versions`, { token: reader.token, body: doc('registry-provider-versions', { version: '5.0.0', 'key-id': key.keyId }) })
    expect(created.status).toBe(404)
    // A read-only team sees no upload link.
    await test.api('POST', `${path}/versions`, { body: doc('registry-provider-versions', { version: '5.0.0', 'key-id': key.keyId }) })
    const asReader = await test.api('GET', `${path}/versions/5.0.0`, { token: reader.token })
    expect(asReader.body.data.links).toEqual({})
    expect(asReader.body.data.attributes.permissions).toEqual({ 'can-delete': false, 'can-upload-asset': false, 'can-deprecate': false })
    // Through the protocol too: a reader installs, a stranger finds nothing.
    expect((await protocol('acme/widget/versions', reader.token)).status).toBe(200)
    expect((await protocol('acme/widget/versions', stranger.token)).status).toBe(404)
    expect((await protocol('acme/widget/versions', null)).status).toBe(401)
  })
})

describe('deprecating a private provider version (Homeport’s own, in HCP’s lifecycle shape)', () => {
  const deprecate = (path: string, deprecation: Record<string, unknown>, token = test.adminToken) =>
    test.api('PATCH', path, { token, body: doc('registry-provider-versions', { deprecation }) })

  it('keeps the version offered and says why in the versions list’s warnings, which Terraform prints', async () => {
    await publishProvider(test, 'acme', await providerRelease('sunset', '1.0.0', ['linux_amd64'], key), key)
    await publishProvider(test, 'acme', await providerRelease('sunset', '2.0.0', ['linux_amd64'], key), key)
    const path = `${PROVIDERS}/private/acme/sunset/versions/1.0.0`
    expect((await protocol('acme/sunset/versions')).body.warnings).toBeUndefined()

    const changed = await deprecate(path, { 'deprecated-status': 'Deprecated', reason: '  The v1 API is retired; move to 2.x.  ', link: 'https://example.com/sunset/upgrade' })
    expect(changed.status).toBe(200)
    expect(changed.body.data.attributes.deprecation).toMatchObject({
      'deprecated-status': 'Deprecated',
      reason: 'The v1 API is retired; move to 2.x.',
      link: 'https://example.com/sunset/upgrade',
      'deprecated-by': 'the site admin'
    })
    const listed = (await protocol('acme/sunset/versions')).body
    expect(listed.versions.map((version: { version: string }) => version.version).sort()).toEqual(['1.0.0', '2.0.0'])
    expect(listed.warnings).toEqual(['acme/sunset 1.0.0 is deprecated: The v1 API is retired; move to 2.x. (https://example.com/sunset/upgrade)'])
    expect((await protocol('acme/sunset/1.0.0/download/linux/amd64')).status).toBe(200)

    const back = await deprecate(path, { 'deprecated-status': 'Undeprecated' })
    expect(back.body.data.attributes.deprecation).toBeNull()
    expect((await protocol('acme/sunset/versions')).body.warnings).toBeUndefined()
  })

  it('refuses what it cannot keep, saying which field, and lets only those who publish deprecate', async () => {
    const path = `${PROVIDERS}/private/acme/sunset/versions/2.0.0`
    const noReason = await deprecate(path, { 'deprecated-status': 'Deprecated', reason: ' ' })
    expect(noReason.status).toBe(422)
    expect(noReason.body.errors[0].detail).toBe('Say why (reason): consumers see it.')
    expect((await deprecate(path, { 'deprecated-status': 'Deprecated', reason: 'x', link: 'ftp://example.com' })).status).toBe(422)
    expect((await deprecate(path, { 'deprecated-status': 'Gone' })).body.errors[0].source).toEqual({ pointer: '/data/attributes/deprecation/deprecated-status' })
    const empty = await test.api('PATCH', path, { body: doc('registry-provider-versions', {}) })
    expect(empty.status).toBe(422)
    expect(empty.body.errors[0].source).toEqual({ pointer: '/data/attributes/deprecation' })
    expect((await deprecate(`${PROVIDERS}/private/acme/sunset/versions/9.9.9`, { 'deprecated-status': 'Undeprecated' })).status).toBe(404)

    // A version still waiting for its files is not offered, so there is nothing to deprecate.
    await test.api('POST', `${PROVIDERS}/private/acme/sunset/versions`, { body: doc('registry-provider-versions', { version: '3.0.0', 'key-id': key.keyId, protocols: ['5.0'] }) })
    const pending = await deprecate(`${PROVIDERS}/private/acme/sunset/versions/3.0.0`, { 'deprecated-status': 'Deprecated', reason: 'never mind' })
    expect(pending.status).toBe(422)
    expect(pending.body.errors[0].detail).toMatch(/^Version 3\.0\.0 is not published yet/)

    const reader = await createTeamWithToken(test, 'acme', 'sunset-readers')
    expect((await deprecate(path, { 'deprecated-status': 'Deprecated', reason: 'no' }, reader.token)).status).toBe(404)
    const publisher = await createTeamWithToken(test, 'acme', 'sunset-publishers', true)
    const byTeam = await deprecate(path, { 'deprecated-status': 'Deprecated', reason: 'Superseded by 3.x.' }, publisher.token)
    expect(byTeam.body.data.attributes.deprecation['deprecated-by']).toBe('team sunset-publishers')
  })
})

describe('GPG keys', () => {
  it('are added per namespace, their id computed, listed by namespace, moved and deleted', async () => {
    const KEYS = '/api/registry/private/v2/gpg-keys'
    const created = await test.api('POST', KEYS, { body: doc('gpg-keys', { namespace: 'other', 'ascii-armor': key.publicArmor }) })
    expect(created.status).toBe(201)
    expect(created.body.data.attributes).toMatchObject({ 'ascii-armor': key.publicArmor, 'key-id': key.keyId, namespace: 'other', source: '', 'trust-signature': '', 'source-url': null })
    // The same key in two organizations, once in each.
    expect((await test.api('POST', KEYS, { body: doc('gpg-keys', { namespace: 'other', 'ascii-armor': key.publicArmor }) })).status).toBe(422)
    // Both spellings of the namespace filter.
    const comma = await test.api('GET', `${KEYS}?filter[namespace]=acme,other`)
    const repeated = await test.api('GET', `${KEYS}?filter%5Bnamespace%5D=acme&filter%5Bnamespace%5D=other`)
    expect(comma.body.data.map((item: { attributes: { namespace: string } }) => item.attributes.namespace).sort()).toEqual(['acme', 'other'])
    expect(repeated.body.data).toHaveLength(2)
    expect((await test.api('GET', KEYS)).status).toBe(400)
    expect((await test.api('GET', `${KEYS}/other/FOOBAR`)).status).toBe(404)
    expect((await test.api('POST', KEYS, { body: doc('gpg-keys', { namespace: 'other', 'ascii-armor': 'not a key' }) })).status).toBe(422)

    const publisher = await createTeamWithToken(test, 'other', 'key-movers', true)
    const moved = await test.api('PATCH', `${KEYS}/other/${key.keyId}`, { token: publisher.token, body: doc('gpg-keys', { namespace: 'acme' }) })
    expect(moved.status).toBe(403)
    expect(moved.body.errors[0].detail).toMatch(/namespace not authorized/)
    await createOrganization(test, 'third')
    const movedByAdmin = await test.api('PATCH', `${KEYS}/other/${key.keyId}`, { body: doc('gpg-keys', { namespace: 'third' }) })
    expect(movedByAdmin.body.data.attributes).toMatchObject({ namespace: 'third', 'key-id': key.keyId })
    expect((await test.api('GET', `${KEYS}/third/${key.keyId}`)).status).toBe(200)
    expect((await test.api('DELETE', `${KEYS}/third/${key.keyId}`)).status).toBe(204)
    expect((await test.api('GET', `${KEYS}/third/${key.keyId}`)).status).toBe(404)
  })
})
