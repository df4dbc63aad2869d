import { expect, test } from './support/fixtures'
import { signIn } from './support/session'

test('shows the public provider mirror, and says in the server’s words why mirroring fails offline', async ({ page }) => {
  await signIn(page)
  await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Mirror' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Public provider mirror' })).toBeVisible()
  await expect(page.getByText('Nothing mirrored yet')).toBeVisible()
  const form = page.getByRole('form', { name: 'Mirror a provider' })
  await form.getByLabel('Provider (namespace/type)').fill('hashicorp/null')
  await form.getByLabel(/^Versions/).fill('~> 3.2')
  await form.getByLabel('darwin_arm64').check()
  await page.screenshot({ path: 'docs/screenshots/mirror.png' })
  await form.getByRole('button', { name: 'Mirror' }).click()
  // The test machines reach no public registry: the answer says so, in words.
  await expect(form.getByRole('alert')).toContainText(/cannot be reached|offline/, { timeout: 20_000 })
})
