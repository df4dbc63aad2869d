import { E2E_ADMIN_TOKEN } from '../playwright.config'
import { expect, test } from './support/fixtures'
import { signIn } from './support/session'

test('says so when the server stops answering, and recovers by itself when it is back', async ({ page }, testInfo) => {
  test.skip(testInfo.project.name === 'electron', 'the desktop app’s server stops only with the app')
  const headers = { Authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' }
  await page.request.post('/api/v2/organizations', { headers, data: { data: { type: 'organizations', attributes: { name: 'comeback', email: 'c@comeback.example' } } } })
  await signIn(page)

  // The server goes away (every API request fails to connect), and the user opens an organization.
  const card = page.getByRole('list', { name: 'Organizations' }).getByRole('heading', { name: 'comeback' })
  await expect(card).toBeVisible()
  await page.route('**/api/v2/**', (route) => route.abort('connectionrefused'))
  await card.click()
  const alert = page.getByRole('alert').filter({ hasText: 'Homeport is not answering' })
  await expect(alert).toBeVisible()
  await expect(alert.getByRole('button', { name: 'Retry now' })).toBeVisible()

  // It is back: the page comes back without a reload.
  await page.unroute('**/api/v2/**')
  await expect(page.getByRole('heading', { level: 1, name: 'comeback' })).toBeVisible({ timeout: 15_000 })
})
