import type { APIRequestContext, Page } from '@playwright/test'
import { ADMIN_HEADERS as headers } from './support/admin-api'
import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { publish } from './support/publish'
import { signIn } from './support/session'
import { vpcModule } from './support/vpc-module'
import { docsScreenshot } from './support/screenshots'

/** A version of the vpc module, calling the organization's label module, from `commit`. */
const publishVpc = (request: APIRequestContext, org: string, version: string, commit: string) =>
  publish(request, org, 'vpc', 'aws', version, vpcModule(version, `homeport.localhost/${org}/label/null`), commit)

/** axe at the two sizes users have (a small laptop window, a full-HD screen), light and dark. */
async function expectAccessibleEverywhere(page: Page, screen: string) {
  // Four axe runs over a page the size of vpc's (a 237-row README table) take up to half a minute on two cores.
  test.info().setTimeout(test.info().timeout + 45_000)
  for (const viewport of [
    { width: 800, height: 600 },
    { width: 1920, height: 1080 }
  ]) {
    await page.setViewportSize(viewport)
    await expectAccessible(page, `${screen} at ${viewport.width} px`)
  }
  await page.setViewportSize({ width: 1280, height: 800 })
}

const MODULE = '/orgs/vpcs/modules/private/vpcs/vpc/aws'

// Three versions of a module the size of terraform-aws-modules/vpc (237 inputs, submodules,
// examples, a changelog) and one shaped like cloudposse's null-label, so the list is a list.
test.beforeAll(async ({ request }) => {
  // Once per run: a worker that starts again after a failure finds them published.
  if ((await request.get('/api/v2/organizations/vpcs/registry-modules/private/vpcs/vpc/aws', { headers })).ok()) return
  await request.post('/api/v2/organizations', { headers, data: { data: { type: 'organizations', attributes: { name: 'vpcs', email: 'platform@vpcs.example' } } } })
  await request.post('/api/v2/organizations/vpcs/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'vpc', provider: 'aws' } } } })
  await publishVpc(request, 'vpcs', '5.8.0', '3f1c9a0b7d2e4c6f8a1b3c5d7e9f0a2b4c6d8e0f')
  await publishVpc(request, 'vpcs', '5.8.1', '9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d')
  await publishVpc(request, 'vpcs', '6.0.0-rc.1', 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678')
  await request.post('/api/v2/organizations/vpcs/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'label', provider: 'null' } } } })
  await publish(request, 'vpcs', 'label', 'null', '0.25.0', {
    'README.md': '# terraform-null-label\n\nTerraform module designed to generate consistent names and tags for resources.\n',
    'variables.tf': 'variable "namespace" {\n  type    = string\n  default = null\n}\n'
  })
})

test('lists the modules with their descriptions and latest versions, each a link to its page', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/vpcs/modules')
  const list = page.getByRole('list', { name: 'Module list' })
  await expect(list.getByRole('listitem').filter({ hasText: 'label' })).toContainText('Terraform module designed to generate consistent names')
  await expect(list.getByRole('listitem').filter({ hasText: 'vpcs/vpc/aws' })).toContainText('v5.8.1')
  await expect(list.getByRole('listitem').filter({ hasText: 'vpcs/vpc/aws' })).toContainText('Terraform module which creates VPC resources on AWS')
  await docsScreenshot(page, 'module-list.png')
  await expectAccessibleEverywhere(page, 'the module list')
  await page.getByRole('link', { name: /vpcs\/vpc\/aws/ }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'vpc', exact: true })).toBeVisible()
  await expect(page).toHaveURL(new RegExp(`${MODULE}$`))
})

test('opens at the latest stable version, with its date and commit; the prerelease says so', async ({ page }) => {
  await signIn(page)
  await page.goto(MODULE)
  const menu = page.getByLabel('Version', { exact: true })
  await expect(menu).toHaveValue('5.8.1')
  const today = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(new Date())
  await expect(menu.locator('option')).toHaveText([`6.0.0-rc.1 (prerelease) · ${today} · commit a1b2c3d`, `5.8.1 (latest) · ${today} · commit 9e8d7c6`, `5.8.0 · ${today} · commit 3f1c9a0`])
  await expect(page.getByLabel('About this version')).toContainText('latest · published')
  await expect(page.getByLabel('About this version')).toContainText('from commit 9e8d7c6')
})

test('shows the README readably: badges from the web as placeholders, its tables, a table of contents', async ({ page }) => {
  await signIn(page)
  await page.goto(MODULE)
  const readme = page.locator('.markdown')
  await expect(readme.getByRole('heading', { name: 'AWS VPC Terraform module' })).toBeVisible()
  await expect(readme.getByRole('region', { name: 'Table: Inputs' })).toBeVisible()
  // A table of contents of its sections, each scrolling to its heading.
  const contents = page.getByRole('navigation', { name: 'Contents' })
  await contents.getByText('Contents (7)').click()
  await contents.getByRole('link', { name: 'Outputs' }).click()
  await expect(readme.getByRole('heading', { name: 'Outputs' })).toBeFocused()
  await expect(readme.getByRole('heading', { name: 'Outputs' })).toBeInViewport()
  await page.evaluate(() => window.scrollTo(0, 0))
  await expect(readme.locator('.image-placeholder').first()).toHaveText('Image: SWUbanner (raw.githubusercontent.com)')
  await expect(readme.locator('img')).toHaveCount(0)
  // A code block is one block: no inline-code tint behind each of its lines.
  expect(await readme.locator('pre code').first().evaluate((code) => getComputedStyle(code).backgroundColor)).toBe('rgba(0, 0, 0, 0)')
  await docsScreenshot(page, 'module-vpc.png')
  await expectAccessibleEverywhere(page, 'the vpc module’s README')
})

