import { expect, type Page } from '@playwright/test'
import { E2E_ADMIN_TOKEN } from '../../playwright.config'
import type { ApiTarget } from '../../tests/helpers/providers'

/** What the specs send to set things up through the API, as the site admin. */
export const ADMIN_HEADERS = { Authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' }

/** `body` POSTed to `path` under /api/v2 as the site admin; resolves with the answer's JSON, and fails the spec on a refusal. */
export async function adminPost<T = unknown>(page: Page, path: string, body?: unknown): Promise<T> {
  const response = await page.request.post(`/api/v2${path}`, { headers: ADMIN_HEADERS, ...(body === undefined ? {} : { data: body }) })
  expect(response.ok(), `POST ${path}: ${await response.text()}`).toBe(true)
  return (await response.json()) as T
}

/** The API as the site admin through the page's request context, in the shape the suite's helpers take (tests/helpers/providers.ts). */
export function adminApi(page: Page): ApiTarget {
  return {
    adminToken: E2E_ADMIN_TOKEN,
    fetch,
    async api(method, path, options = {}) {
      const token = options.token === undefined ? E2E_ADMIN_TOKEN : options.token
      const response = await page.request.fetch(/^\/(api|\.well-known)\//.test(path) ? path : `/api/v2${path}`, {
        method,
        headers: { ...(token === null ? {} : { Authorization: `Bearer ${token}` }), 'Content-Type': 'application/vnd.api+json' },
        ...(options.body === undefined ? {} : { data: JSON.stringify(options.body) })
      })
      const text = await response.text()
      return { status: response.status(), headers: new Headers(response.headers()), body: text ? (JSON.parse(text) as unknown) : undefined }
    }
  }
}
