import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { APIRequestContext, Page } from '@playwright/test'
import { expect, test } from './support/fixtures'
import { ADMIN_HEADERS as headers } from './support/admin-api'
import { publish } from './support/publish'
import { openOrganization, signIn } from './support/session'
import { docsScreenshot } from './support/screenshots'
import { expectAccessible } from './support/axe'
import { testFolder } from './support/test-folder'


/** A vpc-like module whose outputs are `outputs`. */
function vpc(outputs: string[]): Record<string, string> {
  return {
    'variables.tf': 'variable "cidr" {\n  description = "The IPv4 CIDR block for the VPC."\n  type        = string\n}\n',
    'outputs.tf': outputs.map((name) => `output "${name}" {\n  description = "The ${name} of the VPC"\n  value       = "x"\n}\n`).join('\n')
  }
}

/** On the Publish page: a folder of `files` picked as the vpc module's (or `name`'s) `version`, and its interface checked. */
async function checkBeforePublish(page: Page, files: Record<string, string>, version: string, name = 'vpc') {
  const folder = testFolder('vpc')
  for (const [file, text] of Object.entries(files)) writeFileSync(join(folder, file), text)
  await page.getByLabel('Module folder', { exact: true }).setInputFiles(folder)
  await page.getByLabel('Module name').fill(name)
  await page.getByLabel('Provider').fill('aws')
  await page.getByLabel('Version', { exact: true }).fill(version)
  await page.getByRole('button', { name: `Check what ${version} changes` }).click()
}

/** A version of the organization's vpc module, published through the API. */
const publishVersion = (request: APIRequestContext, org: string, version: string, files: Record<string, string>) => publish(request, org, 'vpc', 'aws', version, files)

