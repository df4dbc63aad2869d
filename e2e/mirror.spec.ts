import { expect, test } from './support/fixtures'
import { createHash } from 'node:crypto'
import { zipSync } from 'fflate'
import { E2E_ADMIN_TOKEN } from '../playwright.config'
import { signIn } from './support/session'

test('shows the public provider mirror, says in the server’s words why mirroring fails offline, and marks an imported package unsigned', async ({ page }) => {
  await signIn(page)
  await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Mirror' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Public provider mirror' })).toBeVisible()
  await expect(page.getByText('Nothing mirrored yet')).toBeVisible()
  const form = page.getByRole('form', { name: 'Mirror a provider' })
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
  await page.reload()
  const table = page.getByRole('region', { name: 'Mirrored providers' })
  await expect(table.getByRole('row', { name: /hashicorp\/null.*3\.2\.3.*linux_amd64 \(unsigned\).*network mirror only/ })).toBeVisible()
  await page.screenshot({ path: 'docs/screenshots/mirror.png' })
})
