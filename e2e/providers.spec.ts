import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeSigningKey, providerRelease, publishProvider } from '../tests/helpers/providers'
import { adminApi } from './support/admin-api'
import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { E2E_ADMIN_TOKEN } from '../playwright.config'
import { openOrganization, signIn } from './support/session'
import { docsScreenshot } from './support/screenshots'
import { testFolder } from './support/test-folder'

test('adds a signing key, publishes a provider release from its folder, and shows the provider’s page with its usage', async ({ page }) => {
  const key = await makeSigningKey('E2E Providers')
  const release = await providerRelease('dns', '1.4.0', ['linux_amd64', 'darwin_arm64'], key)
  // The release folder as goreleaser writes it.
  const dist = testFolder('dist')
  const sums = join(dist, 'terraform-provider-dns_1.4.0_SHA256SUMS')
  writeFileSync(sums, release.shasums)
  writeFileSync(`${sums}.sig`, release.signature)
  const manifest = join(dist, 'terraform-provider-dns_1.4.0_manifest.json')
  writeFileSync(manifest, JSON.stringify({ version: 1, metadata: { protocol_versions: ['6.0'] } }))
  for (const [name, zip] of release.zips) writeFileSync(join(dist, name), zip.bytes)

  await signIn(page)
  await openOrganization(page, 'edge-providers')
  const sections = page.getByRole('navigation', { name: 'Sections' })
  // Without a key, publishing says where to add one, with a link there.
  await sections.getByRole('link', { name: 'Providers' }).click()
  await page.getByLabel(/^Release files/).setInputFiles([sums, `${sums}.sig`, manifest, ...[...release.zips.keys()].map((name) => join(dist, name))])
  await page.getByRole('alert').getByRole('link', { name: 'Settings → GPG keys' }).click()
  await page.getByLabel(/^Public key/).fill(key.publicArmor)
  await page.getByRole('button', { name: 'Add key' }).click()
  await expect(page.getByRole('region', { name: 'GPG keys' }).getByText(key.keyId)).toBeVisible()

  await sections.getByRole('link', { name: 'Providers' }).click()
  await expect(page.getByText('No providers yet')).toBeVisible()
  await page.getByLabel(/^Release files/).setInputFiles([sums, `${sums}.sig`, manifest, ...[...release.zips.keys()].map((name) => join(dist, name))])
  await expect(page.getByText('terraform-provider-dns 1.4.0')).toBeVisible()
  await page.getByRole('button', { name: 'Publish dns 1.4.0' }).click()
  const status = page.getByRole('list', { name: 'Publishing status' })
  await expect(status.getByText('darwin_arm64 zip: done')).toBeVisible({ timeout: 20_000 })
  // Done is said, with a link to what was published, and not offered again (a second press only met "already exists").
  await expect(page.getByRole('status').filter({ hasText: 'Published dns 1.4.0.' }).getByRole('link', { name: 'See edge-providers/dns 1.4.0' })).toBeVisible()
  await expect(page.getByRole('button', { name: 'Publish dns 1.4.0' })).toHaveCount(0)
  await expect(page.getByRole('list', { name: 'Providers' })).toContainText('Latest 1.4.0')
  await page.getByRole('link', { name: 'dns', exact: true }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'dns' })).toBeVisible()
  await expect(page).toHaveTitle('edge-providers/dns · provider · Homeport')
  // What Terraform needs to know first: the latest version and its plugin protocol; each version's platforms and protocols below.
  await expect(page.getByRole('banner').or(page.locator('header')).first()).toContainText('latest 1.4.0, plugin protocol 6.0 (Terraform 1.0 and later)')
  await expect(page.getByRole('region', { name: 'Usage' }).getByLabel('Usage')).toHaveText(
    'terraform {\n  required_providers {\n    dns = {\n      source  = "homeport.localhost/edge-providers/dns"\n      version = "~> 1.4"\n    }\n  }\n}\n'
  )
  const provider = page.getByRole('region', { name: 'Versions' })
  await expect(provider.getByRole('cell', { name: /^1\.4\.0/ })).toBeVisible()
  await expect(provider.getByText('uploaded and checked')).toBeVisible()
  await expect(provider.getByText('linux_amd64', { exact: true })).toBeVisible()
  await expect(provider.getByRole('cell', { name: '6.0', exact: true })).toBeVisible()
  // The plugin protocols come from the release's manifest.
  const published = await page.request.get(`${new URL(page.url()).origin}/api/v2/organizations/edge-providers/registry-providers/private/edge-providers/dns/versions/1.4.0`, {
    headers: { Authorization: `Bearer ${E2E_ADMIN_TOKEN}` }
  })
  expect(((await published.json()) as { data: { attributes: { protocols: string[] } } }).data.attributes.protocols).toEqual(['6.0'])
  await docsScreenshot(page, 'providers.png', { fullPage: true })
  await expectAccessible(page, 'the provider’s page')
  await page.getByRole('link', { name: 'Providers', exact: true }).click()
  await expectAccessible(page, 'the Providers tab')

  // A signature by another key is refused in the server's words.
  const stranger = await makeSigningKey('Stranger')
  const forged = await providerRelease('dns', '1.5.0', ['linux_amd64'], stranger)
  const sums2 = join(dist, 'terraform-provider-dns_1.5.0_SHA256SUMS')
  writeFileSync(sums2, forged.shasums)
  writeFileSync(`${sums2}.sig`, forged.signature)
  for (const [name, zip] of forged.zips) writeFileSync(join(dist, name), zip.bytes)
  await page.getByLabel(/^Release files/).setInputFiles([sums2, `${sums2}.sig`, join(dist, 'terraform-provider-dns_1.5.0_linux_amd64.zip')])
  await page.getByRole('button', { name: 'Publish dns 1.5.0' }).click()
  await expect(status.getByRole('alert')).toContainText(/not a valid signature of SHA256SUMS by key/)
  // Nothing half-made is left: the version is taken back, and says so.
  await expect(status.getByRole('alert')).toContainText('Nothing of 1.5.0 was kept: publish it again once fixed.')
  // The steps after the refusal never ran: said so, none left "waiting".
  await expect(status.getByText('linux_amd64 zip: not done')).toBeVisible()
  await expect(status.getByText(/: waiting$/)).toHaveCount(0)
  await page.getByRole('link', { name: 'dns', exact: true }).click()
  await expect(page.getByRole('region', { name: 'Versions' }).getByRole('cell', { name: /^1\.5\.0/ })).toHaveCount(0)

  // Deleting the provider is the last thing on its page, and goes back to the list.
  await page.getByRole('region', { name: 'Delete dns' }).getByRole('button', { name: 'Delete dns' }).click()
  await page.getByRole('region', { name: 'Delete dns' }).getByRole('button', { name: 'Delete' }).click()
  await expect(page.getByText('No providers yet')).toBeVisible()
})

