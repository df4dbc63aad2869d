import type { Page } from '@playwright/test'
import { ADMIN_HEADERS as headers } from './support/admin-api'
import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { publish } from './support/publish'
import { docsScreenshot } from './support/screenshots'
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
  await request.post('/api/v2/organizations/layouts/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'label', provider: 'null' } } } })
  await publish(request, 'layouts', 'label', 'null', '0.25.0', {
    'README.md':
      '# label\n\nMakes `name` and `tags` for **every** resource, as [the guide](https://example.com/guide) says.\n\n' +
      '> [!WARNING]\n> Changing `namespace` renames, and so replaces, every resource labelled with it.\n\n' +
      '> [!TIP]\n> Pass `context` from one label to the next.\n',
    'variables.tf':
      'variable "namespace" {\n  type    = string\n  default = null\n}\n\n' +
      // An object type longer than a glance (cloudposse's context is 20 lines): folded to its first line.
      `variable "context" {\n  type = object({\n${Array.from({ length: 18 }, (_, index) => `    field_${index} = optional(string)`).join('\n')}\n  })\n  default = {}\n}\n`
  })
  // Shaped like terraform-aws-modules/iam: a README at the root, the Terraform in submodules only.
  await request.post('/api/v2/organizations/layouts/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'iam', provider: 'aws' } } } })
  await publish(request, 'layouts', 'iam', 'aws', '5.39.0', {
    'README.md': '# AWS IAM Terraform module\n\nUse one of the submodules.\n',
    'modules/iam-user/main.tf': 'variable "name" {\n  type = string\n}\n\nresource "aws_iam_user" "this" {\n  name = var.name\n}\n'
  })
})

test('the usage offers only what can be called: not an example (a configuration to run), not a root without Terraform', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules/private/layouts/vpc/aws?part=examples%2Fcomplete')
  await expect(page.getByRole('note')).toContainText('examples/complete is an example: a configuration to run as it is')
  await expect(page.getByLabel('Usage', { exact: true })).toHaveCount(0)
  await expect(page.getByRole('button', { name: 'Copy usage' })).toHaveCount(0)

  // A collection (terraform-aws-iam): its root is empty by design, said so without a warning, and it opens on its submodules.
  await page.goto('/orgs/layouts/modules/private/layouts/iam/aws')
  await expect(page.getByRole('note')).toContainText('The root of this module holds no Terraform files: there is nothing to call. Choose one of its submodules under Submodule.')
  const collection = page.getByRole('region', { name: 'A collection of 1 submodules' })
  await expect(collection).toContainText('Its root holds no Terraform files by design')
  await expect(collection.getByRole('list', { name: 'Submodules' })).toContainText('iam-user · 1 input')
  await expect(page.getByText(/published with a warning/)).toHaveCount(0)
  await expectAccessible(page, 'a collection of submodules')
  await collection.getByRole('button', { name: 'iam-user' }).click()
  await expect(page).toHaveURL(/part=modules%2Fiam-user/)
  await page.goto('/orgs/layouts/modules/private/layouts/iam/aws')
  await expect(page.getByRole('button', { name: 'Copy usage' })).toHaveCount(0)
  await page.getByLabel('Submodule', { exact: true }).selectOption('modules/iam-user')
  await expect(page.getByLabel('Usage', { exact: true })).toContainText('source  = "homeport.localhost/layouts/iam/aws//modules/iam-user"')
  await expect(page.getByLabel('Usage', { exact: true })).toContainText('name = "" # string')
})

test('a description reads as text in the module list: its code spans as code, no backticks or brackets', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules')
  const row = page.getByRole('list', { name: 'Module list' }).getByRole('listitem').filter({ hasText: 'layouts/label/null' })
  await expect(row).toContainText('Makes name and tags for every resource, as the guide says.')
  await expect(row.locator('.module-description code')).toHaveText(['name', 'tags'])
  // The search looks at descriptions too: words of it find the module, as "kubernetes" finds eks.
  await page.getByLabel('Search modules by name, namespace, provider or description').fill('every resource')
  await expect(page.getByRole('list', { name: 'Module list' }).getByRole('listitem')).toHaveCount(1)
  await expect(page.getByRole('list', { name: 'Module list' })).toContainText('layouts/label/null')
})

test('a real module’s inputs stay in their card at every width, a long URL in a description wrapping within it', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules/private/layouts/vpc/aws?tab=inputs')
  const panel = page.getByRole('tabpanel', { name: /Inputs/ })
  await expect(panel.getByRole('region', { name: 'Optional inputs' })).toContainText('vpc_flow_log_config')
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 })
    // Against the width inside the scrollbar: a page 9 px wider than that scrolls sideways, whatever the window's width.
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }))
    expect(scrollWidth, `the page scrolls sideways at ${width} px`).toBeLessThanOrEqual(clientWidth)
    expect(await overflowing(page, '.input-entry, .input-entry *, [role="tabpanel"] input[type="search"]', '.card'), `at ${width} px`).toEqual([])
  }
})

