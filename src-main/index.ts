import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { app, BrowserWindow, dialog, ipcMain, shell, type WebContents } from 'electron'
import { startServer, type RunningServer } from './server/create-server.js'
import { defaultDataDir } from './server/data-dir.js'
import { DEFAULT_HOST, DEFAULT_PORT } from './server/options.js'
import { CHANNELS, type ServerInfo } from './shared/bridge.js'

/**
 * The desktop shell: it owns the embedded server's lifetime and one window that shows the GUI
 * the server serves. Everything else lives under ./server and runs under plain Node too.
 */
let server: RunningServer | undefined
const here = dirname(fileURLToPath(import.meta.url))

async function startEmbeddedServer(): Promise<RunningServer> {
  const dataDir = process.env.HOMEPORT_DATA_DIR ?? defaultDataDir()
  const rendererDir = join(here, '..', 'renderer')
  const options = { dataDir, host: DEFAULT_HOST, edition: 'hosted' as const, rendererDir, adminToken: process.env.HOMEPORT_ADMIN_TOKEN }
  try {
    return await startServer({ ...options, port: Number(process.env.HOMEPORT_PORT ?? DEFAULT_PORT) })
  } catch (error) {
    // Another program has the usual port: any free one will do for the desktop app.
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    return startServer({ ...options, port: 0 })
  }
}

/** Keeps the window on the server's own pages; other links open in the user's browser. */
function lockNavigation(contents: WebContents, origin: string): void {
  contents.on('will-navigate', (event, url) => {
    if (new URL(url).origin === origin) return
    event.preventDefault()
    if (/^https?:/.test(url)) void shell.openExternal(url)
  })
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:/.test(url)) void shell.openExternal(url)
    return { action: 'deny' }
  })
}

function createWindow(running: RunningServer): void {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    show: false,
    title: 'Homeport',
    webPreferences: {
      preload: join(here, '..', 'preload', 'index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false
    }
  })
  lockNavigation(window.webContents, new URL(running.url).origin)
  window.once('ready-to-show', () => window.show())
  void window.loadURL(running.url)
}

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', () => {
    const [window] = BrowserWindow.getAllWindows()
    if (window?.isMinimized()) window.restore()
    window?.focus()
  })

  ipcMain.handle(CHANNELS.serverInfo, (event): ServerInfo => {
    if (!server || new URL(event.senderFrame?.url ?? 'about:blank').origin !== new URL(server.url).origin) {
      throw new Error('not available to this page')
    }
    return { url: server.url, token: server.adminToken.token }
  })

  app
    .whenReady()
    .then(async () => {
      server = await startEmbeddedServer()
      createWindow(server)
      app.on('activate', () => {
        if (server && BrowserWindow.getAllWindows().length === 0) createWindow(server)
      })
    })
    .catch((error: unknown) => {
      dialog.showErrorBox('Homeport could not start', (error as Error).message)
      app.exit(1)
    })

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })

  let stopped = false
  app.on('will-quit', (event) => {
    if (stopped || !server) return
    // Let the server finish its writes before the process goes.
    event.preventDefault()
    void server.close().finally(() => {
      stopped = true
      app.quit()
    })
  })
}
