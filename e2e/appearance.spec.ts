import type { Page } from '@playwright/test'
import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { adminPost } from './support/admin-api'
import { signIn } from './support/session'

/** The page's background, as painted. */
const background = (page: Page) => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)

test('Settings chooses light, dark or the system’s scheme, at once and for the next visit', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' })
  await signIn(page)
  await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Settings' }).click()
  const appearance = page.getByRole('group', { name: 'Appearance' })
  await expect(appearance.getByLabel('As the system')).toBeChecked()
  const light = await background(page)

  await appearance.getByLabel('Dark').check()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  const dark = await background(page)
  expect(dark).not.toBe(light)
  await expectAccessible(page, 'Settings, dark chosen over a light system')

  // Remembered: a reload (another visit) opens dark, over the system's light.
  await page.reload()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  expect(await background(page)).toBe(dark)

  // Light, over a dark system.
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.getByRole('group', { name: 'Appearance' }).getByLabel('Light').check()
  expect(await background(page)).toBe(light)
  // As the system: the system's dark again.
  await page.getByRole('group', { name: 'Appearance' }).getByLabel('As the system').check()
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./)
  expect(await background(page)).toBe(dark)
  await page.emulateMedia({ colorScheme: 'light' })
})

test('a confirm’s filled red button reads in both schemes (dark text on the dark scheme’s light red)', async ({ page }) => {
  await signIn(page)
  await adminPost(page, '/organizations', { data: { type: 'organizations', attributes: { name: 'confirms', email: 'c@confirms.example' } } })
  await adminPost(page, '/organizations/confirms/teams', { data: { type: 'teams', attributes: { name: 'leaving' } } })
  await page.goto('/orgs/confirms/teams')
  const row = page.getByRole('row', { name: /leaving/ })
  await row.getByRole('button', { name: 'Delete leaving' }).click()
  const confirm = row.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Delete' })
  await expect(confirm).toBeVisible()
  await expectAccessible(page, 'a team’s delete confirm')
  await page.emulateMedia({ colorScheme: 'dark' })
  expect(await confirm.evaluate((button) => getComputedStyle(button).color)).toBe('rgb(26, 6, 5)')
  await page.emulateMedia({ colorScheme: 'light' })
})