test('a multi-line object type reads as the HCL it is: monospace, line by line, shown open up to 15 lines and folded beyond with its first line shown', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules/private/layouts/vpc/aws?tab=inputs')
  const panel = page.getByRole('tabpanel', { name: /Inputs/ })
  await panel.getByLabel('Filter inputs by name or description').fill('vpc_flow_log_config')
  const entry = panel.locator('.input-entry').filter({ hasText: 'vpc_flow_log_config' })
  const type = entry.getByRole('group', { name: /^Type/ })
  await expect(type).toBeVisible()
  // Eight lines: read at a glance, open.
  const laidOut = type.locator('pre')
  await expect(laidOut).toBeVisible()
  await expect(type.locator('details')).toHaveCount(0)
  expect(await laidOut.evaluate((pre) => getComputedStyle(pre).fontFamily)).toMatch(/mono|Menlo|Consolas/i)
  // Line by line, as written.
  expect((await laidOut.innerText()).split('\n').length).toBeGreaterThanOrEqual(8)
  await expect(laidOut).toContainText('max_aggregation_interval = optional(number, 600)')
  // The default, multi-line too, is laid out the same way.
  await expect(entry.locator('.input-default pre')).toContainText('"traffic_type": "ALL"')
  await expectAccessible(page, 'an input with an object type')

  // Twenty lines: folded, its first line shown, the rest on demand.
  await page.goto('/orgs/layouts/modules/private/layouts/label/null?tab=inputs')
  const long = page.getByRole('tabpanel', { name: /Inputs/ }).getByRole('group', { name: 'Type of context' })
  await expect(long.locator('summary')).toContainText('object({')
  await expect(long.locator('summary')).toContainText('20 lines')
  await expect(long.locator('pre')).toBeHidden()
  await long.locator('summary').click()
  await expect(long.locator('pre')).toContainText('field_17 = optional(string)')
  await expectAccessible(page, 'an input with a folded object type')
})

test('the usage keeps its lines as Copy copies them at every width, scrolling sideways rather than breaking an address, and a wide screen is used', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules/private/layouts/vpc/aws?part=modules%2Fvpc-endpoints')
  const usage = page.getByLabel('Usage', { exact: true })
  await expect(usage).toContainText('source  = "homeport.localhost/layouts/vpc/aws//modules/vpc-endpoints"')
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 })
    // Below 960 px the usage moves from the right column to the top of the main one (it is drawn anew there): measured once it has.
    await expect(page.getByLabel('About this module').getByLabel('Usage', { exact: true })).toHaveCount(width <= 960 ? 0 : 1)
    await expect(usage).toBeVisible()
    // Each line one line on screen: the box is as many line-heights tall as the snippet has lines.
    const { lines, height, lineHeight, wraps } = await usage.evaluate((pre) => {
      const style = getComputedStyle(pre)
      return { lines: pre.textContent.split('\n').length, height: pre.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom), lineHeight: parseFloat(style.lineHeight), wraps: style.whiteSpace }
    })
    expect(wraps, `at ${width} px`).toBe('pre')
    expect(Math.round(height / lineHeight), `lines on screen at ${width} px`).toBe(lines)
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }))
    expect(scrollWidth, `the page scrolls sideways at ${width} px`).toBeLessThanOrEqual(clientWidth)
  }
  // At 1920 px the page is not a narrow column in the middle of the screen.
  const main = await page.locator('.module-layout').boundingBox()
  expect(main!.width).toBeGreaterThan(1920 * 0.7)
})

test('a short module page ends where its content ends: nothing hidden below makes it scroll into blank space', async ({ page }) => {
  await signIn(page)
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/orgs/layouts/modules/private/layouts/label/null')
  await expect(page.getByRole('figure', { name: 'Downloads per day, the last 30 days' })).toBeVisible()
  const { scrollHeight, contentBottom } = await page.evaluate(() => ({
    scrollHeight: document.documentElement.scrollHeight,
    contentBottom: Math.max(...[...document.querySelectorAll('.module-layout > *')].map((element) => element.getBoundingClientRect().bottom + window.scrollY))
  }))
  expect(scrollHeight - contentBottom).toBeLessThan(120)
  // The numbers are still there for a screen reader.
  await expect(page.getByRole('table', { name: 'Downloads per day' })).toHaveCount(1)
})

