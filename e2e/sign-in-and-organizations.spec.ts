import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { adminPost } from './support/admin-api'
import { signIn, teamToken } from './support/session'
import { docsScreenshot } from './support/screenshots'

test.describe('signing in and organizations', () => {
  test('refuses a bad token in words a person understands', async ({ page }, testInfo) => {
    test.skip(testInfo.project.name === 'electron', 'the desktop app signs in by itself')
    await page.goto('/')
    await page.getByLabel('API token').fill('hp1.not-a-real-token')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect(page.getByRole('alert')).toContainText('Homeport did not accept that token')
    await docsScreenshot(page, 'sign-in-error.png')
    await expectAccessible(page, 'the sign-in form with an error')
  })

  test('signs in, creates an organization and lists it', async ({ page }) => {
    await signIn(page)
    await expect(page.getByRole('heading', { name: 'Organizations', exact: true })).toBeVisible()

    await page.getByRole('button', { name: 'New organization' }).click()
    await page.getByLabel('Name', { exact: true }).fill('acme-platform')
    await page.getByLabel('Admin e-mail').fill('platform@acme.example')
    await page.getByRole('button', { name: 'Create organization' }).click()
    // The new organization opens, empty, saying how to fill it.
    await expect(page.getByRole('heading', { level: 1, name: 'acme-platform' })).toBeVisible()
    await expect(page.getByText('No modules yet')).toBeVisible()
    const toList = () => page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Organizations' }).click()
    await toList()
    const list = page.getByRole('list', { name: 'Organizations' })
    await expect(list.getByRole('heading', { name: 'acme-platform' })).toBeVisible()
    await expect(list.getByRole('listitem').filter({ hasText: 'acme-platform' })).toContainText('0 modules')

    // A duplicate name comes back as the server's own explanation.
    await page.getByRole('button', { name: 'New organization' }).click()
    await page.getByLabel('Name', { exact: true }).fill('acme-platform')
    await page.getByLabel('Admin e-mail').fill('other@acme.example')
    await page.getByRole('button', { name: 'Create organization' }).click()
    await expect(page.getByRole('alert')).toContainText('already exists')
    await page.getByRole('button', { name: 'Cancel' }).click()

    for (const { name, email } of [
      { name: 'networking', email: 'net@acme.example' },
      { name: 'data-platform', email: 'data@acme.example' }
    ]) {
      await page.getByRole('button', { name: 'New organization' }).click()
      await page.getByLabel('Name', { exact: true }).fill(name)
      await page.getByLabel('Admin e-mail').fill(email)
      await page.getByRole('button', { name: 'Create organization' }).click()
      await expect(page.getByRole('heading', { level: 1, name })).toBeVisible()
      await toList()
      await expect(list.getByRole('heading', { name })).toBeVisible()
    }
    await docsScreenshot(page, 'organizations.png')
    await expectAccessible(page, 'the organization list')

    await page.getByLabel('Search organizations by name or e-mail').fill('net')
    await expect(list.getByRole('listitem')).toHaveCount(1)
    await expect(list.getByRole('heading', { name: 'networking' })).toBeVisible()
  })
})

test('offers a team’s token only what it may do: no new organization, no publishing when read-only', async ({ page }, testInfo) => {
  test.skip(testInfo.project.name === 'electron', 'the desktop app signs in as the site admin')
  const token = await teamToken(page, 'readers-org', 'readers')

  await signIn(page, token)
  const list = page.getByRole('list', { name: 'Organizations' })
  await expect(list.getByRole('heading', { name: 'readers-org' })).toBeVisible()
  await expect(page.getByRole('button', { name: 'New organization' })).toHaveCount(0)
  await list.getByRole('heading', { name: 'readers-org' }).click()
  const sections = page.getByRole('navigation', { name: 'Sections' })
  await expect(sections.getByRole('link', { name: 'Modules' })).toBeVisible()
  // Only what the team may do: no publishing, no audit trail, no backup of the whole installation.
  await expect(sections.getByRole('link', { name: 'Publish' })).toHaveCount(0)
  await expect(sections.getByRole('link', { name: 'Audit trail' })).toHaveCount(0)
  await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Settings' }).click()
  await expect(page.getByRole('group', { name: 'Appearance' })).toBeVisible()
  await expect(page.getByRole('button', { name: 'Download a backup' })).toHaveCount(0)
  await expect(page.getByRole('heading', { name: 'Backups' })).toHaveCount(0)
})

test('says what is not found with a heading, a way back and the window’s title: a page, an organization, a module', async ({ page }) => {
  await signIn(page)
  await page.goto('/no/such/page')
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible()
  await expect(page).toHaveTitle('Page not found · Homeport')
  await expectAccessible(page, 'a page not found')
  await page.getByRole('link', { name: 'Back to the organizations' }).click()
  await expect(page).toHaveTitle('Organizations · Homeport')

  await page.goto('/orgs/nowhere-org/modules')
  await expect(page.getByRole('heading', { level: 1, name: 'Organization not found' })).toBeVisible()
  await expect(page.getByText('There is no organization nowhere-org that you may see')).toBeVisible()
  await expect(page).toHaveTitle('Organization not found · Homeport')

  await adminPost(page, '/organizations', { data: { type: 'organizations', attributes: { name: 'found-org', email: 'f@found.example' } } })
  await page.goto('/orgs/found-org/modules/private/found-org/ghost/aws')
  await expect(page.getByRole('heading', { level: 1, name: 'Module not found' })).toBeVisible()
  await expect(page).toHaveTitle('Module not found · Homeport')
  await page.getByRole('link', { name: 'Back to found-org’s modules' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'found-org' })).toBeVisible()
  await expect(page).toHaveTitle('found-org · Modules · Homeport')
})

test('shows the next token nothing of what the last one saw: signing out empties the cache', async ({ page }, testInfo) => {
  test.skip(testInfo.project.name === 'electron', 'the desktop app signs in as the site admin and has no sign-out')
  await adminPost(page, '/organizations', { data: { type: 'organizations', attributes: { name: 'admins-only', email: 'a@admins.example' } } })
  const token = await teamToken(page, 'team-org', 'members')

  await signIn(page)
  const list = page.getByRole('list', { name: 'Organizations' })
  await expect(list.getByRole('heading', { name: 'admins-only' })).toBeVisible()
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByLabel('API token').fill(token)
  await page.getByRole('button', { name: 'Sign in' }).click()
  // The list is the team's from its first paint (the admin's answer, still fresh, would otherwise be shown).
  await expect(list.getByRole('heading', { name: 'team-org' })).toBeVisible()
  await expect(list.getByRole('heading', { name: 'admins-only' })).toHaveCount(0)
  await expect(list.getByRole('listitem')).toHaveCount(1)
})
