import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Caller } from '../../src-main/server/domain/core/access.js'
import { InvalidInputError, NotFoundError } from '../../src-main/server/domain/core/errors.js'
import { offeredTo } from '../../src-main/server/domain/modules/versions/lifecycle.js'
import { ADMIN, domain, type Domain } from './domain.js'

let d: Domain
const at = { organization: 'acme', registryName: 'private', namespace: 'acme', name: 'vpc', provider: 'aws' }
beforeEach(async () => {
  d = await domain()
  await d.services.organizations.create(ADMIN, { name: 'acme', email: 'acme@example.com' })
  await d.services.modules.create(ADMIN, 'acme', { name: 'vpc', provider: 'aws' })
  const { view, version } = await d.services.modules.createVersion(ADMIN, at, { version: '1.0.0' })
  await d.upload(d.services.modules.uploadObjectId(ADMIN, view, version)!, { 'main.tf': 'variable "cidr" {}\n' })
  await d.background.close()
})
afterEach(() => d.close())

describe('the version lifecycle', () => {
  it('records who deprecated and revoked a version, keeps it for its existing users only, and reverts in order', async () => {
    const { versionLifecycle, registry } = d.services
    const publisher = await d.team('acme', 'publishers', true)
    const user: Caller = await d.team('acme', 'platform')
    const newcomer: Caller = await d.team('acme', 'newcomers')
    await registry.downloadToken(user, 'acme', 'vpc', 'aws', '1.0.0')

    await expect(versionLifecycle.change(publisher, at, '1.0.0', { revocation: 'Revoked', message: 'x', link: null })).rejects.toThrow(/Deprecate version 1\.0\.0 before revoking it/)
    const deprecated = await versionLifecycle.change(publisher, at, '1.0.0', { deprecation: 'Deprecated', reason: 'Old', link: 'https://example.com/why' })
    expect(deprecated.version.deprecation).toMatchObject({ reason: 'Old', link: 'https://example.com/why', by: 'team publishers' })
    const { version } = await versionLifecycle.change(publisher, at, '1.0.0', { revocation: 'Revoked', message: 'Broken', link: null })
    expect(version.revocation).toMatchObject({ message: 'Broken', by: 'team publishers', consumers: [`team:${(user as { teamId: string }).teamId}`] })
    expect(offeredTo(user, version)).toBe(true)
    expect(offeredTo(newcomer, version)).toBe(false)
    await expect(registry.downloadToken(newcomer, 'acme', 'vpc', 'aws', '1.0.0')).rejects.toThrow(/was revoked by its publisher \(Broken\)/)
    expect((await registry.versions(newcomer, 'acme', 'vpc', 'aws')).versions).toEqual([])

    await expect(versionLifecycle.change(publisher, at, '1.0.0', { deprecation: 'Undeprecated' })).rejects.toBeInstanceOf(InvalidInputError)
    await versionLifecycle.change(publisher, at, '1.0.0', { revocation: 'Unrevoked' })
    const reverted = await versionLifecycle.change(publisher, at, '1.0.0', { deprecation: 'Undeprecated' })
    expect(reverted.version).toMatchObject({ deprecation: null, revocation: null })
    // Readers cannot: the version is not theirs to change.
    await expect(versionLifecycle.change(newcomer, at, '1.0.0', { deprecation: 'Deprecated', reason: 'mine', link: null })).rejects.toBeInstanceOf(NotFoundError)
  })
})
