import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { adminPost } from './support/admin-api'
import { signIn, teamToken } from './support/session'

test.describe('the audit trail', () => {
  test('shows an organization’s owners every change, filtered, at 800 and 1920 px, light and dark', async ({ page }, testInfo) => {
    await signIn(page)
    const reader = await teamToken(page, 'audited', 'readers')
    // A read-only team's attempt to publish is refused, and shown as such.
    const attempt = await page.request.post('/api/v2/organizations/audited/registry-modules', {
      headers: { Authorization: `Bearer ${reader}`, 'Content-Type': 'application/vnd.api+json' },
      data: { data: { type: 'registry-modules', attributes: { name: 'planted', provider: 'aws' } } }
    })
    expect(attempt.status()).toBe(404)
    for (const name of ['network', 'storage', 'compute']) {
      await adminPost(page, '/organizations/audited/registry-modules', { data: { type: 'registry-modules', attributes: { name, provider: 'aws' } } })
    }
    await page.goto('/orgs/audited/audit')
    const events = page.getByRole('region', { name: 'Audit events' })
    await expect(events.getByRole('row')).toHaveCount(1 + 7)
    // In words, with a link to what was changed.
    await expect(events.getByRole('row').nth(1)).toContainText('created module audited/compute/aws')
    await expect(events.getByRole('row').nth(1).getByRole('link', { name: 'audited/compute/aws' })).toHaveAttribute('href', '/orgs/audited/modules/private/audited/compute/aws')
    await expect(events).toContainText('site-admin')
    await expect(events.getByRole('row').filter({ hasText: 'audited/planted/aws' })).toContainText('tried to create module audited/planted/aws (refused: nothing changed)')
    await expect(events.getByRole('row').filter({ hasText: 'audited/planted/aws' })).toContainText('api-team_readers')
    await expect(page).toHaveTitle('audited · Audit trail · Homeport')

    await page.getByLabel('Kind of resource').fill('team')
    await expect(events.getByRole('row')).toHaveCount(1 + 1)
    await expect(page).toHaveURL(/\/orgs\/audited\/audit\?type=team$/)
    await page.getByLabel('Action').selectOption('destroy')
    await expect(page.getByText('No change matches these filters')).toBeVisible()
    await page.getByRole('button', { name: 'Clear the filters' }).click()
    await expect(events.getByRole('row')).toHaveCount(1 + 7)

    for (const width of [800, 1920]) {
      await page.setViewportSize({ width, height: 900 })
      // Nothing runs past the window: the table scrolls in its own box.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
      await page.screenshot({ path: testInfo.outputPath(`audit-trail-${width}.png`), fullPage: true })
    }
    await expectAccessible(page, 'an organization’s audit trail')
  })

  test('keeps changes as long as the site admin says', async ({ page }) => {
    await signIn(page)
    await page.goto('/settings')
    const form = page.getByRole('form', { name: 'Audit trail' })
    await expect(form).toContainText('Homeport keeps every change.')
    await form.getByLabel('Keep changes for (days)').fill('30')
    await form.getByRole('button', { name: 'Save' }).click()
    await expect(form).toContainText('Homeport keeps changes for 30 days.')
    await expectAccessible(page, 'the settings with the audit trail’s retention')
    await form.getByLabel('Keep changes for (days)').fill('')
    await form.getByRole('button', { name: 'Save' }).click()
    await expect(form).toContainText('Homeport keeps every change.')
  })

  test('is not offered to a team that does not own the organization', async ({ page }, testInfo) => {
    test.skip(testInfo.project.name === 'electron', 'the desktop app signs in as the site admin')
    const reader = await teamToken(page, 'audited-too', 'readers')
    await signIn(page, reader)
    await page.goto('/orgs/audited-too/modules')
    await expect(page.getByRole('heading', { level: 1, name: 'audited-too' })).toBeVisible()
    await expect(page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Audit trail' })).toHaveCount(0)
  })
})
