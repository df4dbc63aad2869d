import { mkdirSync, mkdtempSync } from 'node:fs'
import { test } from '@playwright/test'

/**
 * A new empty folder of the running test's own (a module folder to publish, repositories, a data
 * directory), in its output folder under test-results/, which Playwright empties when the next run
 * starts: nothing is left behind in the system's temp folder.
 */
export function testFolder(prefix: string): string {
  const { outputDir } = test.info()
  mkdirSync(outputDir, { recursive: true })
  return mkdtempSync(`${outputDir}/${prefix}-`)
}
