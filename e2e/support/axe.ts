import axe, { type AxeResults, type RunOptions } from 'axe-core'
import { expect, type Page } from '@playwright/test'

/** WCAG 2.1 A and AA, and only the violations detailed: carrying every passing element's selector and HTML out of the page cost more than the checks. */
const RUN_OPTIONS: RunOptions = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] }

type AxeWindow = Window & { axe?: typeof axe }

/**
 * axe-core's checks run in the page, put there once for each document: axe's own Playwright binding
 * (`@axe-core/playwright`) evaluates its 550 KB source into the page twice on every run, which was
 * 0.4 s of each run's 0.5 on a small page, and a sixth of the GUI suite's time over its hundred runs.
 */
async function runAxe(page: Page): Promise<AxeResults> {
  if (!(await page.evaluate(() => typeof (window as AxeWindow).axe?.run === 'function'))) await page.evaluate(axe.source)
  return page.evaluate((options) => (window as AxeWindow).axe!.run(document, options), RUN_OPTIONS)
}

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is shown, in the light scheme and the dark
 * one (the page is left light); a violation fails the spec with each rule's help text and the
 * elements it found, so the message says what to fix.
 */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  // A rendering step first: a window just resized reports its media queries there, and the page may redraw for them (the module page moves its usage below 960 px).
  await page.evaluate(() => new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn))))
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    const results = await runAxe(page)
    const found = results.violations.map((violation) => `${violation.id}: ${violation.help}\n${violation.nodes.map((node) => `  ${node.target.join(' ')}: ${node.failureSummary?.split('\n').slice(1).join('; ')}`).join('\n')}`)
    expect(found, `axe on ${screen}, ${colorScheme}`).toEqual([])
  }
  await page.emulateMedia({ colorScheme: 'light' })
}
