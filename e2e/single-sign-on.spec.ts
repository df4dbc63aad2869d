import { E2E_ADMIN_TOKEN } from '../playwright.config'
import { startOpenIdProvider } from '../tests/helpers/openid-provider'
import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { startOwnServer } from './support/own-server'
import { authorizationQuery, terraformListener } from './support/terraform-listener'

/** The site admin's request to a server of the spec's own. */
async function asAdmin(url: string, method: string, path: string, body: unknown): Promise<{ data: { id: string } }> {
  const response = await fetch(`${url}/api/v2${path}`, {
    method,
    headers: { Authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' },
    body: JSON.stringify(body)
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as { data: { id: string } }
}

test('signs a person in through the identity provider, shows who they are and their teams, makes them a token, and signs them out', async ({ page }, testInfo) => {
  test.skip(testInfo.project.name === 'electron', 'the desktop app signs in with the admin token; single sign-on is the browser’s')
  const idp = await startOpenIdProvider([{ sub: 'sub-alice', preferred_username: 'alice', name: 'Alice Example', email: 'alice@example.test', groups: ['acme/platform'] }])
  const server = await startOwnServer(['--oidc-issuer', idp.issuer, '--oidc-client-id', idp.clientId, '--oidc-client-secret', idp.clientSecret, '--oidc-name', 'Test IdP'])
  try {
    await asAdmin(server.url, 'POST', '/organizations', { data: { type: 'organizations', attributes: { name: 'acme', email: 'ops@example.test' } } })
    await asAdmin(server.url, 'POST', '/organizations/acme/teams', { data: { type: 'teams', attributes: { name: 'platform', 'organization-access': { 'manage-modules': true } } } })

    await page.goto(`${server.url}/account`)
    const button = page.getByRole('link', { name: 'Sign in with Test IdP' })
    await expect(button).toBeVisible()
    await expect(page.getByLabel('API token')).toBeVisible()
    await expectAccessible(page, 'the sign-in page with single sign-on')
    await button.click()

    // The provider's own login page, then back where the person started.
    await page.getByLabel('Username').fill('alice')
    await page.getByRole('button', { name: 'Continue' }).click()
    await expect(page).toHaveURL(`${server.url}/account`)
    await expect(page.getByRole('heading', { level: 1, name: 'alice' })).toBeVisible()
    await expect(page.getByText('Signed in through single sign-on as alice@example.test.')).toBeVisible()
    await expect(page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'alice' })).toHaveAttribute('aria-current', 'page')
    await expect(page.getByRole('region', { name: 'Teams' }).getByRole('listitem')).toHaveText('acme / platform')
    await expectAccessible(page, 'a person’s page')

    await page.getByLabel('Description').fill('laptop')
    await page.getByRole('button', { name: 'Make token' }).click()
    const token = await page.getByLabel('New API token').textContent()
    expect(token).toMatch(/^hp1\./)
    await expect(page.getByRole('region', { name: 'API tokens' }).getByText('laptop')).toBeVisible()
    // The token acts with the person's team: its organization's modules are readable.
    const modules = await fetch(`${server.url}/api/v2/organizations/acme/registry-modules`, { headers: { Authorization: `Bearer ${token}` } })
    expect(modules.status).toBe(200)

    // terraform login: the approval page offers the person's own token, with no team to choose.
    const listener = await terraformListener()
    try {
      await page.goto(`${server.url}/oauth/authorize?${authorizationQuery(listener.port, 'a-verifier-of-forty-three-characters-or-more')}`)
      const form = page.getByRole('form', { name: 'Approve terraform login' })
      await expect(page.getByText('The token is yours: it can do what your teams can')).toBeVisible()
      await expect(form.getByLabel('Organization')).toHaveCount(0)
      await expectAccessible(page, 'terraform login’s approval page for a person')
      await form.getByRole('button', { name: 'Approve' }).click()
      expect(await listener.code).toMatch(/^[A-Za-z0-9_-]{43}$/)
      await expect(page.getByText('The login server has returned an authentication code to Terraform.')).toBeVisible()
    } finally {
      listener.server.close()
    }

    // Their organization is there; the cookie, not a token the page holds, carries the session.
    await page.goto(`${server.url}/`)
    await expect(page.getByRole('list', { name: 'Organizations' }).getByRole('heading', { name: 'acme' })).toBeVisible()
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0)
    expect(await page.evaluate(() => document.cookie)).toBe('')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await expect(page.getByRole('link', { name: 'Sign in with Test IdP' })).toBeVisible()
    await page.reload()
    await expect(page.getByRole('link', { name: 'Sign in with Test IdP' })).toBeVisible()
  } finally {
    await server.stop()
    await idp.close()
  }
})
