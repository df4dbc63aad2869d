import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, defineConfig, type PlaywrightTestProject } from '@playwright/test'
import { browserExecutable } from './e2e/support/browser-executable.js'

/**
 * A port the OS picks, so that two runs on one machine never collide. The runner picks it once and
 * hands it to its workers (which load this file again) through the environment.
 */
function freePort(): string {
  const script = "const server = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(server.address().port); server.close() })"
  return execFileSync(process.execPath, ['-e', script]).toString().trim()
}
process.env.E2E_PORT ??= freePort()
const PORT = Number(process.env.E2E_PORT)
export const E2E_ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef'

/** Electron's binary, where it was downloaded (a developer's laptop); never on the build machines. */
export const ELECTRON_AVAILABLE = existsSync(join(process.cwd(), 'node_modules', 'electron', 'dist'))

const executablePath = browserExecutable()
if (!process.env.HOMEPORT_E2E_BROWSER_REPORTED) {
  process.env.HOMEPORT_E2E_BROWSER_REPORTED = '1'
  console.log(`GUI tests run in ${executablePath ?? `Playwright's own Chromium (${chromium.executablePath()})`}`)
  console.log(
    ELECTRON_AVAILABLE
      ? 'Electron is installed: the same specs also run in the desktop app.'
      : 'Electron’s binary is not installed here: the specs run in Chromium only (the desktop app is not exercised).'
  )
}

const projects: PlaywrightTestProject[] = [{ name: 'chromium' }]
if (ELECTRON_AVAILABLE) projects.push({ name: 'electron' })

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  fullyParallel: false,
  // One worker: the specs share the one server, and some read or change what is installation-wide
  // (the provider mirror, the gate's policy), so two at once see each other's (the Mirror spec found a
  // provider another spec had mirrored where it expects none). Two workers took the suite from 4.9 to
  // 4.2 minutes; tried again with those specs each on a server of its own (e2e/support/own-server.ts),
  // 5.8 to 5.4, and in the headless shell 4.6 to 4.0 (2026-11-28): the suite is bound by two cores
  // either way, `npm test` gives the type check, lint and then Vitest the part that one worker leaves idle, and
  // half a minute is not worth specs that can see each other's work.
  workers: 1,
  retries: 0,
  // Budgets for a loaded machine, not a quiet one: the specs are bound by the CPU, so with two
  // `npm test` runs at once each takes twice as long, and Playwright's 30 s and 5 s timed out the
  // heaviest specs (15 s alone) although nothing was wrong.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  projects,
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    headless: true,
    // No trace by default: recording one snapshots the page at every action, for every spec that
    // passes, a fifth of a spec's time (the publish journey: 19.6 s with it, 15.7 s without). `npx
    // playwright test --trace retain-on-failure` records them when a failure needs one; a failing
    // spec keeps a screenshot.
    trace: 'off',
    screenshot: 'only-on-failure',
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync'
      ]
    }
  },
  webServer: {
    // The real headless server over a fresh data directory for every run.
    command: `node out/main/cli.js --port ${PORT} --data-dir ${mkdtempSync(join(tmpdir(), 'homeport-e2e-'))}`,
    url: `http://127.0.0.1:${PORT}/api/v2/ping`,
    env: { HOMEPORT_ADMIN_TOKEN: E2E_ADMIN_TOKEN },
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe'
  }
})
