import { expect, type Page } from '@playwright/test'
import { E2E_ADMIN_TOKEN } from '../../playwright.config'

/** What the specs send to set things up through the API, as the site admin. */
export const ADMIN_HEADERS = { Authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' }

/** `body` POSTed to `path` under /api/v2 as the site admin; resolves with the answer's JSON, and fails the spec on a refusal. */
export async function adminPost<T = unknown>(page: Page, path: string, body?: unknown): Promise<T> {
  const response = await page.request.post(`/api/v2${path}`, { headers: ADMIN_HEADERS, ...(body === undefined ? {} : { data: body }) })
  expect(response.ok(), `POST ${path}: ${await response.text()}`).toBe(true)
  return (await response.json()) as T
}
