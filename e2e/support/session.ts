import { expect, type Page } from '@playwright/test'
import { E2E_ADMIN_TOKEN } from '../../playwright.config'
import { adminPost } from './admin-api'

/**
 * Signs in through the GUI's own form with the run's site-admin token. The desktop app signs in
 * by itself; then there is nothing to do.
 */
export async function signIn(page: Page, token = E2E_ADMIN_TOKEN): Promise<void> {
  if (page.url() === 'about:blank') await page.goto('/')
  const loaded = page.locator('[data-app-state="loaded"]')
  const form = page.getByLabel('API token')
  await expect(loaded.or(form)).toBeVisible()
  if (await form.isVisible()) {
    await form.fill(token)
    await page.getByRole('button', { name: 'Sign in' }).click()
  }
  await expect(loaded).toBeVisible()
}

/** Creates an organization through the GUI, unless it exists, and opens it. */
export async function openOrganization(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Organizations' }).click()
  const list = page.getByRole('list', { name: 'Organizations' })
  const card = list.getByRole('heading', { name, exact: true })
  // Once the list has come (or its empty state): asked before, a slow load looked like "not there" and the create was refused as the name taken.
  await expect(list.or(page.getByRole('heading', { name: 'No organizations yet' }))).toBeVisible()
  if (!(await card.isVisible().catch(() => false))) {
    await page.getByRole('button', { name: 'New organization' }).click()
    await page.getByLabel('Name', { exact: true }).fill(name)
    await page.getByLabel('Admin e-mail').fill(`platform@${name}.example`)
    await page.getByRole('button', { name: 'Create organization' }).click()
  } else {
    await card.click()
  }
  // A new organization opens at once.
  await expect(page.getByRole('heading', { level: 1, name, exact: true })).toBeVisible()
}

/** A new read-only team of `org` and its token, made through the API; `org` is created first. */
export async function teamToken(page: Page, org: string, team: string): Promise<string> {
  await adminPost(page, '/organizations', { data: { type: 'organizations', attributes: { name: org, email: `platform@${org}.example` } } })
  const created = await adminPost<{ data: { id: string } }>(page, `/organizations/${org}/teams`, { data: { type: 'teams', attributes: { name: team } } })
  const made = await adminPost<{ data: { attributes: { token: string } } }>(page, `/teams/${created.data.id}/authentication-token`)
  return made.data.attributes.token
}
