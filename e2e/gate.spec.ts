import { expectAccessible } from './support/axe'
import { expect, test } from './support/fixtures'
import { adminPost, ADMIN_HEADERS } from './support/admin-api'
import { signIn } from './support/session'
import { makeSigningKey, providerRelease } from '../tests/helpers/providers'

const PROVIDER = 'registry.terraform.io/gatecheck/widget'

test('sets the gate: a cooldown, a block with its reason, an approval from the queue; the mirror shows why each version is held, at 800, 1280 and 1920 px, light and dark', async ({ page }, testInfo) => {
  await signIn(page)
  const origin = new URL(page.url()).origin
  // Two versions of a public provider, imported as a release folder would be (the test machines reach no public registry).
  const key = await makeSigningKey('Gate Check')
  for (const version of ['1.0.0', '1.1.0']) {
    const release = await providerRelease('widget', version, ['linux_amd64'], key)
    const imported = await page.request.put(`${origin}/api/v2/admin/provider-mirror/releases/registry.terraform.io/gatecheck/widget/${version}`, {
      headers: ADMIN_HEADERS,
      data: { data: { type: 'provider-releases', attributes: { shasums: release.shasums.toString(), 'shasums-signature': release.signature.toString('base64'), 'signing-key': key.publicArmor, protocols: ['5.0'] } } }
    })
    expect(imported.status()).toBe(201)
    for (const file of release.zips.values()) {
      const put = await page.request.put(`${origin}/api/v2/admin/provider-mirror/packages/registry.terraform.io/gatecheck/widget/${version}/${file.os}_${file.arch}?hash=zh:${file.shasum}`, {
        headers: { Authorization: ADMIN_HEADERS.Authorization, 'Content-Type': 'application/zip' },
        data: file.bytes
      })
      expect(put.status()).toBe(201)
    }
  }
  await adminPost(page, '/organizations', { data: { type: 'organizations', attributes: { name: 'gated', email: 'ops@example.com' } } })

  try {
    await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Gate' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Gate' })).toBeVisible()
    await expect(page).toHaveTitle('Gate · Homeport')
    const policy = page.getByRole('form', { name: 'Policy' })
    await policy.getByLabel('Cooldown').fill('7 days')
    await policy.getByRole('button', { name: 'Save policy' }).click()
    await expect(policy.getByRole('alert')).toContainText('is not a duration: write it as 7d')
    await policy.getByLabel('Cooldown').fill('7d')
    await policy.getByRole('button', { name: 'Save policy' }).click()
    await expect(policy.getByRole('button', { name: 'Save policy' })).toBeDisabled()

    const rules = page.getByRole('region', { name: 'Rules' })
    const add = page.getByRole('form', { name: 'Add a rule' })
    await add.getByLabel('Address').fill('gatecheck/widget')
    await add.getByLabel('Versions').fill('= 1.1.0')
    await add.getByLabel(/^Reason/).fill('CVE-2026-7777: use 1.0.0')
    await add.getByRole('button', { name: 'Add rule' }).click()
    await expect(rules.getByRole('row', { name: /Block.*gatecheck\/widget.*= 1\.1\.0.*CVE-2026-7777/ })).toBeVisible()

    // The mirror says why each version is held, and until when.
    await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Mirror' }).click()
    const mirrored = page.getByRole('region', { name: 'Mirrored providers' })
    await expect(mirrored.getByRole('row', { name: /gatecheck\/widget.*1\.1\.0.*blocked.*CVE-2026-7777/ })).toBeVisible()
    await expect(mirrored.getByRole('row', { name: /gatecheck\/widget.*1\.0\.0.*in cooldown.*7d cooldown.*until/ })).toBeVisible()
    await expectAccessible(page, 'the Mirror page with held versions')

    // No cooldown, approvals on: Terraform's list asks for the newest version it could have, which waits in the queue.
    await page.getByRole('navigation', { name: 'Homeport' }).getByRole('link', { name: 'Gate' }).click()
    await policy.getByLabel('Cooldown').fill('0')
    await policy.getByLabel('New versions wait for approval').check()
    await policy.getByRole('button', { name: 'Save policy' }).click()
    await expect(policy.getByRole('button', { name: 'Save policy' })).toBeDisabled()
    const listed = await page.request.get(`${origin}/api/registry/public/v1/providers/gatecheck/widget/versions`, { headers: ADMIN_HEADERS })
    expect((await listed.json()).versions).toEqual([])
    await page.reload()
    const queue = page.getByRole('region', { name: 'Approvals' })
    const waiting = queue.getByRole('row', { name: /gatecheck\/widget 1\.0\.0.*the site admin.*waiting/ })
    await expect(waiting).toBeVisible()
    await waiting.getByLabel('Reason').fill('reviewed the changelog')
    await waiting.getByRole('button', { name: `Approve ${PROVIDER} 1.0.0` }).click()
    await expect(queue.getByRole('row', { name: /1\.0\.0.*approved.*by the site admin.*reviewed the changelog/ })).toBeVisible()
    // What the gate held is on the page, from the audit trail.
    await expect(page.getByRole('region', { name: 'Recent decisions' }).getByRole('row', { name: /blocked.*gatecheck\/widget 1\.1\.0: blocked by this Homeport's rule/ })).toBeVisible()
    const offered = await page.request.get(`${origin}/api/registry/public/v1/providers/gatecheck/widget/versions`, { headers: ADMIN_HEADERS })
    expect((await offered.json()).versions.map((entry: { version: string }) => entry.version)).toEqual(['1.0.0'])

    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme })
      for (const width of [800, 1280, 1920]) {
        await page.setViewportSize({ width, height: 900 })
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${width} px`).toBe(true)
        await page.screenshot({ path: testInfo.outputPath(`gate-${colorScheme}-${width}.png`), fullPage: true })
      }
    }
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setViewportSize({ width: 1280, height: 800 })
    await expectAccessible(page, 'the Gate page')

    // An organization's own gate adds to the installation's, in its Gate tab.
    await page.goto('/orgs/gated/gate')
    await expect(page.getByRole('heading', { level: 2, name: 'Policy' })).toBeVisible()
    await expect(page.getByRole('link', { name: 'Gate', exact: true }).last()).toHaveAttribute('aria-current', 'page')
    await expectAccessible(page, 'an organization’s Gate tab')

    // A curated public module's page lists what the organization's gate holds back, and why (the installation's approvals off: it would decide first).
    await page.request.patch(`${origin}/api/v2/admin/gate/policy`, { headers: ADMIN_HEADERS, data: { data: { type: 'gate-policies', attributes: { approvals: false } } } })
    await adminPost(page, '/organizations/gated/registry-modules', { data: { type: 'registry-modules', attributes: { name: 'consul', provider: 'aws', namespace: 'hashicorp', 'registry-name': 'public' } } })
    await adminPost(page, '/organizations/gated/gate/requests', {
      data: { type: 'gate-requests', attributes: { kind: 'module', package: 'registry.terraform.io/hashicorp/consul/aws', version: '0.12.0', status: 'denied', reason: 'breaks our state' } }
    })
    await page.goto('/orgs/gated/modules/public/hashicorp/consul/aws')
    const held = page.getByRole('region', { name: 'Held back by the gate' })
    await expect(held).toContainText('0.12.0')
    await expect(held).toContainText('denied by the site admin of organization gated: breaks our state')
    await expectAccessible(page, 'a curated module’s page with a version the gate holds')
  } finally {
    // The suite's other specs share this server: its gate goes back to holding nothing, and the provider goes.
    const current = await page.request.get(`${origin}/api/v2/admin/gate/policy`, { headers: ADMIN_HEADERS })
    for (const rule of (await current.json()).data.attributes.rules as Array<{ id: string }>) await page.request.delete(`${origin}/api/v2/admin/gate/policy/rules/${rule.id}`, { headers: ADMIN_HEADERS })
    await page.request.patch(`${origin}/api/v2/admin/gate/policy`, { headers: ADMIN_HEADERS, data: { data: { type: 'gate-policies', attributes: { cooldown: '0', approvals: false } } } })
    for (const version of ['1.0.0', '1.1.0']) await page.request.delete(`${origin}/api/v2/admin/provider-mirror/gatecheck/widget/${version}?hostname=registry.terraform.io`, { headers: ADMIN_HEADERS })
  }
})
