import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { startOwnServer } from './support/own-server'
import { signIn } from './support/session'

test('offers a first run a sample module, which it publishes and opens', async ({ page }, testInfo) => {
  test.skip(testInfo.project.name === 'electron', 'the desktop app’s data folder is not empty by the time the specs run')
  const server = await startOwnServer()
  try {
    await page.goto(server.url)
    await signIn(page)
    await expect(page.getByRole('heading', { name: 'No organizations yet' })).toBeVisible()
    await expectAccessible(page, 'a first run')
    await page.getByRole('button', { name: 'Try it with a sample module' }).click()
    // Its page, with its documentation once published: the README, the inputs, its example.
    await expect(page.getByRole('heading', { level: 1, name: 'labels', exact: true })).toBeVisible({ timeout: 20_000 })
    await expect(page.getByRole('list', { name: 'Versions' }).getByText('published')).toBeVisible({ timeout: 20_000 })
    await expect(page.locator('.markdown').getByRole('heading', { name: 'labels' })).toBeVisible()
    await expect(page.getByLabel('Usage')).toContainText('source  = "homeport.localhost/sample/labels/null"')
    await expect(page.getByLabel('Usage')).toContainText('namespace = "" # string')
    await expect(page.getByLabel('Example').locator('option')).toHaveText(['none', 'basic'])
    await expect(page.getByLabel('Submodule')).toHaveCount(0)
    await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Organizations' }).click()
    await expect(page.getByRole('list', { name: 'Organizations' }).getByRole('heading', { name: 'sample' })).toBeVisible()
  } finally {
    await server.stop()
  }
})
