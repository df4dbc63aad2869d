import { appendFileSync, cpSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from './support/fixtures'
import { openOrganization, signIn } from './support/session'

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

test.describe('publishing a module folder and reading it', () => {
  test('publishes a folder, watches it become ok, reads its inputs, copies its usage, deletes a version', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    await signIn(page)
    await openOrganization(page, 'acme')
    await expect(page.getByText('No modules yet')).toBeVisible()

    await page.getByRole('link', { name: 'Publish', exact: true }).click()
    await page.getByLabel('Module folder', { exact: true }).setInputFiles(fixture('terraform-aws-network'))
    // The folder's name gives the module; .terraformignore and .terraform/ leave files out.
    await expect(page.getByLabel('Module name')).toHaveValue('network')
    await expect(page.getByLabel('Provider')).toHaveValue('aws')
    await page.getByRole('button', { name: 'Show files' }).click()
    const included = page.getByRole('list', { name: 'Files to publish' })
    await expect(included.getByText('variables.tf')).toBeVisible()
    await expect(included.getByText('modules/subnet/main.tf')).toBeVisible()
    const excluded = page.getByRole('list', { name: 'Files left out' })
    await expect(excluded.getByText('local.auto.tfvars')).toBeVisible()
    await expect(excluded.getByText('.terraform/modules/modules.json')).toBeVisible()
    await page.screenshot({ path: 'docs/screenshots/publish.png', fullPage: true })

    await page.getByRole('button', { name: /^Publish acme\/network\/aws 1\.0\.0/ }).click()
    const status = page.getByLabel('Publishing status')
    await expect(status.getByText('published')).toBeVisible({ timeout: 20_000 })
    await status.getByRole('link', { name: 'Open the module' }).click()

    await expect(page.getByRole('heading', { level: 1, name: 'network', exact: true })).toBeVisible()
    await expect(page.locator('.markdown').getByRole('heading', { name: 'Network' })).toBeVisible()
    await page.getByRole('tab', { name: /Inputs/ }).click()
    const inputs = page.getByRole('tabpanel', { name: 'Inputs' })
    await expect(inputs.getByRole('row', { name: /region.*AWS region to deploy into.*us-east-1/ })).toBeVisible()
    await expect(inputs.getByRole('row', { name: /cidr_block.*required/ })).toBeVisible()
    await page.getByLabel('Module part').selectOption('modules/subnet')
    await expect(inputs.getByRole('row', { name: /vpc_id/ })).toBeVisible()
    await page.getByLabel('Module part').selectOption('')
    await page.screenshot({ path: 'docs/screenshots/module.png', fullPage: true })
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.screenshot({ path: 'docs/screenshots/module-dark.png' })
    await page.emulateMedia({ colorScheme: 'light' })

    await page.getByRole('button', { name: 'Copy usage' }).click()
    const usage = await page.evaluate(() => navigator.clipboard.readText())
    expect(usage).toContain('source  = "homeport.localhost/acme/network/aws"')
    expect(usage).toContain('version = "1.0.0"')

    // A second version through the same page, then the first one deleted.
    await page.getByRole('link', { name: 'acme' }).click()
    await page.getByRole('link', { name: 'Publish', exact: true }).click()
    await page.getByLabel('Module folder', { exact: true }).setInputFiles(fixture('terraform-aws-network'))
    await page.getByRole('button', { name: 'Use 1.0.1' }).click()
    await page.getByRole('button', { name: /^Publish acme\/network\/aws 1\.0\.1/ }).click()
    await expect(page.getByLabel('Publishing status').getByText('published')).toBeVisible({ timeout: 20_000 })
    await page.getByLabel('Publishing status').getByRole('link', { name: 'Open the module' }).click()
    const versions = page.getByRole('list', { name: 'Versions' })
    await expect(versions.getByRole('listitem')).toHaveCount(2)
    const first = versions.getByRole('listitem').filter({ hasText: '1.0.0' })
    await first.getByRole('button', { name: 'Delete' }).click()
    await first.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Delete' }).click()
    await expect(versions.getByRole('listitem')).toHaveCount(1)

    // Deprecating, then revoking, the version shown, in the publisher's words; then back.
    await page.getByRole('region', { name: 'Retire 1.0.1' }).getByRole('button', { name: 'Deprecate 1.0.1' }).click()
    await page.getByLabel('Why (users see it)').fill('Opens SSH to the world; upgrade to 1.1.0.')
    await page.getByLabel('Link (optional)').fill('https://example.com/advisories/7')
    await page.getByRole('button', { name: 'Deprecate', exact: true }).click()
    const deprecated = page.getByRole('region', { name: '1.0.1 is deprecated' })
    await expect(deprecated).toContainText('Opens SSH to the world; upgrade to 1.1.0.')
    await expect(deprecated).toContainText('Deprecated by the site admin')
    await expect(versions.getByText('deprecated', { exact: true })).toBeVisible()
    await deprecated.getByRole('button', { name: 'Revoke 1.0.1' }).click()
    await page.getByLabel('Message to users').fill('Deleted data in production.')
    await page.getByRole('button', { name: 'Revoke', exact: true }).click()
    const revoked = page.getByRole('region', { name: '1.0.1 is revoked' })
    await expect(revoked).toContainText('Deleted data in production.')
    await expect(revoked).toContainText('No token had downloaded it, so no one may install it now.')
    await expect(versions.getByText('revoked', { exact: true })).toBeVisible()
    await revoked.screenshot({ path: 'docs/screenshots/version-lifecycle.png' })
    await revoked.getByRole('button', { name: 'Unrevoke (back to deprecated)' }).click()
    await expect(page.getByRole('region', { name: '1.0.1 is deprecated' })).toBeVisible()

    // The module list finds it.
    await page.getByRole('link', { name: 'acme' }).click()
    const list = page.getByRole('list', { name: 'Module list' })
    await expect(list.getByRole('listitem')).toHaveCount(1)
    await page.getByLabel('Search modules by name, namespace or provider').fill('nothing-like-it')
    await expect(page.getByText('No module matches')).toBeVisible()
  })

  test('shows why an archive could not be ingested', async ({ page }) => {
    await signIn(page)
    await openOrganization(page, 'broken-things')
    await page.getByRole('link', { name: 'Publish', exact: true }).click()
    await page.getByLabel('Module archive').setInputFiles(fixture('broken.tar.gz'))
    await page.getByLabel('Module name').fill('broken')
    await page.getByLabel('Provider').fill('null')
    await page.getByRole('button', { name: /^Publish broken-things\/broken\/null 1\.0\.0/ }).click()
    const status = page.getByLabel('Publishing status')
    await expect(status.getByText('ingest failed')).toBeVisible({ timeout: 20_000 })
    await expect(status.getByText(/not a gzip-compressed tar archive/)).toBeVisible()
    await page.screenshot({ path: 'docs/screenshots/ingest-error.png' })
  })

  test('renders a README without running anything from it', async ({ page }) => {
    await signIn(page)
    // A link that merely starts like this server's URL (userinfo before an @) is another site's.
    const origin = new URL(page.url()).origin
    const folder = join(mkdtempSync(join(tmpdir(), 'homeport-e2e-')), 'terraform-null-hostile')
    cpSync(fixture('terraform-null-hostile'), folder, { recursive: true })
    appendFileSync(join(folder, 'README.md'), `\n[lookalike](${origin}@evil.example/phish)\n`)
    await openOrganization(page, 'hostile')
    await page.getByRole('link', { name: 'Publish', exact: true }).click()
    await page.getByLabel('Module folder', { exact: true }).setInputFiles(folder)
    await page.getByRole('button', { name: /^Publish hostile\/hostile\/null 1\.0\.0/ }).click()
    await page.getByLabel('Publishing status').getByRole('link', { name: 'Open the module' }).click()
    const readme = page.locator('.markdown')
    await expect(readme.getByText('Plain text survives.')).toBeVisible()
    await readme.getByText('click me').click()
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined()
    expect(await readme.locator('script, iframe, [onerror]').count()).toBe(0)
    const here = page.url()
    const opened = page.context().waitForEvent('page', { timeout: 5_000 }).catch(() => undefined)
    await readme.getByRole('link', { name: 'lookalike' }).click()
    // It opens outside the app (a new window; the desktop app hands it to the browser), never in Homeport's tab.
    await opened
    expect(page.url()).toBe(here)
  })
})

