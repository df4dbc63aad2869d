import { ADMIN_HEADERS as headers } from './support/admin-api'
import { expect, test } from './support/fixtures'
import { signIn } from './support/session'

test('a link to Homeport on another site (a chat, the identity provider’s dashboard) opens the page it names', async ({ page, request, baseURL }, testInfo) => {
  test.skip(testInfo.project.name === 'electron', 'the desktop app’s window shows Homeport alone: another site’s page opens in the system’s browser')
  await request.post('/api/v2/organizations', { headers, data: { data: { type: 'organizations', attributes: { name: 'linked', email: 'platform@linked.example' } } } })
  await signIn(page)
  // Another site, as the browser sees it (the page is made here, nothing is fetched): its link is followed as a person clicks it.
  const link = `${baseURL}/orgs/linked`
  await page.route('https://chat.example/', (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: `<!doctype html><title>Chat</title><a href="${link}">the modules of linked</a>` }))
  await page.goto('https://chat.example/')
  const arrived = page.waitForResponse(link)
  await page.getByRole('link', { name: 'the modules of linked' }).click()
  expect((await arrived).status()).toBe(200)
  await expect(page).toHaveURL(link)
  await expect(page.getByRole('heading', { level: 1, name: 'linked', exact: true })).toBeVisible()
})
