import { appendFileSync, cpSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from './support/fixtures'
import { expectAccessible } from './support/axe'
import { openOrganization, signIn, teamToken } from './support/session'
import { docsScreenshot } from './support/screenshots'

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

test.describe('publishing a module folder and reading it', () => {
  test('publishes a folder, watches it become ok, reads its inputs, copies its usage, deletes a version', async ({ page, context }) => {
    // A whole journey, with axe run in light and dark at each of its screens: 25 s on a quiet 2-core machine.
    test.setTimeout(90_000)
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
    await docsScreenshot(page, 'publish.png', { fullPage: true })
    await expectAccessible(page, 'the Publish form')

    await page.getByRole('button', { name: /^Publish acme\/network\/aws 1\.0\.0/ }).click()
    const status = page.getByLabel('Publishing status')
    await expect(status.getByText('published')).toBeVisible({ timeout: 20_000 })
    // A toast says so too, in view whatever is scrolled, with a way to it; it can be dismissed.
    const toast = page.getByTestId('toast')
    await expect(toast).toContainText(/^Published acme\/network\/aws \S+\./)
    await expect(toast.getByRole('link', { name: 'Open it' })).toBeVisible()
    await toast.getByRole('button', { name: /^Dismiss/ }).click()
    await expect(toast).toHaveCount(0)
    await status.getByRole('link', { name: 'Open the module' }).click()

    await expect(page.getByRole('heading', { level: 1, name: 'network', exact: true })).toBeVisible()
    await expect(page.locator('.markdown').getByRole('heading', { name: 'Network' })).toBeVisible()
    // Each page has its own title, and focus moves to the page opened.
    await expect(page).toHaveTitle('acme/network/aws 1.0.0 · Homeport')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main')
    // The documentation tabs follow the tab pattern: arrows move between them.
    await page.getByRole('tab', { name: /Readme/ }).focus()
    await page.keyboard.press('ArrowRight')
    await expect(page.getByRole('tab', { name: /Inputs/ })).toBeFocused()
    await expect(page.getByRole('tab', { name: /Inputs/ })).toHaveAttribute('aria-selected', 'true')
    await page.keyboard.press('ArrowLeft')
    await expect(page.getByRole('tab', { name: /Readme/ })).toHaveAttribute('aria-selected', 'true')
    await page.getByRole('tab', { name: /Inputs/ }).click()
    const inputs = page.getByRole('tabpanel', { name: 'Inputs' })
    // Required and optional apart, each with its type, description and default.
    const optional = inputs.getByRole('region', { name: 'Optional inputs' })
    await expect(optional).toContainText('region')
    await expect(optional).toContainText('AWS region to deploy into')
    await expect(optional).toContainText('"us-east-1"')
    await expect(inputs.getByRole('region', { name: 'Required inputs' })).toContainText('cidr_block')
    await inputs.getByLabel('Filter inputs by name or description').fill('cidr')
    await expect(optional).toHaveCount(0)
    await inputs.getByLabel('Filter inputs by name or description').fill('')
    await page.getByLabel('Submodule').selectOption('modules/subnet')
    await expect(inputs.getByText('vpc_id', { exact: true })).toBeVisible()
    // The usage follows the part chosen.
    await expect(page.getByLabel('Usage')).toContainText('source  = "homeport.localhost/acme/network/aws//modules/subnet"')
    await expect(page.getByLabel('Usage')).toContainText('module "subnet" {')
    await page.getByLabel('Submodule').selectOption('')
    await docsScreenshot(page, 'module.png', { fullPage: true })
    await expectAccessible(page, 'a module page')
    await page.emulateMedia({ colorScheme: 'dark' })
    await docsScreenshot(page, 'module-dark.png')
    await page.emulateMedia({ colorScheme: 'light' })

    // The usage carries the required inputs, typed placeholders until the user fills them in (terrareg's builder).
    await expect(page.getByLabel('Usage')).toContainText('cidr_block = "" # string')
    await page.getByText('Fill in the 1 required input').click()
    await page.getByLabel(/^cidr_block/).fill('10.0.0.0/16')
    await expect(page.getByLabel('Usage')).toContainText('cidr_block = "10.0.0.0/16"')
    await page.getByRole('button', { name: 'Copy usage' }).click()
    const usage = await page.evaluate(() => navigator.clipboard.readText())
    expect(usage).toContain('source  = "homeport.localhost/acme/network/aws"')
    expect(usage).toContain('version = "1.0.0"')
    expect(usage).toContain('  # Required inputs\n  cidr_block = "10.0.0.0/16"\n}')

    // A second version through the same page, then the first one deleted.
    await page.getByRole('link', { name: 'acme' }).click()
    await page.getByRole('link', { name: 'Publish', exact: true }).click()
    await page.getByLabel('Module folder', { exact: true }).setInputFiles(fixture('terraform-aws-network'))
    // The next patch is proposed (not 1.0.0 again); the next minor and major are offered, and an existing version is called one.
    const versionField = page.getByLabel('Version', { exact: true })
    await expect(versionField).toHaveValue('1.0.1')
    await expect(page.getByRole('button', { name: '1.1.0', exact: true })).toBeVisible()
    await versionField.fill('1.0.0')
    await expect(page.getByText('1.0.0 exists already: a published version never changes. Pick a new one.')).toBeVisible()
    await page.getByRole('button', { name: '1.0.1', exact: true }).click()
    await page.getByRole('button', { name: /^Publish acme\/network\/aws 1\.0\.1/ }).click()
    // The form gives way to the progress, which takes the focus: no alert that the version now exists, no second Publish.
    const publishing = page.getByLabel('Publishing status')
    await expect(publishing.getByText('published')).toBeVisible({ timeout: 20_000 })
    await expect(publishing).toBeFocused()
    await expect(page.getByRole('alert')).toHaveCount(0)
    await expect(page.getByRole('button', { name: /^Publish acme\/network\/aws/ })).toHaveCount(0)
    // The next version of the same folder is one click away, the next patch proposed.
    await publishing.getByRole('button', { name: 'Publish another version' }).click()
    await expect(versionField).toHaveValue('1.0.2')
    await page.goto('/orgs/acme/modules/private/acme/network/aws')
    const versions = page.getByRole('list', { name: 'Versions' })
    await expect(versions.getByRole('listitem')).toHaveCount(2)
    const first = versions.getByRole('listitem').filter({ hasText: '1.0.0' })
    // Escape takes a confirmation back.
    await first.getByRole('button', { name: 'Delete' }).click()
    await page.keyboard.press('Escape')
    await expect(first.getByRole('group', { name: 'Confirm' })).toHaveCount(0)
    await first.getByRole('button', { name: 'Delete' }).click()
    await first.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Delete' }).click()
    await expect(versions.getByRole('listitem')).toHaveCount(1)
    // Each Delete names its version; after one, the focus is on the list's heading, not lost to the page.
    await expect(versions.getByRole('button', { name: 'Delete 1.0.1', exact: true })).toBeVisible()
    await expect(page.getByRole('heading', { name: 'Versions', exact: true })).toBeFocused()

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
    // What users were told at the deprecation is offered as the message, to edit.
    await expect(page.getByLabel('Message to users')).toHaveValue('Opens SSH to the world; upgrade to 1.1.0.')
    await expect(page.getByLabel('Link (optional)')).toHaveValue('https://example.com/advisories/7')
    await page.getByLabel('Message to users').fill('Deleted data in production.')
    await page.getByRole('button', { name: 'Revoke', exact: true }).click()
    const revoked = page.getByRole('region', { name: '1.0.1 is revoked' })
    await expect(revoked).toContainText('Deleted data in production.')
    await expect(revoked).toContainText('No token had downloaded it, so no one may install it now.')
    await expect(versions.getByText('revoked', { exact: true })).toBeVisible()
    // The usage no longer offers it: there is no other version, so nothing to copy.
    await expect(page.getByRole('note')).toHaveText('1.0.1 is revoked: Terraform installs it for no one new. No version of this module can be installed by someone new.')
    await expect(page.getByRole('button', { name: 'Copy usage' })).toHaveCount(0)
    await docsScreenshot(revoked, 'version-lifecycle.png')
    await revoked.getByRole('button', { name: 'Unrevoke (back to deprecated)' }).click()
    await expect(page.getByRole('region', { name: '1.0.1 is deprecated' })).toBeVisible()

    // The module list finds it.
    await page.getByRole('link', { name: 'acme' }).click()
    const list = page.getByRole('list', { name: 'Module list' })
    await expect(list.getByRole('listitem')).toHaveCount(1)
    // Each row says what the module is (its README's first paragraph), its latest version, and is one row tall.
    await expect(list.getByRole('listitem')).toContainText('Creates a VPC with public and private subnets')
    await expect(list.getByRole('listitem')).toContainText('v1.0.1')
    expect((await list.boundingBox())!.height).toBeLessThan(120)
    await expectAccessible(page, 'the module list')
    await page.getByLabel('Search modules by name, namespace, provider or description').fill('nothing-like-it')
    await expect(page.getByText('No module matches')).toBeVisible()
    // Nothing to publish from here: the way back is to clear the filters.
    await expect(page.getByRole('link', { name: 'Publish a module folder' })).toHaveCount(0)
    await page.getByRole('button', { name: 'Clear the filters' }).click()
    await expect(page.getByLabel('Search modules by name, namespace, provider or description')).toHaveValue('')
    await expect(list.getByRole('listitem')).toHaveCount(1)
    // The search lives in the address: a module opened from it, then Back, finds it again.
    await page.getByLabel('Search modules by name, namespace, provider or description').fill('netw')
    // The providers are offered with how many modules each has.
    await expect(page.getByLabel('Provider', { exact: true }).locator('option')).toHaveText(['All providers', 'aws (1)'])
    await page.getByLabel('Provider', { exact: true }).selectOption('aws')
    await expect(page).toHaveURL(/\/orgs\/acme\/modules\?q=netw&provider=aws$/)
    await list.getByRole('link').first().click()
    await expect(page.getByRole('heading', { level: 1, name: 'network', exact: true })).toBeVisible()
    await page.goBack()
    await expect(page.getByLabel('Search modules by name, namespace, provider or description')).toHaveValue('netw')
    await expect(page.getByLabel('Provider', { exact: true })).toHaveValue('aws')
    await expect(list.getByRole('listitem')).toHaveCount(1)
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
    await docsScreenshot(page, 'ingest-error.png')
    await expectAccessible(page, 'a failed ingest')
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
    await expect(row).toBeVisible()
    // The next team starts read-only; a refused name's error goes when the name changes.
    await expect(page.getByLabel(/May publish modules/)).not.toBeChecked()
    await page.getByLabel('New team').fill('ci')
    await page.getByRole('button', { name: 'Create team' }).click()
    const refusal = page.getByRole('form', { name: 'Create a team' }).getByRole('alert')
    await expect(refusal).toBeVisible()
    await page.getByLabel('New team').fill('ci-2')
    await expect(refusal).toBeHidden()
    // A name the rule refuses says which characters, and what the rule is, not only "match the requested format".
    await page.getByLabel('New team').fill('ci team!')
    await page.getByRole('button', { name: 'Create team' }).click()
    expect(await page.getByLabel('New team').evaluate((input: HTMLInputElement) => input.validationMessage)).toBe('“ci team!” has a space, “!”: a team name is letters, digits, “-” and “_” only.')
    await page.getByLabel('New team').fill('')
    // A team's access changes after its creation too.
    const access = row.getByLabel('ci may publish')
    await expect(access).toBeChecked()
    // The box shows what the server holds: it changes once the server has changed it.
    await access.click()
    await expect(access).not.toBeChecked()
    await access.click()
    await expect(access).toBeChecked()
    await row.getByRole('button', { name: 'Create token' }).click()
    const token = page.getByLabel('New token')
    await expect(token).toHaveText(/^hp1\./)
    await docsScreenshot(page, 'teams.png')
    await expectAccessible(page, 'the Teams page')
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
    await docsScreenshot(section, 'organization-token.png')
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
    // HCP's run settings are folded away: nothing in a registry uses them.
    const timeout = page.getByLabel('Session timeout (minutes)')
    await expect(timeout).toBeHidden()
    await page.locator('summary', { hasText: 'HCP Terraform run settings' }).click()
    await timeout.fill('999999999')
    expect(await timeout.evaluate((input: HTMLInputElement) => input.validationMessage)).not.toBe('')
    await timeout.fill('60')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await expect(page.getByRole('status')).toHaveText('Saved.')
    await docsScreenshot(page, 'settings.png', { fullPage: true })
    await expectAccessible(page, 'the organization’s settings')

    // Deleting it takes its name typed in full.
    const remove = page.getByRole('form', { name: 'Delete this organization' })
    await expect(remove.getByRole('button', { name: 'Delete settings-org' })).toBeDisabled()
    await remove.getByLabel('Type settings-org to confirm').fill('settings-or')
    await expect(remove.getByRole('button', { name: 'Delete settings-org' })).toBeDisabled()
    await remove.getByLabel('Type settings-org to confirm').fill('settings-org')
    await remove.getByRole('button', { name: 'Delete settings-org' }).click()
    await expect(page.getByRole('heading', { name: 'Organizations', exact: true })).toBeVisible()
    await expect(page.getByRole('list', { name: 'Organizations' }).getByRole('heading', { name: 'settings-org', exact: true })).toHaveCount(0)
  })
})

test('downloads a backup from the settings page', async ({ page }) => {
  await signIn(page)
  await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Settings' }).click()
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Download a backup' }).click()
  expect((await download).suggestedFilename()).toMatch(/^homeport-backup-\d{4}-\d{2}-\d{2}\.tar\.gz$/)
  await expectAccessible(page, 'the app’s settings')
})

test('tells a team that may not publish so on the Publish page, before it picks a folder', async ({ page }, testInfo) => {
  test.skip(testInfo.project.name === 'electron', 'the desktop app signs in as the site admin')
  const reader = await teamToken(page, 'read-only', 'readers')
  await signIn(page, reader)
  await page.goto('/orgs/read-only/publish')
  await expect(page.getByRole('note')).toContainText('The token you signed in with reads read-only’s modules but may not publish them.')
  await expect(page.getByLabel('Module folder', { exact: true })).toHaveCount(0)
  await expectAccessible(page, 'the Publish page for a team that may not publish')
})
