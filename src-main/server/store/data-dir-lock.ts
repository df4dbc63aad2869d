import { open, readFile, unlink } from 'node:fs/promises'
import { resolve } from 'node:path'

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number, lockPath: string) {
    super(
      `The data directory ${dataDir} is in use by another Homeport (process ${pid}). ` +
        `Stop that one first, or choose another --data-dir. If no such process is running, delete ${lockPath}.`
    )
    this.name = 'DataDirInUseError'
  }
}

/**
 * Makes sure one Homeport at a time writes to a data directory: the desktop app and
 * `npm run serve` share the default one. The lock holds the owner's pid, so a lock left by a
 * killed process is recognised as stale at once (a lock refreshed by mtime would make a
 * restart after a crash wait).
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lockPath = resolve(dataDir, 'homeport.lock')
  if (heldHere.has(lockPath)) throw new DataDirInUseError(dataDir, process.pid, lockPath)
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600)
      await handle.writeFile(String(process.pid))
      await handle.close()
      heldHere.add(lockPath)
      return async () => {
        heldHere.delete(lockPath)
        await unlink(lockPath).catch(() => undefined)
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error
    }
    const owner = Number.parseInt(await readFile(lockPath, 'utf8').catch(() => ''), 10)
    // Our own pid in a lock we do not hold is a leftover from an earlier process that had it.
    if (Number.isInteger(owner) && owner !== process.pid && isRunning(owner)) {
      throw new DataDirInUseError(dataDir, owner, lockPath)
    }
    // A stale lock that cannot be removed (a read-only folder) must say so, not "file exists".
    await unlink(lockPath).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    })
  }
}

/** Locks this process holds: a second server in the same process must not share a data dir either. */
const heldHere = new Set<string>()

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
