import { randomUUID } from 'node:crypto'
import { E2E_ADMIN_TOKEN } from '../playwright.config'
import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { openOrganization, signIn, teamToken } from './support/session'
import { docsScreenshot } from './support/screenshots'
import { authorizationQuery, terraformListener } from './support/terraform-listener'

test('approves terraform login in the GUI, for a chosen team, and lists and revokes the token it made', async ({ page }) => {
  await signIn(page)
  await openOrganization(page, 'login-org')
  const origin = new URL(page.url()).origin
  const headers = { Authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'Content-Type': 'application/vnd.api+json' }
  await page.request.post(`${origin}/api/v2/organizations/login-org/teams`, { headers, data: { data: { type: 'teams', attributes: { name: 'platform' } } } })

  const listener = await terraformListener()
  try {
    const verifier = `${randomUUID()}.123456789`
    const query = authorizationQuery(listener.port, verifier)
    // Where Terraform sends the browser.
    await page.goto(`${origin}/oauth/authorize?${query}`)
    const form = page.getByRole('form', { name: 'Approve terraform login' })
    await expect(page.getByRole('heading', { name: 'Terraform CLI on this machine wants a token' })).toBeVisible()
    await form.getByLabel('Organization').selectOption('login-org')
    await form.getByLabel('The token may do what this team may').selectOption({ label: 'platform (read)' })
    await docsScreenshot(page, 'terraform-login.png')
    await expectAccessible(page, 'terraform login’s approval page')
    await form.getByRole('button', { name: 'Approve' }).click()
    const code = await listener.code
    await expect(page.getByText('The login server has returned an authentication code to Terraform.')).toBeVisible()

    // Terraform exchanges the code for its token.
    const token = await page.request.post(`${origin}/oauth/token`, {
      form: { grant_type: 'authorization_code', client_id: 'terraform-cli', code, code_verifier: verifier, redirect_uri: `http://localhost:${listener.port}/login` }
    })
    expect(token.status()).toBe(200)
    expect(((await token.json()) as { access_token: string }).access_token).toMatch(/^hp1\./)
  } finally {
    listener.server.close()
  }

  await page.goto(`${origin}/orgs/login-org/teams`)
  const logins = page.getByRole('region', { name: 'Terraform CLI logins' })
  await expect(logins.getByRole('row', { name: /platform.*the site admin.*never/ })).toBeVisible()
  await logins.getByRole('button', { name: 'Revoke' }).click()
  await logins.getByRole('group', { name: 'Confirm' }).getByRole('button', { name: 'Revoke' }).click()
  await expect(logins.getByText('None yet.')).toBeVisible()
})

test('offers a read-only team’s token only its own team to hand out, and approving it works', async ({ page }, testInfo) => {
  test.skip(testInfo.project.name === 'electron', 'the desktop app signs in as the site admin')
  const token = await teamToken(page, 'login-readers', 'readers')
  await signIn(page, token)
  const listener = await terraformListener()
  try {
    const query = authorizationQuery(listener.port, `${randomUUID()}.123456789`)
    await page.goto(`/oauth/authorize?${query}`)
    const form = page.getByRole('form', { name: 'Approve terraform login' })
    const team = form.getByLabel('The token may do what this team may')
    // Not the owners' rights, which a read-only team may not hand out (approving them was refused as "team not found").
    await expect(team.getByRole('option')).toHaveText(['readers (read)'])
    await form.getByRole('button', { name: 'Approve' }).click()
    expect(await listener.code).toMatch(/.{20,}/)
  } finally {
    listener.server.close()
  }
})
