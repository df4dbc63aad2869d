/**
 * The one contract between Electron's main process and the renderer: what the preload exposes
 * as `window.homeport`. In a plain browser it is absent and the GUI asks for a token instead.
 */
/** The embedded server as the main process hands it to the window (not the HTTP server-info, shared/server-info.ts). */
export interface EmbeddedServer {
  /** Where the embedded server listens. */
  url: string
  /** The site-admin token, so the desktop user is signed in without typing it. */
  token: string
  dataDir: string
}

/** What the desktop user can change; applied by restarting the embedded server, not the app. */
export interface DesktopSettings {
  /** 0 picks any free port. */
  port: number
  dataDir: string
  edition: 'hosted' | 'self-hosted'
  tls: boolean
}

export interface HomeportBridge {
  serverInfo(): Promise<EmbeddedServer>
  getSettings(): Promise<DesktopSettings>
  /** Restarts the server with the settings; the window then loads from the new address. */
  saveSettings(settings: DesktopSettings): Promise<EmbeddedServer>
  /** The OS folder dialog; null when cancelled. */
  pickFolder(): Promise<string | null>
  /** Shows a folder in the OS file manager. */
  openPath(path: string): Promise<void>
  /**
   * Asks for a backup file, checks it and puts it in place of the data folder (keeping the old
   * one beside it), restarting the server. Resolves to where the old data went, or null when
   * cancelled.
   */
  restoreBackup(): Promise<{ kept: string | null } | null>
}

/** IPC channel names, `area:verb`. */
export const CHANNELS = {
  serverInfo: 'server:info',
  getSettings: 'settings:get',
  saveSettings: 'settings:save',
  pickFolder: 'dialog:pick-folder',
  openPath: 'shell:open-path',
  restoreBackup: 'backup:restore'
} as const
