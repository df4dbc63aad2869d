import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { E2E_ADMIN_TOKEN } from '../playwright.config'
import { signIn } from './support/session'
import { docsScreenshot } from './support/screenshots'

test('shows the Terraform CLI configuration for this server, to copy or download', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await signIn(page)
  await page.evaluate(() => Object.assign(window, { sameDocument: true }))
  await page.getByRole('link', { name: 'Connect Terraform' }).click()
  await expect(page.getByRole('heading', { name: 'Connect Terraform' })).toBeVisible()
  // A real path, opened without a reload, and the one section marked current.
  await expect(page).toHaveURL(/\/terraform$/)
  expect(await page.evaluate(() => 'sameDocument' in window)).toBe(true)
  await expect(page.getByRole('navigation', { name: 'Homeport' }).locator('[aria-current="page"]')).toHaveText(['Connect Terraform'])
  // An address from before real paths opens the same view.
  await page.goto('/#/terraform')
  await expect(page).toHaveURL(/\/terraform$/)
  await expect(page.getByRole('heading', { name: 'Connect Terraform' })).toBeVisible()

  const config = page.getByLabel('Terraform CLI configuration')
  await expect(config).toContainText('host "homeport.localhost"')
  await expect(config).toContainText(`"modules.v1" = "${new URL(page.url()).origin}/api/registry/v1/modules/"`)
  // The token is masked until asked for.
  await expect(config).not.toContainText(E2E_ADMIN_TOKEN)
  await docsScreenshot(page, 'connect-terraform.png')
  await expectAccessible(page, 'Connect Terraform')
  await page.getByLabel('Show token').check()
  await expect(config).toContainText(`token = "${E2E_ADMIN_TOKEN}"`)
  // The air-gapped form points the public registries' names at this Homeport too.
  await expect(config).not.toContainText('host "registry.terraform.io"')
  await page.getByLabel('Air-gapped').check()
  await expect(config).toContainText('host "registry.terraform.io"')
  await expect(config).toContainText(`"providers.v1" = "${new URL(page.url()).origin}/api/registry/public/v1/providers/"`)
  await page.getByLabel('Show token').uncheck()
  await expect(config).not.toContainText(E2E_ADMIN_TOKEN)
  await page.getByLabel('Show token').check()

  await page.getByRole('button', { name: 'Copy' }).first().click()
  await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`credentials "homeport.localhost"`)

  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Download homeport.tfrc' }).click()
  expect((await download).suggestedFilename()).toBe('homeport.tfrc')

  // OpenTofu's own file: the same host blocks; its mirrors need HTTPS, which this server does not serve.
  await page.getByLabel('OpenTofu: Registry protocol').check()
  const tofu = page.getByLabel('OpenTofu CLI configuration')
  await expect(tofu).toContainText('# OpenTofu CLI configuration for Homeport')
  await expect(tofu).toContainText('host "registry.opentofu.org"')
  await expect(page.getByRole('button', { name: 'Download homeport.tofurc' })).toBeEnabled()
  await page.getByLabel('OpenTofu: OCI mirror (HTTPS)').check()
  await expect(page.getByRole('alert')).toContainText('OpenTofu reads an OCI registry over HTTPS only')
  await expect(page.getByRole('button', { name: 'Download homeport.tofurc' })).toBeDisabled()
  await expectAccessible(page, 'Connect Terraform, OpenTofu over OCI')

  // A team token in the file instead of the signed-in one (the site admin's here).
  await page.getByLabel('Terraform', { exact: true }).check()
  await page.getByLabel('Token in the file').fill('hp1.a-team-token-that-only-reads')
  await expect(config).toContainText('token = "hp1.a-team-token-that-only-reads"')
  await expect(config).not.toContainText(E2E_ADMIN_TOKEN)
})
