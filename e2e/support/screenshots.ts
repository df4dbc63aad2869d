import { join } from 'node:path'
import { test, type Locator, type Page } from '@playwright/test'

/**
 * A screenshot for the docs, `docs/screenshots/<name>`: written there only by `npm run screenshots`
 * (HOMEPORT_SCREENSHOTS=1). In `npm test` it is taken all the same, so a view that cannot be drawn
 * still fails, but into the test's own output folder: the suite never changes a tracked file.
 */
export async function docsScreenshot(target: Page | Locator, name: string, { fullPage = false } = {}): Promise<void> {
  const path = process.env.HOMEPORT_SCREENSHOTS === '1' ? join('docs', 'screenshots', name) : test.info().outputPath(name)
  if ('goto' in target) await target.screenshot({ path, fullPage })
  else await target.screenshot({ path })
}
