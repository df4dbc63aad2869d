import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { moduleArchive } from '../tests/helpers/archives'
import { providerDocsTree } from '../tests/helpers/provider-docs'
import { makeSigningKey, providerRelease, publishProvider, putFile } from '../tests/helpers/providers'
import { adminApi, adminPost } from './support/admin-api'
import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { signIn } from './support/session'
import { docsScreenshot } from './support/screenshots'
import { testFolder } from './support/test-folder'

const ORG = 'docs-e2e'

/** A private provider with two versions: 2.0.0's docs uploaded through the API, 2.1.0's from a folder in the GUI. */
test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage()
  const api = adminApi(page)
  await adminPost(page, '/organizations', { data: { type: 'organizations', attributes: { name: ORG, email: `platform@${ORG}.example` } } })
  const key = await makeSigningKey('Docs E2E')
  await publishProvider(api, ORG, await providerRelease('widget', '2.0.0', ['linux_amd64'], key), key)
  await publishProvider(api, ORG, await providerRelease('widget', '2.1.0', ['linux_amd64'], key), key)
  const version = await api.api('GET', `/organizations/${ORG}/registry-providers/private/${ORG}/widget/versions/2.0.0`)
  const link = (version.body as { data: { links: Record<string, string> } }).data.links['docs-upload']!
  const uploaded = await putFile(link, await moduleArchive(providerDocsTree()))
  expect(uploaded.status).toBe(200)
  await page.close()
})

test('reads a private provider’s docs: the registry’s navigation, a filter, links between docs, versions, search, sanitized, by keyboard and at every width', async ({ page }) => {
  await signIn(page)
  await page.goto(`/orgs/${ORG}/providers/widget?version=2.0.0`)
  const docs = page.getByRole('region', { name: 'Documentation' })
  const nav = docs.getByRole('navigation', { name: 'Documentation' })
  // The overview first, rendered: its callout as a warning, its HCL highlighted.
  await expect(docs.getByRole('heading', { level: 1, name: 'Widget Provider' })).toBeVisible()
  await expect(docs.getByRole('note').filter({ hasText: 'Hard-coded credentials are not recommended' })).toBeVisible()
  await expect(docs.locator('code.language-hcl .token').first()).toBeVisible()
  // The registry's order: guides, functions, then the resources by subcategory, Deprecated last.
  const groups = await nav.locator('h3').allTextContents()
  expect(groups).toEqual(['Overview', 'Guides', 'Upgrade Guides', 'Functions', 'widget', 'Compute', 'Databases', 'Identity', 'Networking', 'Storage', 'Deprecated'])
  await nav.getByRole('link', { name: 'widget_server', exact: true }).first().click()
  await expect(docs.getByRole('heading', { level: 1, name: 'widget_server (Resource)' })).toBeVisible()
  await expect(page).toHaveURL(/doc=resources%2Fserver/)
  await expect(nav.getByRole('link', { name: 'widget_server', exact: true }).first()).toHaveAttribute('aria-current', 'page')
  // A nested block's anchor scrolls within the doc.
  await docs.getByRole('link', { name: 'below for nested schema' }).first().click()
  await expect(page).toHaveURL(/doc=resources%2Fserver/)

  // The filter narrows the navigation by name.
  await nav.getByLabel('Filter the docs').fill('bucket')
  await expect(nav.getByRole('link')).toHaveText(['widget_bucket', 'widget_bucket_policy', 'widget_bucket'])
  await nav.getByLabel('Filter the docs').fill('')

  // A link to another doc opens it here.
  await nav.getByRole('link', { name: 'Getting started with the Widget provider' }).click()
  await docs.locator('.markdown').getByRole('link', { name: 'network' }).click()
  await expect(docs.getByRole('heading', { level: 1, name: 'widget_network (Resource)' })).toBeVisible()

  // The hostile page's script never runs, its javascript: link goes nowhere, its images are not fetched.
  const remote: string[] = []
  page.on('request', (request) => {
    if (!request.url().startsWith(new URL(page.url()).origin)) remote.push(request.url())
  })
  await nav.getByRole('link', { name: 'A page that tries too much' }).click()
  await expect(docs.getByText('Safe text stays.')).toBeVisible()
  expect(await page.evaluate(() => (window as unknown as { __docsPwned?: boolean }).__docsPwned)).toBeUndefined()
  await expect(docs.locator('.markdown script, .markdown iframe, .markdown img')).toHaveCount(0)
  await docs.getByText('Click me').click()
  expect(await page.evaluate(() => (window as unknown as { __docsPwned?: boolean }).__docsPwned)).toBeUndefined()
  expect(remote).toEqual([])

  // By keyboard: the filter, then the first doc it leaves, opened with Enter.
  await nav.getByLabel('Filter the docs').focus()
  await page.keyboard.type('parse_arn')
  await page.keyboard.press('Tab')
  await page.keyboard.press('Enter')
  await expect(docs.getByRole('heading', { level: 1, name: 'function: parse_arn' })).toBeVisible()
  await nav.getByLabel('Filter the docs').fill('')
  await nav.getByRole('link', { name: 'widget_load_balancer' }).click()

  for (const width of [800, 1280, 1920]) {
    await page.setViewportSize({ width, height: 900 })
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      // One for the docs (the providers guide shows it); the others for a person looking at the run.
      if (width === 1280 && colorScheme === 'light') await docsScreenshot(page, 'provider-docs.png')
      else await page.screenshot({ path: test.info().outputPath(`provider-docs-${width}-${colorScheme}.png`) })
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize({ width: 1280, height: 800 })
  await expectAccessible(page, 'a provider’s docs')

  // The global search finds a resource by the name a configuration gives it, and opens its doc.
  await page.keyboard.press('Escape')
  await page.locator('body').press('/')
  await page.keyboard.type('widget_load_balancer')
  await page.keyboard.press('Enter')
  const found = page.getByRole('region', { name: /Provider docs/ })
  await found.getByRole('link', { name: 'widget_load_balancer' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'widget_load_balancer (Resource)' })).toBeVisible()
})

test('uploads a version’s docs from a folder, and switches versions', async ({ page }) => {
  const repository = testFolder('provider')
  for (const [path, text] of Object.entries(providerDocsTree())) {
    mkdirSync(dirname(join(repository, path)), { recursive: true })
    writeFileSync(join(repository, path), path.includes('getting-started') ? text.replace('# Getting started', '# Getting started with 2.1') : text)
  }
  await signIn(page)
  await page.goto(`/orgs/${ORG}/providers/widget`)
  const docs = page.getByRole('region', { name: 'Documentation' })
  // 2.1.0, the newest, has none yet: the newest with docs is shown.
  await expect(docs.getByLabel('Version', { exact: true })).toHaveValue('2.0.0')
  await docs.getByText('Upload docs').click()
  await docs.getByLabel('For version').selectOption('2.1.0')
  await docs.getByLabel('Docs folder').setInputFiles(join(repository, 'docs'))
  await expect(docs.getByRole('status')).toHaveText('2.1.0 now has the docs of 40 files.')
  await docs.getByLabel('Version', { exact: true }).selectOption('2.1.0')
  await docs.getByRole('navigation', { name: 'Documentation' }).getByRole('link', { name: 'Getting started with the Widget provider' }).click()
  await expect(docs.getByRole('heading', { level: 1, name: 'Getting started with 2.1' })).toBeVisible()
  await expect(page).toHaveURL(/version=2\.1\.0/)
})
