import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { app, BrowserWindow, dialog, ipcMain, shell, type IpcMainInvokeEvent } from 'electron'
import { startServer, type RunningServer } from './server/boot/start-server.js'
import { boundHeapGrowth } from './server/boot/heap-growth.js'
import { restoreBackup, UnverifiedBackupError } from './server/store/file/restore.js'
import { resolveDataDir } from './server/data-dir/default-dir.js'
import { DEFAULT_HOST, DEFAULT_PORT, parseServeOptions } from './server/boot/options.js'
import { CHANNELS, type DesktopSettings, type EmbeddedServer } from './shared/bridge.js'
import { checkSettings, loadSettings, loadWindowState, saveJson } from './desktop/settings.js'
import { mayNavigate, opensExternally, secureWebPreferences } from './desktop/window-policy.js'

/**
 * The desktop shell: it owns the embedded server's lifetime and one window showing the GUI the
 * server serves. Everything else lives under ./server and runs under plain Node too.
 */
const here = dirname(fileURLToPath(import.meta.url))
boundHeapGrowth()
// Tests (and a second profile) run with their own folder, never the user's.
if (process.env.HOMEPORT_USER_DATA_DIR) app.setPath('userData', process.env.HOMEPORT_USER_DATA_DIR)
const settingsPath = () => join(app.getPath('userData'), 'settings.json')
const windowStatePath = () => join(app.getPath('userData'), 'window-state.json')
const defaults: DesktopSettings = {
  port: Number(process.env.HOMEPORT_PORT ?? DEFAULT_PORT),
  dataDir: resolveDataDir(undefined),
  edition: 'hosted',
  tls: false
}

let server: RunningServer | undefined
let window: BrowserWindow | undefined

async function startEmbeddedServer(settings: DesktopSettings): Promise<RunningServer> {
  // The serve options from the environment (HOMEPORT_*), with what the desktop settings choose over them.
  const options = {
    ...parseServeOptions([], process.env),
    host: DEFAULT_HOST,
    dataDir: settings.dataDir,
    edition: settings.edition,
    tls: settings.tls,
    rendererDir: join(here, '..', 'renderer')
  }
  try {
    return await startServer({ ...options, port: settings.port })
  } catch (error) {
    // Another program has the port: any free one will do for the desktop app.
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    return startServer({ ...options, port: 0 })
  }
}

function serverInfo(running: RunningServer, settings: { dataDir: string }): EmbeddedServer {
  return { url: running.url, token: running.adminToken.token, dataDir: settings.dataDir }
}

/** Only the server's own pages may use the bridge. */
function fromOurPage(event: IpcMainInvokeEvent): boolean {
  return server !== undefined && mayNavigate(event.senderFrame?.url ?? '', server.url)
}

async function createWindow(running: RunningServer): Promise<void> {
  const state = await loadWindowState(windowStatePath())
  const created = new BrowserWindow({
    width: state.width,
    height: state.height,
    x: state.x,
    y: state.y,
    minWidth: 640,
    minHeight: 480,
    show: false,
    title: 'Homeport',
    // The window's and taskbar's icon on Linux and Windows (macOS takes the bundle's).
    icon: join(app.getAppPath(), 'resources', 'icon.png'),
    backgroundColor: '#14131c',
    webPreferences: secureWebPreferences(join(here, '..', 'preload', 'index.cjs'))
  })
  window = created
  if (state.maximized) created.maximize()
  created.webContents.on('will-navigate', (event, url) => {
    if (server && mayNavigate(url, server.url)) return
    event.preventDefault()
    if (opensExternally(url)) void shell.openExternal(url)
  })
  created.webContents.setWindowOpenHandler(({ url }) => {
    if (opensExternally(url)) void shell.openExternal(url)
    return { action: 'deny' }
  })
  const remember = () => {
    const bounds = created.getNormalBounds()
    void saveJson(windowStatePath(), { ...bounds, maximized: created.isMaximized() })
  }
  created.on('resized', remember)
  created.on('moved', remember)
  created.on('close', remember)
  created.once('ready-to-show', () => created.show())
  await created.loadURL(running.url)
}

