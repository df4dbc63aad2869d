import { _electron, test as base } from '@playwright/test'
import { E2E_ADMIN_TOKEN } from '../../playwright.config'
import { testFolder } from './test-folder'

/**
 * The specs' `page`: a Chromium tab on the headless server, or, in the `electron` project, the
 * desktop app's window (its own embedded server, data and profile in temp folders).
 */
export const test = base.extend({
  page: async ({ page }, use, testInfo) => {
    if (testInfo.project.name !== 'electron') {
      await use(page)
      return
    }
    const app = await _electron.launch({
      args: ['.'],
      env: {
        ...process.env,
        HOMEPORT_USER_DATA_DIR: testFolder('electron-profile'),
        HOMEPORT_DATA_DIR: testFolder('electron-data'),
        HOMEPORT_PORT: '0',
        HOMEPORT_ADMIN_TOKEN: E2E_ADMIN_TOKEN
      }
    })
    const window = await app.firstWindow()
    await use(window)
    await app.close()
  }
})

export { expect } from '@playwright/test'
