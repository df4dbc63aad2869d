import { expect, type Page } from '@playwright/test'
import { E2E_ADMIN_TOKEN } from '../../playwright.config'

/** Signs in through the GUI's own form with the run's site-admin token. */
export async function signIn(page: Page, token = E2E_ADMIN_TOKEN): Promise<void> {
  await page.goto('/')
  await page.getByLabel('API token').fill(token)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.locator('[data-app-state="loaded"]')).toBeVisible()
}
