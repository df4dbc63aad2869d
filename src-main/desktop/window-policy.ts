import type { WebPreferences } from 'electron'

/**
 * The window's security settings, kept apart from the shell so a test can hold them in place:
 * the renderer is a web page with no Node.js, isolated from the preload, in Chromium's sandbox,
 * and the preload is its only door to the main process.
 */
export function secureWebPreferences(preload: string): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webviewTag: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    spellcheck: false
  }
}

/** Whether the window may go to `url`: only pages of the embedded server. */
export function mayNavigate(url: string, serverUrl: string): boolean {
  try {
    return new URL(url).origin === new URL(serverUrl).origin
  } catch {
    return false
  }
}

/** Links the window may not follow open in the user's browser, when they are web links. */
export function opensExternally(url: string): boolean {
  return /^https?:\/\//i.test(url)
}