test('deprecates a provider version with its reason, which Terraform then prints, and takes it back', async ({ page }) => {
  await signIn(page)
  await openOrganization(page, 'edge-sunset')
  const key = await makeSigningKey('E2E Sunset')
  await publishProvider(adminApi(page), 'edge-sunset', await providerRelease('sunset', '1.0.0', ['linux_amd64'], key), key)
  const versions = () => page.request.get('/api/registry/v1/providers/edge-sunset/sunset/versions', { headers: { Authorization: `Bearer ${E2E_ADMIN_TOKEN}` } })

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Providers' }).click()
  await page.getByRole('link', { name: 'sunset', exact: true }).click()
  const provider = page.getByRole('region', { name: 'Versions' })
  await expect(provider.getByText('Offered to Terraform')).toBeVisible()
  await provider.getByRole('button', { name: 'Deprecate 1.0.0' }).click()
  const form = provider.getByRole('form', { name: 'Deprecate sunset 1.0.0' })
  await form.getByLabel('Why (Terraform prints it)').fill('1.x talks to the retired v1 API; move to 2.x.')
  await form.getByLabel('Link (optional)').fill('https://example.com/sunset/2.0')
  await form.getByRole('button', { name: 'Deprecate' }).click()
  await expect(provider.getByText('Deprecated', { exact: true })).toBeVisible()
  await expect(provider.getByText('1.x talks to the retired v1 API; move to 2.x.')).toBeVisible()
  expect(((await (await versions()).json()) as { warnings?: string[] }).warnings).toEqual([
    'edge-sunset/sunset 1.0.0 is deprecated: 1.x talks to the retired v1 API; move to 2.x. (https://example.com/sunset/2.0)'
  ])
  await expectAccessible(page, 'the provider’s page with a deprecated version')

  await provider.getByRole('button', { name: 'Undeprecate 1.0.0' }).click()
  await expect(provider.getByText('Offered to Terraform')).toBeVisible()
  expect(((await (await versions()).json()) as { warnings?: string[] }).warnings).toBeUndefined()
})