test('a README’s tall, wide Inputs table scrolls in a box no taller than the window, its sideways scrollbar and header in sight', async ({ page }) => {
  await signIn(page)
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/orgs/layouts/modules/private/layouts/vpc/aws')
  const box = page.getByRole('region', { name: 'Table: Inputs' })
  await expect(box).toContainText('vpc_flow_log_config')
  const sizes = await box.evaluate((element) => ({ height: element.getBoundingClientRect().height, scrollHeight: element.scrollHeight, clientWidth: element.clientWidth, scrollWidth: element.scrollWidth }))
  // The table is taller than the window; its box is not: the sideways scrollbar is at the box's bottom, on screen.
  expect(sizes.scrollHeight).toBeGreaterThan(800)
  expect(sizes.height).toBeLessThanOrEqual(800)
  // Scrolled down inside the box, the header row stays at its top.
  await box.evaluate((element) => element.scrollBy(0, 2000))
  const [boxTop, headerTop] = await Promise.all([box.evaluate((element) => element.getBoundingClientRect().top), box.locator('thead th').first().evaluate((th) => th.getBoundingClientRect().top)])
  expect(Math.abs(headerTop - boxTop)).toBeLessThanOrEqual(2)
})

test('a long Outputs tab has a filter, as Inputs has', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules/private/layouts/vpc/aws?tab=outputs')
  const panel = page.getByRole('tabpanel', { name: /Outputs/ })
  const table = panel.getByRole('region', { name: 'Outputs' })
  await expect(table.getByRole('row')).not.toHaveCount(0)
  const all = await table.getByRole('row').count()
  await panel.getByLabel('Filter outputs by name or description').fill('route table')
  await expect(table.getByRole('row').first()).toBeVisible()
  const rows = table.getByRole('row')
  await expect.poll(() => rows.count()).toBeLessThan(all)
  for (const name of await table.locator('tbody td:first-child').allInnerTexts()) expect(name).toMatch(/route_table_ids$/)
  await panel.getByLabel('Filter outputs by name or description').fill('no such output')
  await expect(panel).toContainText('No output matches “no such output”.')
  await expectAccessible(page, 'the Outputs tab, filtered')
})

test('GitHub’s alerts in a README read as alerts: a note named by its kind, in its colour, light and dark', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules/private/layouts/label/null')
  const readme = page.locator('.markdown')
  const warning = readme.getByRole('note').filter({ hasText: 'Warning' })
  await expect(warning).toContainText('Changing namespace renames, and so replaces, every resource labelled with it.')
  await expect(warning.locator('code')).toHaveText('namespace')
  await expect(readme.getByRole('note').filter({ hasText: 'Tip' })).toContainText('Pass context from one label to the next.')
  // Not the raw marker GitHub hides.
  await expect(readme).not.toContainText('[!WARNING]')
  await expectAccessible(page, 'a README with alerts')
})

test('a version’s files can be read as its archive holds them, the part’s own first, its main.tf shown to begin with, and the archive downloaded', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules/private/layouts/vpc/aws?part=modules%2Fvpc-endpoints&tab=files')
  const panel = page.getByRole('tabpanel', { name: 'Files' })
  const list = panel.getByRole('list', { name: 'Files of 5.8.1' })
  await expect(list.getByRole('listitem').first()).toContainText('modules/vpc-endpoints/')
  await expect(panel.getByLabel('The text of modules/vpc-endpoints/main.tf')).toBeVisible()
  // Terraform's files are highlighted as HCL.
  await expect(panel.getByLabel('The text of modules/vpc-endpoints/main.tf').locator('.token.keyword').first()).toHaveText(/variable|resource/)
  // Checked with a small file shown: axe on vpc's 70 KB variables.tf (thousands of highlighted spans) takes most of a minute.
  await expectAccessible(page, 'the Files tab')
  // The archive itself, as it was published, under its version's name.
  const download = page.waitForEvent('download')
  await panel.getByRole('button', { name: 'Download 5.8.1 (.tar.gz)' }).click()
  expect((await download).suggestedFilename()).toBe('vpc-aws-5.8.1.tar.gz')
  await list.getByRole('button', { name: 'variables.tf', exact: true }).click()
  await expect(panel.getByLabel('The text of variables.tf')).toContainText('variable "vpc_flow_log_config" {')
  await expect(list.getByRole('button', { name: 'variables.tf', exact: true })).toHaveAttribute('aria-current', 'true')
  // The file chosen is in the address: a reload (or a link) shows it again.
  await expect(page).toHaveURL(/[?&]file=variables\.tf/)
  await page.reload()
  const text = panel.getByLabel('The text of variables.tf')
  await expect(text).toContainText('variable "vpc_flow_log_config" {')
  // Its lines as written, never wrapped, numbered in a gutter that copying leaves out.
  expect(await text.evaluate((pre) => getComputedStyle(pre).whiteSpace)).toBe('pre')
  const gutter = text.locator('.gutter')
  await expect(gutter).toHaveAttribute('aria-hidden', 'true')
  expect((await gutter.innerText()).split('\n').slice(0, 3)).toEqual(['1', '2', '3'])
  expect(await gutter.evaluate((element) => getComputedStyle(element).userSelect)).toBe('none')
  // A long path breaks after its slashes, not inside a name.
  const endpoints = list.getByRole('button', { name: 'modules/vpc-endpoints/main.tf' })
  expect(await endpoints.evaluate((button) => button.querySelectorAll('wbr').length)).toBe(2)
  await page.evaluate(() => window.scrollTo(0, 0))
  await docsScreenshot(page, 'module-files.png')
})

