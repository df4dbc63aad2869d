import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { APIRequestContext } from '@playwright/test'
import { E2E_ADMIN_TOKEN } from '../playwright.config'
import { moduleArchive } from '../tests/helpers/archives'
import { expect, test } from './support/fixtures'
import { openOrganization, signIn } from './support/session'

const headers = { Authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' }

/** A vpc-like module whose outputs are `outputs`. */
function vpc(outputs: string[]): Record<string, string> {
  return {
    'variables.tf': 'variable "cidr" {\n  description = "The IPv4 CIDR block for the VPC."\n  type        = string\n}\n',
    'outputs.tf': outputs.map((name) => `output "${name}" {\n  description = "The ${name} of the VPC"\n  value       = "x"\n}\n`).join('\n')
  }
}

/** Publishes a version through the API, as a pipeline does, and waits until it is published. */
async function publishVersion(request: APIRequestContext, org: string, version: string, files: Record<string, string>) {
  const module = `/api/v2/organizations/${org}/registry-modules/private/${org}/vpc/aws`
  const created = await request.post(`${module}/versions`, { headers, data: { data: { type: 'registry-module-versions', attributes: { version } } } })
  const link = ((await created.json()) as { data: { links: { upload: string } } }).data.links.upload
  expect((await request.put(link, { data: await moduleArchive(files) })).status()).toBe(200)
  await expect
    .poll(async () => ((await (await request.get(module, { headers })).json()) as { data: { attributes: { 'version-statuses': Array<{ version: string; status: string }> } } }).data.attributes['version-statuses'].find((entry) => entry.version === version)?.status)
    .toBe('ok')
}

test('shows what a version changes in the interface, on the module page and before a publish', async ({ page }) => {
  await signIn(page)
  await openOrganization(page, 'interfaces')
  await page.request.post('/api/v2/organizations/interfaces/registry-modules', { headers, data: { data: { type: 'registry-modules', attributes: { name: 'vpc', provider: 'aws' } } } })
  await publishVersion(page.request, 'interfaces', '1.3.0', vpc(['vpc_id', 'vpc_arn']))
  await publishVersion(page.request, 'interfaces', '1.4.0', vpc(['vpc_id']))

  await page.goto(page.url().replace(/#.*$/, '#/orgs/interfaces/modules/private/interfaces/vpc/aws'))
  const changes = page.getByRole('region', { name: 'Interface changes' })
  await expect(changes.getByRole('alert')).toHaveText('1.4.0 removes output vpc_arn: that is a breaking change in a minor release.')
  await expect(changes.getByRole('list', { name: 'Interface changes from 1.3.0 to 1.4.0' })).toContainText('breaking 1.4.0 removes output vpc_arn')
  await changes.screenshot({ path: 'docs/screenshots/interface-diff.png' })
  await changes.getByLabel('From', { exact: true }).selectOption('1.4.0')
  await changes.getByLabel('To', { exact: true }).selectOption('1.3.0')
  await expect(changes.getByRole('list')).toContainText('additive 1.3.0 adds output vpc_arn')

  // Before a publish: a folder that adds an output, proposed as a patch release.
  const folder = mkdtempSync(join(tmpdir(), 'homeport-e2e-vpc-'))
  for (const [name, text] of Object.entries(vpc(['vpc_id', 'igw_id']))) writeFileSync(join(folder, name), text)
  await page.getByRole('link', { name: 'interfaces' }).click()
  await page.getByRole('link', { name: 'Publish', exact: true }).click()
  await page.getByLabel('Module folder', { exact: true }).setInputFiles(folder)
  await page.getByLabel('Module name').fill('vpc')
  await page.getByLabel('Provider').fill('aws')
  await page.getByLabel('Version', { exact: true }).fill('1.4.1')
  await page.getByRole('button', { name: 'Check what 1.4.1 changes' }).click()
  const preview = page.getByRole('region', { name: 'Interface change' })
  await expect(preview.getByRole('alert')).toHaveText('1.4.1 adds output igw_id: that is new interface in a patch release (a minor release says so).')
  await page.getByLabel('Version', { exact: true }).fill('1.5.0')
  await page.getByRole('button', { name: 'Check what 1.5.0 changes' }).click()
  await expect(page.getByRole('region', { name: 'Interface change' }).getByRole('list')).toContainText('additive 1.5.0 adds output igw_id')
  await expect(page.getByRole('region', { name: 'Interface change' }).getByRole('alert')).toHaveCount(0)
})
