import { contextBridge, ipcRenderer } from 'electron'
import { CHANNELS, type DesktopSettings, type HomeportBridge, type EmbeddedServer } from './shared/bridge.js'

// One function per operation; the renderer never sees ipcRenderer itself.
const bridge: HomeportBridge = {
  serverInfo: () => ipcRenderer.invoke(CHANNELS.serverInfo) as Promise<EmbeddedServer>,
  getSettings: () => ipcRenderer.invoke(CHANNELS.getSettings) as Promise<DesktopSettings>,
  saveSettings: (settings) => ipcRenderer.invoke(CHANNELS.saveSettings, settings) as Promise<EmbeddedServer>,
  pickFolder: () => ipcRenderer.invoke(CHANNELS.pickFolder) as Promise<string | null>,
  openPath: (path) => ipcRenderer.invoke(CHANNELS.openPath, path) as Promise<void>,
  restoreBackup: () => ipcRenderer.invoke(CHANNELS.restoreBackup) as Promise<{ kept: string | null } | null>
}

contextBridge.exposeInMainWorld('homeport', bridge)
