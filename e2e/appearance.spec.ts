import type { Page } from '@playwright/test'
import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
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