test.describe('teams and settings', () => {
  test('creates a team and shows its token once', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    await signIn(page)
    await openOrganization(page, 'acme')
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Teams' }).click()
    await page.getByLabel('New team').fill('ci')
    await page.getByLabel(/May publish modules/).check()
    await page.getByRole('button', { name: 'Create team' }).click()
    const row = page.getByRole('row', { name: /ci/ })
    await row.getByRole('button', { name: 'Create token' }).click()
    const token = page.getByLabel('New token')
    await expect(token).toHaveText(/^hp1\./)
    await page.screenshot({ path: 'docs/screenshots/teams.png' })
    await page.getByRole('status').getByRole('button', { name: 'Copy' }).click()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await token.textContent())
    await page.getByRole('button', { name: 'Done' }).click()
    await expect(token).toBeHidden()
    // Replacing a working token asks first.
    await row.getByRole('button', { name: 'Replace token' }).click()
    await expect(row.getByRole('group', { name: 'Confirm' })).toContainText('current token stops working at once')
    await row.getByRole('button', { name: 'Cancel' }).click()
    await expect(row.getByRole('button', { name: 'Replace token' })).toBeVisible()

    // The organization token, for the pipeline that publishes, valid until a chosen day.
    const section = page.getByRole('region', { name: 'Organization token' })
    await expect(section.getByText('None yet.')).toBeVisible()
    await section.getByLabel('Valid until (optional)').fill('2099-12-31')
    await section.getByRole('button', { name: 'Generate token' }).click()
    await expect(section.getByLabel('New organization token')).toHaveText(/^hp1\./)
    await expect(section.getByText(/expires Dec 31, 2099/)).toBeVisible()
    await section.screenshot({ path: 'docs/screenshots/organization-token.png' })
    await section.getByRole('button', { name: 'Done' }).click()
    await section.getByRole('button', { name: 'Delete token' }).click()
    await section.getByRole('button', { name: 'Delete' }).click()
    await expect(section.getByText('None yet.')).toBeVisible()
  })

  test('edits the organization and refuses a bad value in the server’s words', async ({ page }) => {
    await signIn(page)
    await openOrganization(page, 'settings-org')
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Settings' }).click()
    await page.getByLabel('Name', { exact: true }).fill('settings org')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await expect(page.getByRole('alert')).toContainText('is not a valid organization name')
    await expect(page.getByLabel('Name', { exact: true })).toHaveAttribute('aria-invalid', 'true')
    await page.getByLabel('Name', { exact: true }).fill('settings-org')
    await page.getByLabel('Admin e-mail').fill('owners@settings-org.example')
    await page.getByLabel('Session timeout (minutes)').fill('60')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await expect(page.getByRole('status')).toHaveText('Saved.')
    await page.screenshot({ path: 'docs/screenshots/settings.png', fullPage: true })
  })
})

test('downloads a backup from the settings page', async ({ page }) => {
  await signIn(page)
  await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Settings' }).click()
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Download a backup' }).click()
  expect((await download).suggestedFilename()).toMatch(/^homeport-backup-\d{4}-\d{2}-\d{2}\.tar\.gz$/)
})
