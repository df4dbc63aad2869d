import { existsSync } from 'node:fs'
import { chromium } from '@playwright/test'

/**
 * Debian's headless build of Chromium, made for driving pages without a screen: the same Blink and
 * V8 as the full browser without its windowing and browser shell. Playwright runs its own copy of it
 * for headless tests; the full browser took the GUI suite 6.7 minutes on two cores, this one 4.6.
 */
const SYSTEM_BROWSERS = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium']

/**
 * The Chromium the GUI specs and the benchmark drive: one Playwright installed itself (a developer's
 * laptop) when there is one (undefined: Playwright finds it), else the one named by CHROMIUM_PATH, else
 * Debian's (its headless shell first). Nothing is ever downloaded.
 */
export function browserExecutable(): string | undefined {
  const bundled = chromium.executablePath()
  if (existsSync(bundled)) return undefined
  const candidates = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : SYSTEM_BROWSERS
  const found = candidates.find((path) => existsSync(path))
  if (!found) {
    throw new Error(`No browser for the GUI tests: install Debian's (apt-get install chromium-headless-shell) or Playwright's (npx playwright install chromium), or set CHROMIUM_PATH (tried ${candidates.join(', ')}).`)
  }
  return found
}
