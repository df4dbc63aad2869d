import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const BUILT = join(ROOT, 'out', 'main', 'cli.js')

/** The newest modification time of the files under `folder`. */
function newest(folder: string): number {
  let latest = 0
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return latest
}

/**
 * The arguments to node that run `homeport`: the built CLI when it is newer than every source file
 * (as `npm test` builds it first), else the source through tsx. Both run the same code; the build
 * starts in a third of the time, which adds up over the suites' hundred-odd CLI processes, and a
 * source edited since the last build is never tested stale.
 */
function cliArgs(): string[] {
  try {
    if (statSync(BUILT).mtimeMs >= newest(join(ROOT, 'src-main'))) return [BUILT]
  } catch {
    // No build yet.
  }
  return ['--import', 'tsx', join(ROOT, 'src-main', 'server', 'cli.ts')]
}

export const HOMEPORT_CLI: readonly string[] = cliArgs()
