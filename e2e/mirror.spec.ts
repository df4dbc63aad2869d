import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { createHash } from 'node:crypto'
import { zipSync } from 'fflate'
import { E2E_ADMIN_TOKEN } from '../playwright.config'
import { signIn } from './support/session'
import { makeSigningKey, providerRelease } from '../tests/helpers/providers'
import { docsScreenshot } from './support/screenshots'

test('shows the public provider mirror, says in the server’s words why mirroring fails offline, marks an imported package unsigned, keeps each public registry’s copy apart, and removes a version', async ({ page }) => {
  await signIn(page)
  await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Mirror' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Public provider mirror' })).toBeVisible()
  await expect(page.getByText('Nothing mirrored yet')).toBeVisible()
  const form = page.getByRole('form', { name: 'Mirror a provider' })
  await form.getByLabel('Public registry').selectOption('registry.opentofu.org')
  await form.getByLabel('Provider (namespace/type)').fill('hashicorp/null')
  await form.getByLabel(/^Versions/).fill('~> 3.2')
  await form.getByLabel('darwin_arm64').check()
  await form.getByRole('button', { name: 'Mirror' }).click()
  // The test machines reach no public registry: the answer says so, in words.
  await expect(form.getByRole('alert')).toContainText(/cannot be reached|offline/, { timeout: 20_000 })

  // A package imported from a `terraform providers mirror` folder (as `homeport import-providers` sends it) is listed, marked unsigned.
  const zip = zipSync({ 'terraform-provider-null_v3.2.3': new TextEncoder().encode('#!/bin/sh\nexit 1\n') })
  const zh = `zh:${createHash('sha256').update(zip).digest('hex')}`
  const imported = await page.request.put(`${new URL(page.url()).origin}/api/v2/admin/provider-mirror/packages/registry.terraform.io/hashicorp/null/3.2.3/linux_amd64?hash=${zh}`, {
    headers: { Authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'Content-Type': 'application/zip' },
    data: Buffer.from(zip)
  })
  expect(imported.status()).toBe(201)

  // A release folder imported with the key that signed it (as `homeport import-providers --key` sends it) is listed signed,
  // into the mirror of the public registry it names: each registry's copy is kept apart.
  const key = await makeSigningKey('HashiCorp Stand-in')
  const release = await providerRelease('random', '3.6.0', ['linux_amd64', 'darwin_arm64'], key)
  const origin = new URL(page.url()).origin
  const headers = { Authorization: `Bearer ${E2E_ADMIN_TOKEN}` }
  for (const registry of ['registry.terraform.io', 'registry.opentofu.org']) {
    const signed = await page.request.put(`${origin}/api/v2/admin/provider-mirror/releases/${registry}/hashicorp/random/3.6.0`, {
      headers: { ...headers, 'Content-Type': 'application/vnd.api+json' },
      data: { data: { type: 'provider-releases', attributes: { shasums: release.shasums.toString(), 'shasums-signature': release.signature.toString('base64'), 'signing-key': key.publicArmor, protocols: ['5.0'] } } }
    })
    expect(signed.status()).toBe(201)
    for (const [name, file] of release.zips) {
      const path = `${registry}/hashicorp/random/3.6.0/${file.os}_${file.arch}?hash=zh:${file.shasum}`
      expect((await page.request.put(`${origin}/api/v2/admin/provider-mirror/packages/${path}`, { headers: { ...headers, 'Content-Type': 'application/zip' }, data: file.bytes })).status(), name).toBe(201)
    }
  }

  await page.reload()
  const table = page.getByRole('region', { name: 'Mirrored providers' })
  const unsigned = table.getByRole('row', { name: /registry\.terraform\.io\/hashicorp\/null.*3\.2\.3.*linux_amd64 \(unsigned\).*network mirror only/ })
  await expect(unsigned).toBeVisible()
  const random = (registry: string) => table.getByRole('row', { name: new RegExp(`${registry.replaceAll('.', '\\.')}/hashicorp/random.*3\\.6\\.0.*linux_amd64.*darwin_arm64.*${key.keyId}`) })
  await expect(random('registry.terraform.io')).toBeVisible()
  await expect(random('registry.opentofu.org')).toBeVisible()
  await docsScreenshot(page, 'mirror.png')
  await expectAccessible(page, 'the Mirror page')

  // Removing a version asks first, then takes it away.
  await unsigned.getByRole('button', { name: 'Remove 3.2.3' }).click()
  await expect(unsigned.getByRole('group', { name: 'Confirm' })).toContainText('Remove registry.terraform.io/hashicorp/null 3.2.3 and its files?')
  await unsigned.getByRole('button', { name: 'Delete' }).click()
  await expect(table.getByText('hashicorp/null')).toHaveCount(0)
  // Removing OpenTofu's registry's copy leaves Terraform's.
  await random('registry.opentofu.org').getByRole('button', { name: 'Remove 3.6.0' }).click()
  await random('registry.opentofu.org').getByRole('button', { name: 'Delete' }).click()
  await expect(random('registry.opentofu.org')).toHaveCount(0)
  await expect(random('registry.terraform.io')).toBeVisible()

  // A mirrored provider has a page: its usage, and its docs (none for an imported release: they come from the registry's docs API when mirrored online).
  await random('registry.terraform.io').getByRole('link', { name: 'registry.terraform.io/hashicorp/random' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'random' })).toBeVisible()
  await expect(page).toHaveTitle('registry.terraform.io/hashicorp/random · provider · Homeport')
  await expect(page.getByRole('region', { name: 'Usage' }).getByLabel('Usage')).toContainText('source  = "hashicorp/random"')
  await expect(page.getByRole('region', { name: 'Documentation' })).toContainText('No documentation was kept for this version')
  await expectAccessible(page, 'a mirrored provider’s page')
})
