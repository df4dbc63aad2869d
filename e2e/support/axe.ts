import AxeBuilder from '@axe-core/playwright'
import { expect, type Page } from '@playwright/test'

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is shown, in the light scheme and the dark
 * one (the page is left light); a violation fails the spec with each rule's help text and the
 * elements it found, so the message says what to fix.
 *
 * axe runs in the page itself (`setLegacyMode`: the GUI has no frames, which is what the default mode
 * is for) and details only the violations (`resultTypes`): the default mode carried every passing
 * node's selector and HTML out of the page and into a second, blank page to gather them, which took
 * three times as long as the checks on a page the size of vpc's README (13 s against 4 s a run).
 */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  // A rendering step first: a window just resized reports its media queries there, and the page may redraw for them (the module page moves its usage below 960 px).
  await page.evaluate(() => new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn))))
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    const results = await new AxeBuilder({ page })
      .setLegacyMode(true)
      .options({ resultTypes: ['violations'] })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze()
    const found = results.violations.map((violation) => `${violation.id}: ${violation.help}\n${violation.nodes.map((node) => `  ${node.target.join(' ')}: ${node.failureSummary?.split('\n').slice(1).join('; ')}`).join('\n')}`)
    expect(found, `axe on ${screen}, ${colorScheme}`).toEqual([])
  }
  await page.emulateMedia({ colorScheme: 'light' })
}
