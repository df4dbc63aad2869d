/**
 * The one contract between Electron's main process and the renderer: what the preload exposes
 * as `window.homeport`. In a plain browser it is absent and the GUI asks for a token instead.
 */
export interface ServerInfo {
  /** Where the embedded server listens. */
  url: string
  /** The site-admin token, so the desktop user is signed in without typing it. */
  token: string
}

export interface HomeportBridge {
  serverInfo(): Promise<ServerInfo>
}

/** IPC channel names, `area:verb`. */
export const CHANNELS = {
  serverInfo: 'server:info'
} as const
