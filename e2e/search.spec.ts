import { ADMIN_HEADERS as headers } from './support/admin-api'
import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { publish } from './support/publish'
import { signIn } from './support/session'
import { docsScreenshot } from './support/screenshots'

test('the top bar searches every organization’s modules by their words, and / focuses it', async ({ page, request }) => {
  await request.post('/api/v2/organizations', { headers, data: { data: { type: 'organizations', attributes: { name: 'searchable', email: 'platform@searchable.example' } } } })
  await request.post('/api/v2/organizations/searchable/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'eks', provider: 'aws' } } } })
  await publish(request, 'searchable', 'eks', 'aws', '20.8.4', {
    'README.md': '# EKS\n\nA managed Kubernetes control plane with its node groups.\n',
    'main.tf': 'variable "cluster_name" {\n  type = string\n}\n'
  })
  await signIn(page)
  // `/` from anywhere but a field focuses the search.
  await page.locator('body').press('/')
  const box = page.getByRole('search').getByLabel('Search Homeport')
  await expect(box).toBeFocused()
  await box.fill('kubernetes')
  await box.press('Enter')
  await expect(page).toHaveURL(/\/search\?q=kubernetes$/)
  await expect(page).toHaveTitle('Search: kubernetes · Homeport')
  const modules = page.getByRole('region', { name: /^Modules/ })
  await expect(modules.getByRole('link', { name: 'homeport.localhost/searchable/eks/aws' })).toBeVisible()
  await expect(modules).toContainText('Found in: description')
  await docsScreenshot(page, 'search.png')
  await expectAccessible(page, 'the search results')
  // On a narrow window the search takes a row of its own under the brand and the links, and nothing scrolls sideways.
  await page.setViewportSize({ width: 800, height: 800 })
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(800)
  await page.screenshot({ path: test.info().outputPath('search-800.png') })
  await page.setViewportSize({ width: 1280, height: 720 })
  await modules.getByRole('link', { name: 'homeport.localhost/searchable/eks/aws' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'eks', exact: true })).toBeVisible()

  // Suggestions as one types: arrows choose one, Enter opens it; Escape closes them.
  const suggestions = page.getByRole('listbox', { name: 'Suggestions' })
  await box.fill('eks')
  await expect(suggestions.getByRole('option', { name: 'module homeport.localhost/searchable/eks/aws' })).toBeVisible()
  await expect(box).toHaveAttribute('aria-expanded', 'true')
  await expectAccessible(page, 'search suggestions')
  await box.press('Escape')
  await expect(suggestions).toBeHidden()
  await box.fill('eks ')
  await expect(suggestions.getByRole('option').first()).toBeVisible()
  await box.press('ArrowDown')
  await expect(suggestions.getByRole('option').first()).toHaveAttribute('aria-selected', 'true')
  await expect(box).toHaveAttribute('aria-activedescendant', 'search-suggestion-0')
  await box.press('Enter')
  await expect(page.getByRole('heading', { level: 1, name: 'eks', exact: true })).toBeVisible()

  // An input's name finds it too; words that match nothing say so.
  await page.goto('/search?q=cluster_name')
  await expect(page.getByRole('region', { name: /^Modules/ })).toContainText('homeport.localhost/searchable/eks/aws')
  await page.goto('/search?q=nothing%20like%20it')
  await expect(page.getByText('Nothing matches “nothing like it”')).toBeVisible()
})

test('a public module is curated from the GUI, found by the global search, and a module that calls it links to it', async ({ page, request }) => {
  await request.post('/api/v2/organizations', { headers, data: { data: { type: 'organizations', attributes: { name: 'curating', email: 'platform@curating.example' } } } })
  await signIn(page)
  await page.goto('/orgs/curating/modules')
  await page.getByText('Curate a public module').click()
  const form = page.getByRole('form', { name: 'Curate a public module' })
  await form.getByLabel('Its address on the public registry').fill('not an address')
  await expect(form.getByRole('button', { name: 'Curate it' })).toBeDisabled()
  await form.getByLabel('Its address on the public registry').fill('cloudposse/label/null')
  await expectAccessible(page, 'curating a public module')
  await form.getByRole('button', { name: 'Curate cloudposse/label/null' }).click()
  await expect(page).toHaveURL(/\/orgs\/curating\/modules\/public\/cloudposse\/label\/null$/)
  await expect(page.getByRole('heading', { level: 1, name: 'label' })).toBeVisible()
  // The audit trail says it is a public module, not one of the organization's own.
  await page.goto('/orgs/curating/audit')
  await expect(page.getByRole('region', { name: 'Audit events' }).getByRole('row').nth(1)).toContainText('created public module cloudposse/label/null')

  // No version mirrored (the test machines reach no public registry), and the search finds it all the same.
  await page.goto('/search?q=cloudposse')
  const modules = page.getByRole('region', { name: /^Modules/ })
  await expect(modules.getByRole('link', { name: 'registry.terraform.io/cloudposse/label/null' })).toBeVisible()
  await expect(modules).toContainText('no version mirrored yet')

  // A module of the organization calling it links to its page here; one it does not curate, to the public registry's.
  await request.post('/api/v2/organizations/curating/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'app', provider: 'aws' } } } })
  await publish(request, 'curating', 'app', 'aws', '1.0.0', {
    'main.tf':
      'module "label" {\n  source  = "cloudposse/label/null"\n  version = "0.25.0"\n}\n\n' +
      'module "vpc" {\n  source  = "registry.terraform.io/terraform-aws-modules/vpc/aws"\n  version = "5.8.1"\n}\n'
  })
  await page.goto('/orgs/curating/modules/private/curating/app/aws?tab=dependencies')
  const panel = page.getByRole('tabpanel', { name: /Dependencies/ })
  await expect(panel.getByRole('link', { name: 'cloudposse/label/null' })).toHaveAttribute('href', '/orgs/curating/modules/public/cloudposse/label/null')
  const external = panel.getByRole('link', { name: /terraform-aws-modules\/vpc\/aws/ })
  await expect(external).toHaveAttribute('href', 'https://registry.terraform.io/modules/terraform-aws-modules/vpc/aws/5.8.1')
  await expect(external).toHaveAttribute('target', '_blank')
})
