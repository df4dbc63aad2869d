import { contextBridge, ipcRenderer } from 'electron'
import { CHANNELS, type HomeportBridge, type ServerInfo } from './shared/bridge.js'

// One function per operation; the renderer never sees ipcRenderer itself.
const bridge: HomeportBridge = {
  serverInfo: () => ipcRenderer.invoke(CHANNELS.serverInfo) as Promise<ServerInfo>
}

contextBridge.exposeInMainWorld('homeport', bridge)