function showCrash(title: string, error: unknown): void {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
  console.error(`homeport: ${title}: ${message}`)
  dialog.showErrorBox(title, message)
}

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', () => {
    if (window?.isMinimized()) window.restore()
    window?.focus()
  })

  // A failure of the embedded server is shown, never swallowed.
  process.on('uncaughtException', (error) => showCrash('Homeport hit an error', error))
  process.on('unhandledRejection', (error) => showCrash('Homeport hit an error', error))

  ipcMain.handle(CHANNELS.serverInfo, async (event): Promise<EmbeddedServer> => {
    if (!fromOurPage(event) || !server) throw new Error('not available to this page')
    return serverInfo(server, await loadSettings(settingsPath(), defaults))
  })
  ipcMain.handle(CHANNELS.getSettings, async (event) => {
    if (!fromOurPage(event)) throw new Error('not available to this page')
    return loadSettings(settingsPath(), defaults)
  })
  ipcMain.handle(CHANNELS.saveSettings, async (event, candidate: unknown): Promise<EmbeddedServer> => {
    if (!fromOurPage(event) || !server) throw new Error('not available to this page')
    const previous = await loadSettings(settingsPath(), defaults)
    const next = checkSettings(typeof candidate === 'object' && candidate !== null ? (candidate as Record<string, unknown>) : {}, defaults)
    await server.close()
    try {
      server = await startEmbeddedServer(next)
    } catch (error) {
      server = await startEmbeddedServer(previous)
      throw new Error(`Homeport could not start with those settings, and kept the previous ones: ${(error as Error).message}`, { cause: error })
    }
    await saveJson(settingsPath(), next)
    const running = server
    setImmediate(() => void window?.loadURL(running.url))
    return serverInfo(running, next)
  })
  ipcMain.handle(CHANNELS.pickFolder, async (event) => {
    if (!fromOurPage(event) || !window) return null
    const result = await dialog.showOpenDialog(window, { properties: ['openDirectory', 'createDirectory'] })
    return result.canceled ? null : (result.filePaths[0] ?? null)
  })
  ipcMain.handle(CHANNELS.openPath, async (event, path: unknown) => {
    // Only the data folder may be shown: the renderer names no other path.
    const settings = await loadSettings(settingsPath(), defaults)
    if (fromOurPage(event) && path === settings.dataDir) await shell.openPath(settings.dataDir)
  })

  ipcMain.handle(CHANNELS.restoreBackup, async (event) => {
    if (!fromOurPage(event) || !window || !server) throw new Error('not available to this page')
    const picked = await dialog.showOpenDialog(window, { filters: [{ name: 'Homeport backups', extensions: ['gz'] }], properties: ['openFile'] })
    const file = picked.filePaths[0]
    if (picked.canceled || !file) return null
    const settings = await loadSettings(settingsPath(), defaults)
    await server.close()
    try {
      const { kept } = await restoreBackup(file, settings.dataDir).catch(async (error: unknown) => {
        if (!(error instanceof UnverifiedBackupError)) throw error
        const { response } = await dialog.showMessageBox(window!, {
          type: 'warning',
          message: 'Restore a backup this Homeport did not make?',
          detail: error.message.replace(/ Restore it only .*$/, ' Restore it only if you know where it came from.'),
          buttons: ['Cancel', 'Restore anyway'],
          defaultId: 0,
          cancelId: 0
        })
        if (response !== 1) throw error
        return restoreBackup(file, settings.dataDir, { acceptUnverified: true })
      })
      return { kept: kept ?? null }
    } finally {
      // Start again, on the restored data or, when the backup was refused, on the data as it was.
      server = await startEmbeddedServer(settings)
      const running = server
      setImmediate(() => void window?.loadURL(running.url))
    }
  })

  app
    .whenReady()
    .then(async () => {
      server = await startEmbeddedServer(await loadSettings(settingsPath(), defaults))
      await createWindow(server)
      app.on('activate', () => {
        if (server && BrowserWindow.getAllWindows().length === 0) void createWindow(server)
      })
    })
    .catch((error: unknown) => {
      showCrash('Homeport could not start', error)
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