test('the module list sorts by name, downloads or publication, each row with its downloads, the order kept in the address', async ({ page, request }) => {
  expect((await request.get('/api/registry/v1/modules/layouts/label/null/0.25.0/download', { headers })).status()).toBe(204)
  await signIn(page)
  await page.goto('/orgs/layouts/modules')
  const rows = page.getByRole('list', { name: 'Module list' }).getByRole('listitem')
  await expect(rows.first()).toContainText('layouts/iam/aws')
  await page.getByLabel('Sort').selectOption('Most downloaded')
  await expect(rows.first()).toContainText('layouts/label/null')
  await expect(rows.first()).toContainText(/\d+ downloads?/)
  await expect(page).toHaveURL(/sort=-downloads/)
  await page.reload()
  await expect(page.getByLabel('Sort')).toHaveValue('-downloads')
  await expect(rows.first()).toContainText('layouts/label/null')
})

test('a long module list scrolls with the page, not in a box of its own, loading the next page as it comes', async ({ page, request }) => {
  await request.post('/api/v2/organizations', { headers, data: { data: { type: 'organizations', attributes: { name: 'many', email: 'platform@many.example' } } } })
  for (let index = 0; index < 130; index++) {
    const name = `mod${String(index).padStart(3, '0')}`
    await request.post('/api/v2/organizations/many/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name, provider: 'aws' } } } })
  }
  await signIn(page)
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.goto('/orgs/many/modules')
  const list = page.getByRole('list', { name: 'Module list' })
  await expect(list.getByRole('listitem').first()).toContainText('many/mod000/aws')
  // No inner scroller: the list is as tall as its rows, and the page scrolls.
  expect(await list.evaluate((element) => getComputedStyle(element).overflowY)).toBe('visible')
  await expect(page.getByText('130 modules')).toBeVisible()
  // Scrolled to the end of the first page of 100, the next one loads; scrolled on, its last module comes into view.
  await expect(async () => {
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight))
    await expect(list.getByText('many/mod129/aws')).toBeInViewport({ timeout: 500 })
  }).toPass({ timeout: 15_000 })
})

test('the header says what the module is, who publishes it and how often it was installed, at every width and in both schemes', async ({ page }) => {
  await signIn(page)
  await page.goto('/orgs/layouts/modules/private/layouts/vpc/aws')
  const header = page.locator('header.module-header')
  await expect(header.getByRole('heading', { level: 1, name: 'vpc' })).toBeVisible()
  await expect(header).toContainText('Terraform module which creates VPC resources on AWS')
  await expect(header).toContainText(/layouts\/vpc\/aws · private ready · published by layouts · \d+ downloads?/)
  // The documentation's tabs are one row at 1280 px (a row too long scrolls, fading at its end), and the version, submodule and example menus one row too.
  await page.setViewportSize({ width: 1280, height: 900 })
  const tabs = page.getByRole('tablist', { name: 'Documentation' })
  const rows = await tabs.getByRole('tab').evaluateAll((tabs) => new Set(tabs.map((tab) => Math.round(tab.getBoundingClientRect().top))).size)
  expect(rows).toBe(1)
  const menus = await page.locator('.doc-controls select').evaluateAll((selects) => new Set(selects.map((select) => Math.round(select.getBoundingClientRect().top))).size)
  expect(menus).toBe(1)
  // At 1920 px a list uses the width: the vpc module's description is read whole.
  await page.setViewportSize({ width: 1920, height: 900 })
  await page.goto('/orgs/layouts/modules')
  const description = page.getByRole('list', { name: 'Module list' }).getByRole('listitem').filter({ hasText: 'layouts/vpc/aws' }).locator('.module-description')
  await expect(description).toBeVisible()
  expect(await description.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true)
  // axe at each width on a short module (on vpc's README it takes seconds a scheme).
  await page.goto('/orgs/layouts/modules/private/layouts/label/null')
  await expect(page.locator('header.module-header')).toContainText('Makes name and tags for every resource')
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 })
    await expectAccessible(page, `a module page at ${width} px`)
  }
})
