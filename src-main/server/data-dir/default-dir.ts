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
