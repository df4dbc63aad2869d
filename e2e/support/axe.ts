import AxeBuilder from '@axe-core/playwright'
import { expect, type Page } from '@playwright/test'

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is shown, in the light scheme and the dark
 * one (the page is left light); a violation fails the spec with each rule's help text and the
 * elements it found, so the message says what to fix.
 */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
    const found = results.violations.map((violation) => `${violation.id}: ${violation.help}\n${violation.nodes.map((node) => `  ${node.target.join(' ')}: ${node.failureSummary?.split('\n').slice(1).join('; ')}`).join('\n')}`)
    expect(found, `axe on ${screen}, ${colorScheme}`).toEqual([])
  }
  await page.emulateMedia({ colorScheme: 'light' })
}