test('shows what a version changes in the interface, on the module page and before a publish', async ({ page }) => {
  await signIn(page)
  await openOrganization(page, 'interfaces')
  await page.request.post('/api/v2/organizations/interfaces/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'vpc', provider: 'aws' } } } })
  await publishVersion(page.request, 'interfaces', '1.3.0', vpc(['vpc_id', 'vpc_arn']))
  await publishVersion(page.request, 'interfaces', '1.4.0', vpc(['vpc_id']))

  await page.goto('/orgs/interfaces/modules/private/interfaces/vpc/aws')
  // A tab of the documentation, at the top of the page: what the version shown changes since the one before.
  await page.getByRole('tab', { name: 'Changes' }).click()
  const changes = page.getByRole('region', { name: 'Interface changes' })
  await expect(changes).toBeInViewport()
  await expect(changes.getByRole('alert')).toHaveText('1.4.0 removes output vpc_arn: that is a breaking change in a minor release.')
  await expect(changes.getByRole('list', { name: 'Interface changes from 1.3.0 to 1.4.0' })).toContainText('breaking 1.4.0 removes output vpc_arn')
  await docsScreenshot(changes, 'interface-diff.png')
  await expectAccessible(page, 'the Changes tab')
  // A link to a version that is not published says so, and offers no usage for it.
  await page.goto('/orgs/interfaces/modules/private/interfaces/vpc/aws/9.9.9')
  await expect(page.getByRole('heading', { name: 'Version 9.9.9 is not published' })).toBeVisible()
  await expect(page.getByLabel('Usage')).toHaveCount(0)
  await page.getByRole('link', { name: 'See 1.4.0, the latest.' }).click()
  // An older version says a newer one exists, above its documentation.
  await page.goto('/orgs/interfaces/modules/private/interfaces/vpc/aws/1.3.0')
  await expect(page.getByRole('note').filter({ hasText: 'older version' })).toHaveText('This is an older version of the module. See 1.4.0, the latest.')
  // Another version compared with, and the comparison is a link: the address says which, a reload keeps it.
  await page.goto('/orgs/interfaces/modules/private/interfaces/vpc/aws/1.3.0?tab=changes')
  await changes.getByLabel('What 1.3.0 changes since').selectOption('1.4.0')
  await expect(page).toHaveURL(/\/vpc\/aws\/1\.3\.0\?tab=changes&from=1\.4\.0$/)
  await expect(changes.getByRole('list')).toContainText('additive 1.3.0 adds output vpc_arn')
  await page.reload()
  await expect(changes.getByLabel('What 1.3.0 changes since')).toHaveValue('1.4.0')
  await expect(changes.getByRole('list')).toContainText('additive 1.3.0 adds output vpc_arn')

  // Before a publish: a folder that adds an output, proposed as a patch release.
  await page.getByRole('link', { name: 'interfaces' }).click()
  await page.getByRole('link', { name: 'Publish', exact: true }).click()
  await checkBeforePublish(page, vpc(['vpc_id', 'igw_id']), '1.4.1')
  const preview = page.getByRole('region', { name: 'Interface change' })
  await expect(preview.getByRole('alert')).toHaveText('1.4.1 adds output igw_id: that is new interface in a patch release (a minor release says so).')
  // The form proposes the version the change needs: a proposal only (the one primary action stays Publish), said once taken.
  await expect(page.getByRole('form', { name: 'Version to publish' }).locator('button.primary')).toHaveCount(1)
  await preview.getByRole('button', { name: 'Use 1.5.0 as the version' }).click()
  await expect(page.getByLabel('Version', { exact: true })).toHaveValue('1.5.0')
  await expect(page.getByRole('status').filter({ hasText: 'The version is now 1.5.0: Publish below publishes it as 1.5.0.' })).toBeVisible()
  await page.getByRole('button', { name: 'Check what 1.5.0 changes' }).click()
  await expect(page.getByRole('region', { name: 'Interface change' }).getByRole('list')).toContainText('additive 1.5.0 adds output igw_id')
  await expect(page.getByRole('region', { name: 'Interface change' }).getByRole('alert')).toHaveCount(0)
  await expect(page.getByRole('region', { name: 'Interface change' }).getByRole('button', { name: /^Use .* as the version/ })).toHaveCount(0)

  // A breaking change proposes the next major.
  await checkBeforePublish(page, vpc(['igw_id']), '1.5.0')
  await expect(page.getByRole('region', { name: 'Interface change' }).getByRole('alert')).toContainText('breaking change')
  await page.getByRole('region', { name: 'Interface change' }).getByRole('button', { name: 'Use 2.0.0 as the version' }).click()
  await expect(page.getByLabel('Version', { exact: true })).toHaveValue('2.0.0')

  // Deleting the last version says the module goes with it, and lands on the module list.
  await page.goto('/orgs/interfaces/modules/private/interfaces/vpc/aws')
  const versions = page.getByRole('list', { name: 'Versions' })
  for (const version of ['1.4.0', '1.3.0']) {
    const entry = versions.getByRole('listitem').filter({ hasText: version })
    await entry.getByRole('button', { name: 'Delete' }).click()
    const confirm = entry.getByRole('group', { name: 'Confirm' })
    if (version === '1.3.0') await expect(confirm).toContainText('It is the last version: interfaces/vpc/aws goes with it.')
    await confirm.getByRole('button', { name: 'Delete' }).click()
    if (version === '1.4.0') await expect(versions.getByRole('listitem')).toHaveCount(1)
  }
  await expect(page.getByText('No modules yet')).toBeVisible()
})

test('a first version has nothing to compare with: the check shows its interface instead, and Changes is no tab of it', async ({ page }) => {
  await signIn(page)
  await openOrganization(page, 'firsts')
  await page.getByRole('link', { name: 'Publish', exact: true }).click()
  await checkBeforePublish(page, vpc(['vpc_id', 'vpc_arn']), '1.0.0', 'fresh')
  const preview = page.getByRole('region', { name: 'Interface change' })
  await expect(preview).toContainText('1.0.0 is the first version: there is nothing before it to compare with.')
  await expect(preview).toContainText('Its interface: 1 input (1 required), 2 outputs.')
  await expect(preview.getByRole('list', { name: 'Inputs of 1.0.0' })).toContainText('cidr string required')
  await expect(preview.getByRole('list', { name: 'Outputs of 1.0.0' })).toHaveText(/vpc_arn\s*vpc_id/)
  await expect(page.getByRole('alert')).toHaveCount(0)
  await expectAccessible(page, 'a first version checked before it is published')

  // Published, its one version: a link to its Changes shows the Readme, and the address says so.
  await page.request.post('/api/v2/organizations/firsts/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'vpc', provider: 'aws' } } } })
  await publishVersion(page.request, 'firsts', '1.0.0', vpc(['vpc_id']))
  await page.goto('/orgs/firsts/modules/private/firsts/vpc/aws?tab=changes')
  await expect(page.getByRole('tab', { name: 'Readme' })).toHaveAttribute('aria-selected', 'true')
  await expect(page).toHaveURL(/\/vpc\/aws$/)
})

test('follows a README’s own links without leaving the module: anchors scroll, relative links open that part', async ({ page }) => {
  await signIn(page)
  await openOrganization(page, 'readmes')
  await page.request.post('/api/v2/organizations/readmes/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'vpc', provider: 'aws' } } } })
  const filler = Array.from({ length: 80 }, (_, index) => `Paragraph ${index} of the long introduction.`).join('\n\n')
  await publishVersion(page.request, 'readmes', '1.0.0', {
    ...vpc(['vpc_id']),
    'README.md': `# VPC\n\nSee [the simple example](examples/simple) and [the inputs](#inputs).\n\n${filler}\n\n## Inputs\n\n| Name | Description | Type | Default | Required |\n|------|-------------|------|---------|:--------:|\n| <a name="input_cidr"></a> [cidr](#input\\_cidr) | The IPv4 CIDR block. | \`string\` | n/a | yes |\n| <a name="input_create_database_subnet_group"></a> [create\\_database\\_subnet\\_group](#input\\_create\\_database\\_subnet\\_group) | ${'Controls if a database subnet group should be created; it needs database subnets and is ignored otherwise. '.repeat(3)} | \`bool\` | \`true\` | no |\n`,
    'examples/simple/main.tf': 'module "vpc" {\n  source = "../../"\n  cidr   = "10.0.0.0/16"\n}\n',
    'examples/simple/README.md': '# Simple\n\nThe smallest VPC. The [complete example](../complete) has more.\n'
  })
  // Two downloads, as terraform init asks for them: the chart shows them on today's bar.
  for (let i = 0; i < 2; i++) expect((await page.request.get('/api/registry/v1/modules/readmes/vpc/aws/1.0.0/download', { headers })).status()).toBe(204)
  await page.goto('/orgs/readmes/modules/private/readmes/vpc/aws')
  const chart = page.getByRole('figure', { name: 'Downloads per day, the last 30 days' })
  await expect(chart).toContainText('7 days 2 · 30 days 2 · a year 2 · all time 2')
  await expect(chart.getByRole('table')).toContainText(new Date().toISOString().slice(0, 10))
  const readme = page.locator('.markdown')
  await expect(readme.getByRole('heading', { name: 'Inputs' })).toHaveAttribute('id', 'readme-inputs')
  const route = page.url()
  await readme.getByRole('link', { name: 'the inputs' }).click()
  await expect(readme.getByRole('heading', { name: 'Inputs' })).toBeInViewport()
  expect(page.url()).toBe(route)
  await readme.getByRole('link', { name: 'cidr', exact: true }).click()
  expect(page.url()).toBe(route)
  // terraform-docs' table: names whole on one line, the table in a box of its own (scrollable, by keyboard too).
  const table = readme.getByRole('region', { name: 'Table: Inputs' })
  await expect(table).toHaveAttribute('tabindex', '0')
  const name = table.getByRole('link', { name: 'create_database_subnet_group' })
  const box = (await name.boundingBox())!
  expect(box.height).toBeLessThan(30)
  expect(box.width).toBeGreaterThan(150)
  await readme.getByRole('link', { name: 'the simple example' }).click()
  await expect(page.getByLabel('Example')).toHaveValue('examples/simple')
  await expect(readme.getByRole('heading', { name: 'Simple' })).toBeVisible()
  // The part shown is in the address.
  await expect(page).toHaveURL(`${route}?part=examples%2Fsimple`)
  // A link to a part the archive lacks goes nowhere (never to an app route).
  await readme.getByRole('link', { name: 'complete example' }).click()
  expect(page.url()).toBe(`${route}?part=examples%2Fsimple`)
  await expect(page.getByLabel('Example')).toHaveValue('examples/simple')
})

test('offers to mirror a version of a curated public module, and says in the server’s words why it cannot offline', async ({ page }) => {
  await signIn(page)
  await openOrganization(page, 'curators')
  const created = await page.request.post('/api/v2/organizations/curators/registry-modules', {
    headers,
    data: { data: { type: 'registry-modules', attributes: { name: 'vpc', provider: 'aws', namespace: 'terraform-aws-modules', 'registry-name': 'public' } } }
  })
  expect(created.status()).toBe(201)
  await page.goto('/orgs/curators/modules/public/terraform-aws-modules/vpc/aws')
  const form = page.getByRole('form', { name: 'Mirror a version' })
  await expect(form.getByRole('heading', { name: 'Nothing mirrored yet' })).toBeVisible()
  await form.getByLabel('Version to mirror').fill('5.8.1')
  await form.getByRole('button', { name: 'Mirror' }).click()
  // The test machines reach no public registry.
  await expect(form.getByRole('alert')).toContainText(/cannot be reached/, { timeout: 20_000 })
})

test('says a version was published with warnings where it is published, readably', async ({ page }) => {
  await signIn(page)
  await openOrganization(page, 'warned')
  const folder = testFolder('warned')
  writeFileSync(join(folder, 'variables.tf'), 'variable "cidr" {\n  type = string\n}\n')
  writeFileSync(join(folder, 'broken.tf'), 'resource "aws_vpc" "this" {\n')
  await page.getByRole('link', { name: 'Publish', exact: true }).click()
  await page.getByLabel('Module folder', { exact: true }).setInputFiles(folder)
  await page.getByLabel('Module name').fill('warned')
  await page.getByLabel('Provider').fill('aws')
  await page.getByRole('button', { name: /^Publish warned\/warned\/aws 1\.0\.0/ }).click()
  const status = page.getByLabel('Publishing status')
  await expect(status.getByText('Published with a warning:')).toBeVisible({ timeout: 20_000 })
  await expect(status.getByRole('list', { name: 'Warnings' })).toContainText('broken.tf')
  // On the module page, in the main column above the tabs, on the first screen: the file, and where it fails.
  await status.getByRole('link', { name: 'Open the module' }).click()
  await page.setViewportSize({ width: 1280, height: 800 })
  const warned = page.getByRole('region', { name: /1\.0\.0 was published with a warning/ })
  await expect(warned).toBeInViewport()
  await expect(warned.getByRole('list', { name: 'Warnings' })).toContainText(/broken\.tf:1,27-28: Unclosed configuration block/)
  expect(await warned.evaluate((section) => section.compareDocumentPosition(document.querySelector('[role="tablist"]')!) & Node.DOCUMENT_POSITION_FOLLOWING)).toBeTruthy()
  await expectAccessible(page, 'a module page with a warning')
})

test('a module of many versions lists the newest twenty, down to the one shown, and the rest on asking', async ({ page }) => {
  await signIn(page)
  await openOrganization(page, 'prolific')
  await page.request.post('/api/v2/organizations/prolific/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'vpc', provider: 'aws' } } } })
  const versions = Array.from({ length: 22 }, (_, index) => `1.${index}.0`)
  await Promise.all(versions.map((version) => publishVersion(page.request, 'prolific', version, vpc(['vpc_id']))))
  await page.goto('/orgs/prolific/modules/private/prolific/vpc/aws')
  const list = page.getByRole('list', { name: 'Versions' })
  await expect(list.getByRole('listitem')).toHaveCount(20)
  await expect(list.getByRole('listitem').first()).toContainText('1.21.0')
  // An old version's page lists it, and every newer one.
  await page.goto('/orgs/prolific/modules/private/prolific/vpc/aws/1.1.0')
  await expect(list.getByRole('listitem')).toHaveCount(21)
  await expect(list.getByRole('listitem').last()).toContainText('1.1.0')
  // The rest, by keyboard: the focus goes to the first version shown anew.
  await page.getByRole('button', { name: 'Show all 22 versions' }).focus()
  await page.keyboard.press('Enter')
  await expect(list.getByRole('listitem')).toHaveCount(22)
  await expect(list.getByRole('listitem').last()).toBeFocused()
  await expect(page.getByRole('button', { name: /^Show all/ })).toHaveCount(0)
})
