import { chromium, type Browser, type Page } from '@playwright/test'
import { browserExecutable } from '../e2e/support/browser-executable.js'
import { ADMIN_TOKEN } from './lib.js'

/** Chromium as the GUI specs run it (browserExecutable). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: browserExecutable(),
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
  })
}

/** A page of the GUI at `url`, signed in as the benchmark's site admin. */
export async function signedInPage(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  await page.goto(url)
  await page.getByLabel('API token').fill(ADMIN_TOKEN)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('[data-app-state="loaded"]').waitFor()
  return page
}
