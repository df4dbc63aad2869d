import { homedir } from 'node:os'
import { join } from 'node:path'

/**
 * The per-user folder the desktop app keeps its registry in: Electron's `userData` for an app
 * named Homeport (`~/.config/Homeport` on Linux, `~/Library/Application Support/Homeport` on
 * macOS, `%APPDATA%\Homeport` on Windows), plus `registry`. Computed without Electron so that
 * the headless server finds the same folder.
 */
export function defaultDataDir(platform: NodeJS.Platform = process.platform, env = process.env, home = homedir()): string {
  let appData: string
  if (platform === 'win32') appData = env.APPDATA ?? join(home, 'AppData', 'Roaming')
  else if (platform === 'darwin') appData = join(home, 'Library', 'Application Support')
  else appData = env.XDG_CONFIG_HOME || join(home, '.config')
  return join(appData, 'Homeport', 'registry')
}

/**
 * The data directory a command or the desktop app works on: the one named (`--data-dir`), else
 * HOMEPORT_DATA_DIR, else the desktop app's. Every entry point resolves it here, so the CLI, the
 * headless server and the desktop app always agree on which registry they mean.
 */
export function resolveDataDir(named: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return named || env.HOMEPORT_DATA_DIR || defaultDataDir()
}
