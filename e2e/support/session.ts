import { expect, type Page } from '@playwright/test'
import { E2E_ADMIN_TOKEN } from '../../playwright.config'

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

const ADMIN_HEADERS = { Authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' }

/** Through the API, as the site admin: `body` POSTed to `path` under /api/v2; resolves with the answer's JSON. */
export async function adminPost<T = unknown>(page: Page, path: string, body?: unknown): Promise<T> {
  const response = await page.request.post(`/api/v2${path}`, { headers: ADMIN_HEADERS, ...(body === undefined ? {} : { data: body }) })
  expect(response.ok(), `POST ${path}: ${await response.text()}`).toBe(true)
  return (await response.json()) as T
}

/** A new team of `org` (read-only unless told) and its token, made through the API; `org` is created first. */
export async function teamToken(page: Page, org: string, team: string, access: { manageModules?: boolean } = {}): Promise<string> {
  await adminPost(page, '/organizations', { data: { type: 'organizations', attributes: { name: org, email: `platform@${org}.example` } } })
  const attributes = { name: team, 'organization-access': { 'manage-modules': access.manageModules === true } }
  const created = await adminPost<{ data: { id: string } }>(page, `/organizations/${org}/teams`, { data: { type: 'teams', attributes } })
  const made = await adminPost<{ data: { attributes: { token: string } } }>(page, `/teams/${created.data.id}/authentication-token`)
  return made.data.attributes.token
}
