import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { adminPost } from './support/admin-api'
import { openOrganization, signIn, teamToken } from './support/session'
import { docsScreenshot } from './support/screenshots'
import { testFolder } from './support/test-folder'

/** A folder of repositories with one module, tagged twice, made with the machine's git; and a way to tag it again. */
function repositories(): { root: string; tag: (version: string) => void } {
  const root = testFolder('repositories')
  const repo = join(root, 'platform', 'terraform-aws-dns')
  mkdirSync(repo, { recursive: true })
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=E2E', '-c', 'user.email=e2e@example.com', ...args], { cwd: repo })
  git('init', '--quiet', '--initial-branch', 'main')
  writeFileSync(join(repo, 'README.md'), '# DNS\n\nManages the zones of the platform.\n')
  writeFileSync(join(repo, 'main.tf'), 'variable "zone" {\n  type        = string\n  description = "The zone to manage"\n}\n')
  git('add', '.')
  git('commit', '--quiet', '-m', 'first')
  git('tag', 'v1.0.0')
  writeFileSync(join(repo, 'outputs.tf'), 'output "zone_id" {\n  value = var.zone\n}\n')
  git('add', '.')
  git('commit', '--quiet', '-m', 'second')
  git('tag', 'v1.1.0')
  const tag = (version: string) => {
    writeFileSync(join(repo, `${version}.tf`), `output "v${version.replaceAll('.', '_')}" {\n  value = "${version}"\n}\n`)
    git('add', '.')
    git('commit', '--quiet', '-m', version)
    git('tag', `v${version}`)
  }
  return { root, tag }
}

test('connects a folder of repositories and publishes every version tag of one', async ({ page }) => {
  const { root, tag } = repositories()
  await signIn(page)
  await openOrganization(page, 'platform')
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Git' }).click()
  await page.getByLabel('Folder or base URL').fill(root)
  await page.getByRole('button', { name: 'Add connection' }).click()
  await expect(page.getByRole('list', { name: 'Git connections' }).getByText(root)).toBeVisible()

  // The folder's repositories are offered to pick, not typed.
  await expect(page.getByLabel('Repository').locator('option')).toHaveText(['Choose one of 1…', 'platform/terraform-aws-dns'])
  await page.getByLabel('Repository').selectOption('platform/terraform-aws-dns')
  await docsScreenshot(page, 'git.png')
  await expectAccessible(page, 'the Git page')
  await page.getByRole('button', { name: 'Publish', exact: true }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'dns', exact: true })).toBeVisible()
  const versions = page.getByRole('list', { name: 'Versions' })
  await expect(versions.getByRole('listitem').filter({ hasText: '1.1.0' }).getByText('published')).toBeVisible({ timeout: 20_000 })
  await expect(versions.getByRole('listitem').filter({ hasText: '1.0.0' }).getByText('published')).toBeVisible()
  await expect(page.getByText('Every version tag')).toBeVisible()
  await expect(page.locator('.markdown').getByText('Manages the zones of the platform.')).toBeVisible()
  // Where the repository's hook calls to have new tags read at once.
  await expect(page.getByLabel('Webhook URL')).toHaveText(/\/webhooks\/vcs\/[\w-]+$/)
  // A tag pushed since shows once "Read tags now" has read it, and publishes, without a reload.
  tag('1.2.0')
  await page.getByRole('button', { name: 'Read tags now' }).click()
  await expect(versions.getByRole('listitem').filter({ hasText: '1.2.0' }).getByText('published')).toBeVisible({ timeout: 20_000 })

  // A connection goes only when no module publishes through it; the refusal says why.
  await page.getByRole('link', { name: 'platform' }).click()
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Git' }).click()
  const connection = page.getByRole('list', { name: 'Git connections' }).getByRole('listitem')
  await connection.getByRole('button', { name: 'Delete' }).click()
  await connection.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Delete' }).click()
  await expect(page.getByRole('alert')).toContainText('1 module publishes through this connection (dns); delete it first.')
})

test('shows a reader a git module’s repository by name, and neither where it lives nor its webhook', async ({ page }, testInfo) => {
  test.skip(testInfo.project.name === 'electron', 'the desktop app signs in as the site admin')
  const { root } = repositories()
  const token = await teamToken(page, 'git-readers', 'readers')
  const connection = await adminPost<{ data: { relationships: { 'oauth-tokens': { data: Array<{ id: string }> } } } }>(page, '/organizations/git-readers/oauth-clients', {
    data: { type: 'oauth-clients', attributes: { name: 'Platform repositories', 'service-provider': 'git', 'http-url': root } }
  })
  const oauthToken = connection.data.relationships['oauth-tokens'].data[0]!.id
  await adminPost(page, '/organizations/git-readers/registry-modules/vcs', {
    data: { type: 'registry-modules', attributes: { 'vcs-repo': { identifier: 'platform/terraform-aws-dns', 'oauth-token-id': oauthToken } } }
  })

  await signIn(page, token)
  await page.goto('/orgs/git-readers/modules/private/git-readers/dns/aws')
  const repository = page.locator('.card').filter({ has: page.getByRole('heading', { name: 'Repository' }) })
  await expect(repository.locator('code').first()).toHaveText('platform/terraform-aws-dns')
  await expect(repository).not.toContainText(root)
  await expect(page.getByLabel('Webhook URL')).toHaveCount(0)
  await expect(page.getByRole('button', { name: 'Read tags now' })).toHaveCount(0)
})
