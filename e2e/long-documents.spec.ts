import type { Page } from '@playwright/test'
import { ADMIN_HEADERS as headers } from './support/admin-api'
import { olderReleases } from './support/changelog'
import { expect, test } from './support/fixtures'
import { publish } from './support/publish'
import { signIn } from './support/session'

const REPOSITORY = 'https://github.com/acme/terraform-aws-network'
const RELEASES = olderReleases(REPOSITORY, '4.2.0', 160, '2025-06-01')
/** An old release's heading (the twentieth from the end: the last few cannot scroll to the window's top), as the changelog writes it: `## [0.9.3](…compare…) (2021-08-04)`. */
const [, OLD, OLD_DATE] = [...RELEASES.matchAll(/^## \[([^\]]+)\]\([^)]*\) \(([^)]+)\)/gm)].at(-20)!
/** Its heading's id as GitHub makes it (punctuation dropped, spaces as hyphens), as a link in the changelog names it. */
const OLD_ANCHOR = `${OLD!.replace(/\./g, '')}-${OLD_DATE}`

test.beforeAll(async ({ request }) => {
  if ((await request.get('/api/v2/organizations/longdocs/registry-modules/private/longdocs/network/aws', { headers })).ok()) return
  await request.post('/api/v2/organizations', { headers, data: { data: { type: 'organizations', attributes: { name: 'longdocs', email: 'docs@longdocs.example' } } } })
  await request.post('/api/v2/organizations/longdocs/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'network', provider: 'aws' } } } })
  await publish(request, 'longdocs', 'network', 'aws', '4.2.0', {
    'README.md': '# network\n\nA network.\n',
    'CHANGELOG.md': `# Changelog\n\nStill on the first releases? See [what ${OLD} changed](#${OLD_ANCHOR}).\n\n${RELEASES}`,
    'main.tf': 'resource "aws_vpc" "this" {\n  cidr_block = "10.0.0.0/16"\n}\n'
  })
})

/**
 * The module's page, then its Changelog tab opened with the page's clock standing still, and with it
 * its animation frames: only the first piece is drawn until the clock runs or a link asks for the rest.
 */
async function openStill(page: Page): Promise<void> {
  await page.clock.install()
  await page.goto('/orgs/longdocs/modules/private/longdocs/network/aws')
  await page.getByRole('tab', { name: 'Changelog' }).waitFor()
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 100)
  await page.getByRole('tab', { name: 'Changelog' }).click()
}

test('draws a long changelog from its first screen, and follows a link to a release further down at once', async ({ page }) => {
  await signIn(page)
  await openStill(page)
  const changelog = page.getByRole('tabpanel', { name: 'Changelog' })
  await expect(changelog.getByRole('heading', { name: /^4\.1\.\d+ / }).first()).toBeVisible()
  await expect(changelog.locator('.markdown')).toHaveAttribute('aria-busy', 'true')
  await expect(changelog.locator('.markdown-piece')).toHaveCount(1)
  await changelog.getByRole('link', { name: `what ${OLD} changed` }).click()
  const old = changelog.getByRole('heading', { name: new RegExp(`^${OLD!.replace(/\./g, '\\.')} `) })
  await expect(old).toBeFocused()
  // Scrolled to the top of the window (measured, not observed: the still clock holds the page's intersection observers).
  const top = await old.evaluate((heading) => heading.getBoundingClientRect().top)
  expect(top).toBeGreaterThanOrEqual(0)
  expect(top).toBeLessThan(100)
  await expect(changelog.locator('.markdown')).toHaveAttribute('aria-busy', 'false')
  expect(await changelog.locator('.markdown-piece').count()).toBeGreaterThan(3)
})

test('draws the rest of a long changelog a frame after its first screen, unasked', async ({ page }) => {
  await signIn(page)
  await openStill(page)
  const changelog = page.getByRole('tabpanel', { name: 'Changelog' })
  await expect(changelog.locator('.markdown-piece')).toHaveCount(1)
  // A frame at a time: each piece drawn asks for the next frame.
  await expect(async () => {
    await page.clock.runFor(20)
    expect(await changelog.locator('.markdown').getAttribute('aria-busy')).toBe('false')
  }).toPass()
  await expect(changelog.getByRole('heading', { name: new RegExp(`^${OLD!.replace(/\./g, '\\.')} `) })).toBeAttached()
})
