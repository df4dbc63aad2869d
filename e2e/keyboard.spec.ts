import type { Locator, Page } from '@playwright/test'
import { E2E_ADMIN_TOKEN } from '../playwright.config'
import { adminPost } from './support/admin-api'
import { expect, test } from './support/fixtures'
import { publish } from './support/publish'

/** Presses Tab (or Shift+Tab, back) until `target` has the focus, and says how many presses that took; fails past `most`. */
async function tabTo(page: Page, target: Locator, most: number, key: 'Tab' | 'Shift+Tab' = 'Tab'): Promise<number> {
  for (let presses = 1; presses <= most; presses++) {
    await page.keyboard.press(key)
    if (await target.evaluate((element) => element === document.activeElement)) return presses
  }
  throw new Error(`not reached in ${most} Tabs`)
}

test('reads a module and copies its usage by keyboard alone', async ({ page, context }, testInfo) => {
  test.skip(testInfo.project.name === 'electron', 'the desktop app signs in by itself')
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await adminPost(page, '/organizations', { data: { type: 'organizations', attributes: { name: 'keys', email: 'k@keys.example' } } })
  await adminPost(page, '/organizations/keys/registry-modules', { data: { type: 'registry-modules', attributes: { name: 'dns', provider: 'aws' } } })
  await publish(page.request, 'keys', 'dns', 'aws', '1.0.0', { 'README.md': '# DNS\n\nZones and records.\n', 'main.tf': 'variable "zone" {\n  type = string\n}\n' })

  // Sign in: the token field has the focus; Enter sends it.
  await page.goto('/')
  await expect(page.getByLabel('API token')).toBeFocused()
  await page.keyboard.type(E2E_ADMIN_TOKEN)
  await page.keyboard.press('Enter')
  await expect(page.locator('[data-app-state="loaded"]')).toBeVisible()
  await tabTo(page, page.getByLabel('Search organizations by name or e-mail'), 15)
  await page.keyboard.type('keys')
  // What a person waits for too: the list showing the one organization that matches.
  await expect(page.getByRole('list', { name: 'Organizations' }).getByRole('listitem')).toHaveCount(1)

  // The organization, then the module, each opened with Enter.
  await tabTo(page, page.getByRole('list', { name: 'Organizations' }).getByRole('link', { name: /keys/ }), 10)
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { level: 1, name: 'keys' })).toBeVisible()
  await expect(page.getByRole('list', { name: 'Module list' }).getByRole('listitem')).toHaveCount(1)
  await tabTo(page, page.getByRole('list', { name: 'Module list' }).getByRole('link', { name: /keys\/dns\/aws/ }), 30)
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { level: 1, name: 'dns', exact: true })).toBeVisible()
  await expect(page.getByRole('list', { name: 'Versions' }).getByText('published')).toBeVisible({ timeout: 20_000 })

  // Tab follows the page as it is laid out: the version menu, the documentation's tabs and the README, then the
  // right column (the usage first, deleting the module last of all).
  await expect(page.getByRole('tab', { name: /Readme/ })).toBeVisible()
  const stops: string[] = []
  for (let press = 0; press < 25 && !stops.includes('Copy usage'); press++) {
    await page.keyboard.press('Tab')
    stops.push(await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent?.trim() ?? ''))
  }
  const at = (name: string | RegExp) => stops.findIndex((stop) => (typeof name === 'string' ? stop === name : name.test(stop)))
  expect(at('Version'), stops.join(' → ')).toBeGreaterThanOrEqual(0)
  expect(at('Version')).toBeLessThan(at(/^Readme/))
  expect(at(/^Readme/)).toBeLessThan(at('Copy usage'))
  expect(stops.length, stops.join(' → ')).toBeLessThanOrEqual(12)
  const deleteFollows = await page.getByRole('button', { name: 'Delete keys/dns/aws' }).evaluate((button) => {
    const copy = [...document.querySelectorAll('button')].find((candidate) => candidate.textContent === 'Copy usage')!
    return (copy.compareDocumentPosition(button) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0 && button.closest('aside')?.lastElementChild?.contains(button) === true
  })
  expect(deleteFollows).toBe(true)
  await page.keyboard.press('Enter')
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('source  = "homeport.localhost/keys/dns/aws"')

  // The documentation's tabs, back before the usage: one Tab stop, arrows between them.
  await tabTo(page, page.getByRole('tab', { name: /Readme/ }), 10, 'Shift+Tab')
  await page.keyboard.press('ArrowRight')
  await expect(page.getByRole('tab', { name: /Inputs/ })).toBeFocused()
  await expect(page.getByRole('tabpanel', { name: /Inputs/ })).toContainText('zone')
})