test('lists its 237 inputs, the required ones first, each findable by a filter; the tab is in the address', async ({ page }) => {
  await signIn(page)
  await page.goto(MODULE)
  await page.getByRole('tab', { name: /Inputs/ }).click()
  await expect(page.getByRole('tab', { name: /Inputs/ })).toContainText('237')
  const inputs = page.getByRole('tabpanel', { name: /Inputs/ })
  await expect(inputs.getByRole('region', { name: 'Required inputs' })).toContainText('azs')
  await inputs.getByLabel('Filter inputs by name or description').fill('flow log')
  await expect(inputs.getByRole('region', { name: 'Optional inputs' }).locator('dt')).toHaveText([/vpc_flow_log_config/])
  await expect(inputs.getByRole('region', { name: 'Optional inputs' })).toContainText('"max_aggregation_interval": 600')
  await expectAccessibleEverywhere(page, 'the vpc module’s inputs')
  // A reload (or a shared link) opens the tab again.
  await expect(page).toHaveURL(/\/vpc\/aws\/5\.8\.1\?tab=inputs$|\/vpc\/aws\?tab=inputs$/)
  await page.reload()
  await expect(page.getByRole('tab', { name: /Inputs/ })).toHaveAttribute('aria-selected', 'true')
})

test('shows the changelog it ships in a tab another version keeps, the version in the address', async ({ page }) => {
  await signIn(page)
  await page.goto(MODULE)
  await page.getByRole('tab', { name: 'Changelog' }).click()
  const changelog = page.getByRole('tabpanel', { name: 'Changelog' })
  await expect(changelog.getByRole('heading', { name: /5\.8\.1/ })).toBeVisible()
  await expect(changelog).toContainText('Keep azs in the order given')
  // Years of releases, drawn a piece a frame after the first screen: all of them, each heading with an id of its own.
  await expect(changelog.locator('.markdown')).toHaveAttribute('aria-busy', 'false')
  await expect(changelog.getByRole('heading', { name: /^0\.2\.0 / })).toBeAttached()
  const ids = await changelog.locator('.markdown h2, .markdown h3').evaluateAll((headings) => headings.map((heading) => heading.id))
  expect(ids.length).toBeGreaterThan(400)
  expect(new Set(ids).size).toBe(ids.length)
  await expectAccessibleEverywhere(page, 'the vpc module’s changelog')
  await page.reload()
  await expect(page.getByRole('tab', { name: 'Changelog' })).toHaveAttribute('aria-selected', 'true')
  await page.getByLabel('Version', { exact: true }).selectOption('5.8.0')
  await expect(page).toHaveURL(/\/vpc\/aws\/5\.8\.0\?tab=changelog$/)
  await expect(page.getByRole('tab', { name: 'Changelog' })).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByLabel('About this version')).toContainText('from commit 3f1c9a0')
})

test('says what it needs: Terraform beside its providers, the modules it calls linked, an example’s local call opening that submodule', async ({ page }) => {
  await signIn(page)
  await page.goto(MODULE)
  await page.getByRole('tab', { name: /Providers/ }).click()
  await expect(page.getByRole('tabpanel', { name: /Providers/ })).toContainText('Requires Terraform >= 1.5.7')
  await page.getByRole('tab', { name: /Dependencies/ }).click()
  await expect(page.getByRole('tabpanel', { name: /Dependencies/ }).getByRole('link', { name: 'homeport.localhost/vpcs/label/null' })).toHaveAttribute('href', '/orgs/vpcs/modules/private/vpcs/label/null')
  await page.getByLabel('Example').selectOption('examples/complete')
  await page.getByRole('tabpanel', { name: /Dependencies/ }).getByRole('button', { name: '../../modules/vpc-endpoints' }).click()
  await expect(page.getByLabel('Submodule')).toHaveValue('modules/vpc-endpoints')
  await expect(page).toHaveURL(/\?part=modules%2Fvpc-endpoints&tab=dependencies$/)
})

test('gives a usage that follows the submodule in the address, and fills in the required inputs', async ({ page }) => {
  await signIn(page)
  await page.goto(`${MODULE}?part=modules%2Fvpc-endpoints&tab=changelog`)
  await expect(page.getByLabel('Submodule')).toHaveValue('modules/vpc-endpoints')
  const usage = page.getByLabel('Usage')
  await expect(usage).toContainText('source  = "homeport.localhost/vpcs/vpc/aws//modules/vpc-endpoints"')
  await expect(usage).toContainText('vpc_id = "" # string')
  await page.getByLabel('Submodule').selectOption('')
  await expect(usage).toContainText('name = "" # string')
  await expect(usage).toContainText('azs  = [] # list(string)')
  await page.getByText('Fill in the 2 required inputs').click()
  await page.getByLabel(/^azs/).fill('["eu-west-1a", "eu-west-1b"]')
  await expect(usage).toContainText('azs  = ["eu-west-1a", "eu-west-1b"]')
  await expectAccessibleEverywhere(page, 'the vpc module with the usage builder open')
})
