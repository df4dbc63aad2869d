import type { Page } from '@playwright/test'
import { ADMIN_HEADERS as headers } from './support/admin-api'
import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { publish } from './support/publish'
import { signIn } from './support/session'
import { vpcModule } from './support/vpc-module'

const WIDTHS = [800, 1280, 1920]

/** Elements of `selector` whose right edge passes the right edge of the box they belong in (by `container`). */
async function overflowing(page: Page, selector: string, container: string): Promise<string[]> {
  return page.evaluate(
    ({ selector, container }) =>
      [...document.querySelectorAll<HTMLElement>(selector)]
        .filter((element) => {
          const box = element.closest(container)
          return box !== null && element.getBoundingClientRect().right > box.getBoundingClientRect().right + 0.5
        })
        .map((element) => element.textContent?.slice(0, 60) ?? element.tagName),
    { selector, container }
  )
}

test.beforeAll(async ({ request }) => {
  // Once per run: a worker that starts again after a failure finds it published.
  if ((await request.get('/api/v2/organizations/layouts/registry-modules/private/layouts/vpc/aws', { headers })).ok()) return
  await request.post('/api/v2/organizations', { headers, data: { data: { type: 'organizations', attributes: { name: 'layouts', email: 'platform@layouts.example' } } } })
  await request.post('/api/v2/organizations/layouts/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'vpc', provider: 'aws' } } } })
  await publish(request, 'layouts', 'vpc', 'aws', '5.8.1', vpcModule('5.8.1'))
})

test('a real module’s inputs stay in their card at every width, a long URL in a description wrapping within it', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules/private/layouts/vpc/aws?tab=inputs')
  const panel = page.getByRole('tabpanel', { name: /Inputs/ })
  await expect(panel.getByRole('region', { name: 'Optional inputs' })).toContainText('vpc_flow_log_config')
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `the page scrolls sideways at ${width} px`).toBeLessThanOrEqual(width)
    expect(await overflowing(page, '.input-entry, .input-entry *, [role="tabpanel"] input[type="search"]', '.card'), `at ${width} px`).toEqual([])
  }
})

test('a multi-line object type reads as the HCL it is: monospace, line by line, folded when long with its first line shown', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules/private/layouts/vpc/aws?tab=inputs')
  const panel = page.getByRole('tabpanel', { name: /Inputs/ })
  await panel.getByLabel('Filter inputs by name or description').fill('vpc_flow_log_config')
  const entry = panel.locator('.input-entry').filter({ hasText: 'vpc_flow_log_config' })
  const type = entry.getByRole('group', { name: /^Type/ })
  await expect(type).toBeVisible()
  // Folded: its first line shows, the rest on demand.
  await expect(type.locator('summary')).toContainText('object({')
  await expect(type.locator('pre')).toBeHidden()
  await type.locator('summary').click()
  const laidOut = type.locator('pre')
  await expect(laidOut).toBeVisible()
  expect(await laidOut.evaluate((pre) => getComputedStyle(pre).fontFamily)).toMatch(/mono|Menlo|Consolas/i)
  // Line by line, as written.
  expect((await laidOut.innerText()).split('\n').length).toBeGreaterThanOrEqual(8)
  await expect(laidOut).toContainText('max_aggregation_interval = optional(number, 600)')
  // The default, multi-line too, is laid out the same way.
  await expect(entry.locator('.input-default pre')).toContainText('"traffic_type": "ALL"')
  await expectAccessible(page, 'an input with a folded object type')
})

test('the usage’s source line is readable whole at every width, and a wide screen is used', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules/private/layouts/vpc/aws')
  const usage = page.getByLabel('Usage', { exact: true })
  await expect(usage).toContainText('source  = "homeport.localhost/layouts/vpc/aws"')
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 })
    const { scrollWidth, clientWidth } = await usage.evaluate((pre) => ({ scrollWidth: pre.scrollWidth, clientWidth: pre.clientWidth }))
    expect(scrollWidth, `the usage scrolls sideways at ${width} px`).toBeLessThanOrEqual(clientWidth)
  }
  // At 1920 px the page is not a narrow column in the middle of the screen.
  const main = await page.locator('.module-layout').boundingBox()
  expect(main!.width).toBeGreaterThan(1920 * 0.7)
})
