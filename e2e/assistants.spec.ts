import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { signIn, teamToken } from './support/session'
import { docsScreenshot } from './support/screenshots'

test('shows the MCP endpoint and a configuration that works once a team token is put in', async ({ page }) => {
  const token = await teamToken(page, 'edge-assistants', 'assistant')
  await signIn(page)
  await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Settings' }).click()
  const card = page.getByRole('region', { name: 'Assistants (MCP)' })
  const origin = new URL(page.url()).origin
  await expect(card.getByText(`${origin}/mcp`, { exact: true })).toBeVisible()
  const http = JSON.parse(await card.getByLabel('MCP configuration over HTTP').innerText()) as {
    mcpServers: { homeport: { url: string; headers: { Authorization: string } } }
  }
  const stdio = JSON.parse(await card.getByLabel('MCP configuration over stdio').innerText()) as {
    mcpServers: { homeport: { command: string; args: string[]; env: { HOMEPORT_TOKEN: string } } }
  }
  expect(stdio.mcpServers.homeport).toEqual({ command: 'homeport', args: ['mcp', '--url', origin], env: { HOMEPORT_TOKEN: '<a team token>' } })
  // The HTTP configuration as an assistant would use it, with the placeholder replaced.
  const { url, headers } = http.mcpServers.homeport
  const answer = await page.request.post(url, {
    headers: { ...headers, Authorization: headers.Authorization.replace('<a team token>', token), Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' },
    data: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } }
  })
  expect(answer.status()).toBe(200)
  expect(await answer.text()).toContain('"name":"homeport"')
  await card.scrollIntoViewIfNeeded()
  await docsScreenshot(page, 'assistants.png', { fullPage: true })
  await expectAccessible(page, 'the settings with the assistants’ configuration')
})
