import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { E2E_ADMIN_TOKEN } from '../playwright.config'
import { openOrganization, signIn } from './support/session'
import { moduleArchive } from '../tests/helpers/archives'
import { makeSigningKey, providerRelease } from '../tests/helpers/providers'
import { docsScreenshot } from './support/screenshots'
import { testFolder } from './support/test-folder'

const MAIN_TF = `terraform {
  required_providers {
    time = {
      source  = "hashicorp/time"
      version = "~> 0.9"
    }
  }
}

module "network" {
  source  = "homeport.localhost/carriers/network/aws"
  version = "~> 1.0"
}
`

test('makes a bundle from a configuration folder with its progress, lists what cannot be had, and imports a bundle', async ({ page }) => {
  await signIn(page)
  await openOrganization(page, 'carriers')
  const origin = new URL(page.url()).origin
  const headers = { Authorization: `Bearer ${E2E_ADMIN_TOKEN}` }
  const json = { ...headers, 'Content-Type': 'application/vnd.api+json' }
  // What the configuration needs: a private module, and a public provider in the mirror (imported with its signing key).
  const modulePath = `${origin}/api/v2/organizations/carriers/registry-modules`
  expect((await page.request.post(modulePath, { headers: json, data: { data: { type: 'registry-modules', attributes: { name: 'network', provider: 'aws' } } } })).status()).toBe(201)
  const version = await page.request.post(`${modulePath}/private/carriers/network/aws/versions`, { headers: json, data: { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } } })
  const archive = await moduleArchive({ 'main.tf': 'variable "cidr" {\n  type = string\n}\n' })
  expect((await page.request.put((await version.json()).data.links.upload, { data: archive })).status()).toBe(200)
  await expect
    .poll(async () => (await (await page.request.get(`${modulePath}/private/carriers/network/aws/version?module_version=1.0.0`, { headers })).json()).data?.attributes.status)
    .toBe('ok')
  const key = await makeSigningKey('HashiCorp Stand-in')
  const release = await providerRelease('time', '0.9.1', ['linux_amd64', 'darwin_arm64'], key)
  const signed = await page.request.put(`${origin}/api/v2/admin/provider-mirror/releases/registry.terraform.io/hashicorp/time/0.9.1`, {
    headers: json,
    data: { data: { type: 'provider-releases', attributes: { shasums: release.shasums.toString(), 'shasums-signature': release.signature.toString('base64'), 'signing-key': key.publicArmor, protocols: ['5.0'] } } }
  })
  expect(signed.status()).toBe(201)
  for (const file of release.zips.values()) {
    const path = `registry.terraform.io/hashicorp/time/0.9.1/${file.os}_${file.arch}?hash=zh:${file.shasum}`
    expect((await page.request.put(`${origin}/api/v2/admin/provider-mirror/packages/${path}`, { headers: { ...headers, 'Content-Type': 'application/zip' }, data: file.bytes })).status()).toBe(201)
  }
  const folder = testFolder('configuration')
  writeFileSync(join(folder, 'main.tf'), MAIN_TF)

  await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Bundles' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Bundles' })).toBeVisible()
  await expect(page).toHaveTitle('Bundles · Homeport')
  const make = page.getByRole('form', { name: 'Make a bundle' })
  await make.getByLabel('From the registry of').selectOption('carriers')
  await make.getByLabel('Configuration folder', { exact: true }).setInputFiles(folder)
  await expect(make.getByRole('status').first()).toContainText('1 Terraform file.')
  await make.getByLabel('darwin_arm64').check()
  await make.getByRole('button', { name: 'Make bundle' }).click()
  const bundle = make.getByLabel('The bundle')
  await expect(bundle.getByRole('status')).toHaveText('Ready: 1 module version and 1 provider version for linux_amd64, darwin_arm64.', { timeout: 20_000 })
  await expect(bundle.getByRole('list', { name: 'Steps' })).toContainText('Fetching homeport.localhost/carriers/network/aws 1.0.0')
  await expect(bundle.getByRole('list').last()).toContainText('registry.terraform.io/hashicorp/time 0.9.1')
  await docsScreenshot(page, 'bundles.png', { fullPage: true })
  await expectAccessible(page, 'the Bundles page')
  const downloading = page.waitForEvent('download')
  await bundle.getByRole('button', { name: /^Download carriers-\d{4}-\d{2}-\d{2}\.hpbundle \(.+\)$/ }).click()
  const saved = join(folder, 'carriers.hpbundle')
  await (await downloading).saveAs(saved)
  expect(readFileSync(saved).subarray(0, 13).toString()).toBe('manifest.json')

  // What cannot be had is listed with the reason, and nothing is offered to download.
  await make.getByRole('button', { name: 'Remove' }).click()
  await make.getByLabel(/^Modules too/).fill('homeport.localhost/carriers/missing/aws ~> 1.0')
  await make.getByRole('button', { name: 'Make bundle' }).click()
  const failed = bundle.getByRole('alert')
  await expect(failed).toContainText('No bundle was written: 1 thing could not be resolved.', { timeout: 20_000 })
  await expect(failed).toContainText('module "module 1" in the list: homeport.localhost/carriers/missing/aws:')
  await expect(bundle.getByRole('button', { name: /^Download/ })).toHaveCount(0)

  // Import: the module removed meanwhile comes back from the bundle; the provider was here already.
  expect((await page.request.delete(`${modulePath}/private/carriers/network/aws`, { headers })).status()).toBe(204)
  const importing = page.getByRole('form', { name: 'Import a bundle' })
  await importing.getByLabel('Bundle', { exact: true }).setInputFiles(saved)
  await importing.getByRole('button', { name: 'Import' }).click()
  const report = importing.getByRole('status').last()
  await expect(report).toContainText('Imported. Public modules are curated by carriers.', { timeout: 20_000 })
  await expect(report).toContainText('Added: homeport.localhost/carriers/network/aws 1.0.0')
  await expect(report).toContainText('Already here: registry.terraform.io/hashicorp/time 0.9.1 (linux_amd64, darwin_arm64)')

  // A file that is not a bundle is refused in the server's words.
  const garbage = join(folder, 'garbage.hpbundle')
  writeFileSync(garbage, 'not a bundle')
  await importing.getByLabel('Bundle', { exact: true }).setInputFiles(garbage)
  await importing.getByRole('button', { name: 'Import' }).click()
  await expect(importing.getByRole('alert')).toContainText('This is not a Homeport bundle it can read')

  // The mirror is the whole server's: the mirror spec starts from an empty one.
  expect((await page.request.delete(`${origin}/api/v2/admin/provider-mirror/hashicorp/time/0.9.1`, { headers })).status()).toBe(204)
})
